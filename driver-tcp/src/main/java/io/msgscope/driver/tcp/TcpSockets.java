package io.msgscope.driver.tcp;

import io.msgscope.core.SpecException;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** Socket set-up shared by the TCP publisher, subscriber and relay. */
public final class TcpSockets {
    private TcpSockets() {
    }

    /** TCP_NODELAY always (a latency tool must not wait for Nagle); buffers only when asked. */
    public static void tune(SocketChannel ch, int socketBuffer) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        if (socketBuffer > 0) {
            ch.setOption(StandardSocketOptions.SO_SNDBUF, socketBuffer);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, socketBuffer);
        }
    }

    /**
     * Binds a listening socket; a port in use is bad input naming {@code option}, not a stack trace.
     */
    public static ServerSocketChannel listen(String host, int port, String option) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        try {
            server.bind(new InetSocketAddress(host, port));
        } catch (BindException e) {
            server.close();
            throw new SpecException(option, "cannot listen on " + host + ":" + port + " (" + e.getMessage()
                    + "); choose a free port, or 0 for any");
        }
        return server;
    }

    public static SocketChannel connect(String host, int port, int socketBuffer) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            tune(ch, socketBuffer);
            ch.connect(new InetSocketAddress(host, port));
        } catch (IOException e) {
            ch.close();
            throw new IOException("cannot connect to " + host + ":" + port + ": " + e.getMessage(), e);
        }
        return ch;
    }

    /** Receive buffer size for fixed-size messages: at least 1 MiB and two messages. */
    public static int bufferFor(int messageSize) {
        return Math.max(1 << 20, 2 * messageSize);
    }
}
