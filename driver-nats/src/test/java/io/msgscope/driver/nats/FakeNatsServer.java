package io.msgscope.driver.nats;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The accept loop of the reconnect tests' simulated servers (both engines, issue 32 item 3): a local socket that
 * accepts every client in turn, numbers its connections from 1 and serves each on a thread of its own. A test kills
 * the server as a fault would ({@link #dropAll}: every connection closed, the listener still there, as a server
 * restarted at once) or for good ({@link #close}); the protocol spoken is the test's {@link Session}.
 */
public final class FakeNatsServer implements AutoCloseable {
    /** One connection: the socket and its number (1 for the first accepted). */
    public interface Session {
        void serve(Socket socket, int connection) throws IOException;
    }

    private final ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    /** Connections accepted so far. */
    public final AtomicInteger connections = new AtomicInteger();

    public FakeNatsServer(String name, Session session) throws IOException {
        Thread acceptor = new Thread(() -> accept(name, session), name);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept(String name, Session session) {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                open.add(s);
                int n = connections.incrementAndGet();
                Thread t = new Thread(() -> {
                    try (s) {
                        session.serve(s, n);
                    } catch (IOException e) {
                        // the client went or the server closed
                    } finally {
                        open.remove(s);
                    }
                }, name + "-" + n);
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    public String uri() {
        return "nats://127.0.0.1:" + server.getLocalPort();
    }

    /** Closes every connection (the clients see the server gone); new ones are still accepted. */
    public void dropAll() throws IOException {
        for (Socket s : open) {
            s.close();
        }
    }

    /** One protocol line (UTF-8) without its line end (LF or CRLF). */
    public static String readLine(DataInputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new IOException("the client went");
            }
            b.write(c);
        }
        String line = b.toString(StandardCharsets.UTF_8);
        return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }

    public static void write(OutputStream out, String s) throws IOException {
        synchronized (out) {
            out.write(s.getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
    }

    /** Stops accepting and closes every connection: the server is gone for good. */
    @Override
    public void close() throws IOException {
        server.close();
        dropAll();
    }
}
