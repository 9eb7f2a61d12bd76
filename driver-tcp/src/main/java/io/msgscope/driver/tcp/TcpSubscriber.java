package io.msgscope.driver.tcp;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * Reads the stream in large chunks and cuts it into fixed-size messages ({@link #deliver}). Non-blocking
 * reads; when nothing is there it parks in a selector (no busy-spin: on a 2-core box the receiver must
 * leave the sender or the relay a core). No allocation in steady state.
 *
 * <p>Connected to the relay's egress port ({@code via=relay}), or listening ({@code via=direct}): then the
 * first polls accept the sender's one connection, and the listening socket is closed once it is in.
 */
final class TcpSubscriber implements Subscriber {
    // the action form of select does not touch the selected-key set: no allocation per wake-up
    private static final Consumer<SelectionKey> IGNORE = key -> { };

    private final Selector selector;
    private final ByteBuffer buffer;
    private final int size;
    private final int socketBuffer;
    private final String destination;
    private final InetAddress local;
    private ServerSocketChannel server; // direct mode until the sender is accepted
    private SocketChannel channel; // null until then

    /** Relay mode: an already connected channel. */
    TcpSubscriber(SocketChannel channel, int size) throws IOException {
        this.size = size;
        this.socketBuffer = 0;
        this.buffer = WireHeader.allocate(TcpSockets.bufferFor(size));
        this.selector = Selector.open();
        this.destination = "";
        this.local = ((InetSocketAddress) channel.getLocalAddress()).getAddress();
        attach(channel);
    }

    private TcpSubscriber(ServerSocketChannel server, int size, int socketBuffer, String destination,
                          InetAddress local) throws IOException {
        this.size = size;
        this.socketBuffer = socketBuffer;
        this.buffer = WireHeader.allocate(TcpSockets.bufferFor(size));
        this.destination = destination;
        this.local = local;
        this.server = server;
        this.selector = Selector.open();
        try {
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            selector.close();
            throw e;
        }
    }

    /** Direct mode: listens as {@code o} says and reports {@code host:port} as its destination. */
    static TcpSubscriber listen(TcpOptions o, int size, int socketBuffer) throws IOException {
        ServerSocketChannel server = TcpSockets.listenDirect(o, socketBuffer);
        try {
            InetSocketAddress bound = (InetSocketAddress) server.getLocalAddress();
            String host = o.connectHost();
            InetAddress local = bound.getAddress().isAnyLocalAddress() ? resolve(host) : bound.getAddress();
            return new TcpSubscriber(server, size, socketBuffer, TcpSockets.HostPort.format(host, bound.getPort()),
                    local);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private static InetAddress resolve(String host) {
        try {
            return InetAddress.getByName(TcpOptions.unbracket(host));
        } catch (IOException e) {
            return null; // the network is then not sampled (M4), nothing else depends on it
        }
    }

    private void attach(SocketChannel ch) throws IOException {
        TcpSockets.tune(ch, socketBuffer);
        ch.configureBlocking(false);
        ch.register(selector, SelectionKey.OP_READ);
        channel = ch;
    }

    /** Direct mode: takes the sender's connection if it is there within the timeout. */
    private boolean accept(long timeoutMs) throws IOException {
        SocketChannel ch = server.accept();
        if (ch == null) {
            select(timeoutMs);
            ch = server.accept();
            if (ch == null) {
                return false;
            }
        }
        server.keyFor(selector).cancel();
        server.close(); // one sender per receiver: nobody else gets in
        selector.selectNow(IGNORE); // deregisters the listening socket, which completes its close now
        server = null;
        attach(ch);
        return true;
    }

    private void select(long timeoutMs) throws IOException {
        if (timeoutMs > 0) {
            selector.select(IGNORE, timeoutMs);
        } else {
            selector.selectNow(IGNORE);
        }
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) throws IOException {
        if (channel == null && !accept(timeoutMs)) {
            return 0;
        }
        final SocketChannel ch = channel;
        final ByteBuffer buf = buffer;
        int n = ch.read(buf);
        if (n == 0) {
            select(timeoutMs);
            n = ch.read(buf);
        }
        if (n < 0) {
            return -1;
        }
        return n == 0 ? 0 : deliver(buf, size, handler);
    }

    /**
     * Hands every whole message in {@code [0, position)} of {@code buf} to the handler, in order, then moves
     * the partial message at the end (if any) to the front and leaves the buffer ready for the next read.
     *
     * @return the messages delivered
     */
    static int deliver(ByteBuffer buf, int size, MessageHandler handler) {
        final int end = buf.position();
        final int whole = end - end % size;
        for (int off = 0; off < whole; off += size) {
            handler.onMessage(buf, off);
        }
        if (whole > 0) {
            buf.limit(end).position(whole);
            buf.compact();
        }
        return whole / size;
    }

    @Override
    public String destination() {
        return destination;
    }

    @Override
    public InetAddress localAddress() {
        return local;
    }

    @Override
    public void close() throws IOException {
        try {
            selector.close();
        } finally {
            for (java.nio.channels.Channel c : new java.nio.channels.Channel[] {server, channel}) {
                if (c != null) {
                    c.close();
                }
            }
        }
    }
}
