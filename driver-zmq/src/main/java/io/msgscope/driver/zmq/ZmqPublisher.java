package io.msgscope.driver.zmq;

import io.msgscope.core.driver.Publisher;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A PUSH socket connected to the subscriber's PULL socket. ZeroMQ connects in the background and
 * would queue messages for an absent peer forever; so the constructor waits (through a socket
 * monitor) until the TCP connection is up, and fails after 5 s with one line naming the address.
 * {@code send} hands each message to JeroMQ from the heap payload buffer (JeroMQ copies it into its
 * own message: its allocation). ZeroMQ has no acknowledgements, so {@link #drain} has nothing to wait
 * for; {@link #close} lingers up to 5 s so queued messages still go out.
 */
final class ZmqPublisher implements Publisher {
    private static final long CONNECT_TIMEOUT_MS = 5_000;

    private final ZContext ctx;
    private final ZMQ.Socket push;
    private final String endpoint;
    private final int size;
    private long errors;

    ZmqPublisher(String endpoint, int hwm, int size) throws IOException {
        this.endpoint = endpoint;
        this.size = size;
        ctx = new ZContext(1);
        push = ctx.createSocket(SocketType.PUSH);
        push.setSndHWM(hwm);
        push.setLinger(5_000);
        try {
            probe(endpoint);
            push.connect(endpoint);
        } catch (IOException | RuntimeException e) {
            ctx.close();
            throw e instanceof IOException io ? io : new IOException("cannot connect to " + endpoint + ": " + e.getMessage());
        }
    }

    /** A plain TCP connect first: ZeroMQ would otherwise retry in the background and queue forever. */
    private static void probe(String endpoint) throws IOException {
        java.net.URI u = java.net.URI.create(endpoint);
        if (!"tcp".equals(u.getScheme()) || u.getHost() == null || u.getPort() < 0) {
            return; // ipc://, inproc:// and the like: nothing to probe
        }
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress(u.getHost(), u.getPort()), (int) CONNECT_TIMEOUT_MS);
        } catch (IOException e) {
            throw new IOException("cannot connect to " + u.getHost() + ":" + u.getPort() + ": " + e.getMessage());
        }
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final byte[] a = buffer.array();
        final int size = this.size;
        final int end = buffer.arrayOffset() + offset + length;
        for (int off = buffer.arrayOffset() + offset; off < end; off += size) {
            if (!push.send(a, off, size, 0)) {
                errors++;
                throw new IOException("ZeroMQ send to " + endpoint + " failed: " + ZMQ.Error.findByCode(push.errno()));
            }
        }
    }

    @Override
    public java.util.Map<String, Long> counters() {
        return java.util.Map.of("publish_errors", errors);
    }

    @Override
    public void close() {
        ctx.close();
    }
}
