package io.msgscope.driver.tcp;

import io.msgscope.core.driver.MiddleBox;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The raw-TCP relay, the tcp driver's middle box (M1's broker box, M10's trivial broker): it listens on an
 * ingress port (the sender connects) and an egress port (the receiver connects, first) and forwards whole
 * messages from one to the other on the thread that calls {@link #forward}, each read's whole messages in one
 * write ({@link RelayForwarder}), handed to the tap together first. The broker-probe agent runs it like any
 * driver's middle box (issue 15: the agent knows no driver).
 */
final class TcpRelay implements MiddleBox {
    private final ServerSocketChannel ingress;
    private final ServerSocketChannel egress;
    private final int size;
    private final int socketBuffer;
    private final boolean noDelay;
    private volatile SocketChannel in;
    private volatile SocketChannel out;
    private volatile RelayForwarder forwarder;
    private volatile boolean closed;

    /** Binds both ports (0 = any free one) on {@code host}. */
    TcpRelay(String host, int ingressPort, int egressPort, int size, int socketBuffer, boolean noDelay)
            throws IOException {
        this.size = size;
        this.socketBuffer = socketBuffer;
        this.noDelay = noDelay;
        this.ingress = TcpSockets.listen(host, ingressPort, "--relay-ingress-port");
        try {
            this.egress = TcpSockets.listen(host, egressPort, "--relay-egress-port");
        } catch (IOException | RuntimeException e) {
            ingress.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return "relay";
    }

    @Override
    public int ingressPort() {
        return port(ingress);
    }

    @Override
    public int egressPort() {
        return port(egress);
    }

    private static int port(ServerSocketChannel ch) {
        try {
            return ((InetSocketAddress) ch.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new IllegalStateException("the relay's listening socket is closed", e);
        }
    }

    /**
     * Accepts the receiver, then the sender, and forwards until the sender's stream ends or {@link #close};
     * a failure while open is thrown naming how many messages went through.
     */
    @Override
    public void forward(Tap tap) throws IOException {
        try {
            SocketChannel o = egress.accept(); // the receiver connects first
            out = o;
            TcpSockets.tune(o, socketBuffer, noDelay);
            SocketChannel i = ingress.accept();
            in = i;
            TcpSockets.tune(i, socketBuffer);
            RelayForwarder f = new RelayForwarder(i, o, size, tap, TcpSockets.bufferFor(size));
            forwarder = f;
            while (!closed && f.forwardOnce()) {
                // one read and one write per pass, as many whole messages as the read completed
            }
        } catch (IOException e) {
            if (!closed) {
                throw new IOException("relay stopped forwarding after " + forwarded() + " messages: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public long forwarded() {
        RelayForwarder f = forwarder;
        return f == null ? 0 : f.forwarded();
    }

    @Override
    public void close() {
        closed = true;
        for (AutoCloseable c : new AutoCloseable[] {in, out, ingress, egress}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // closing anyway
            }
        }
    }
}
