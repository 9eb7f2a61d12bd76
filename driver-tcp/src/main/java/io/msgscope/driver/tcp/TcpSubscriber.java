package io.msgscope.driver.tcp;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * Reads the stream in large chunks and cuts it into fixed-size messages. Non-blocking reads; when
 * nothing is there it parks in a selector (no busy-spin: on a 2-core box the receiver must leave
 * the relay a core). No allocation in steady state.
 */
final class TcpSubscriber implements Subscriber {
    private static final java.util.function.Consumer<SelectionKey> IGNORE = key -> { };

    private final SocketChannel channel;
    private final Selector selector;
    private final ByteBuffer buffer;
    private final int size;

    TcpSubscriber(SocketChannel channel, int size) throws IOException {
        this.channel = channel;
        this.size = size;
        this.buffer = WireHeader.allocate(TcpSockets.bufferFor(size));
        channel.configureBlocking(false);
        selector = Selector.open();
        channel.register(selector, SelectionKey.OP_READ);
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) throws IOException {
        int n = channel.read(buffer);
        if (n == 0) {
            // the action form of select does not touch the selected-key set: no allocation per wake-up
            selector.select(IGNORE, timeoutMs);
            n = channel.read(buffer);
        }
        if (n < 0) {
            return -1;
        }
        if (n == 0) {
            return 0;
        }
        final int end = buffer.position();
        final int whole = end - end % size;
        int delivered = 0;
        for (int off = 0; off < whole; off += size) {
            handler.onMessage(buffer, off);
            delivered++;
        }
        buffer.limit(end).position(whole);
        buffer.compact();
        return delivered;
    }

    @Override
    public java.net.InetAddress localAddress() {
        try {
            return ((java.net.InetSocketAddress) channel.getLocalAddress()).getAddress();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void close() throws IOException {
        selector.close();
        channel.close();
    }
}
