package io.msgscope.driver.tcp;

import io.msgscope.core.driver.Publisher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * Writes whole messages from the caller's buffer in place, nothing copied. The socket is non-blocking:
 * a blocking channel's write pays for interruptible-I/O bookkeeping (two more monitor enters and the
 * blocker registration) on every call, about a sixth of a 64-byte write on loopback here, and at
 * {@code --send-batch 1} that is per message. Only when the socket's send buffer is full (the peer is
 * behind) does it wait, parked in a selector until the socket is writable again: no busy spin taking
 * the peer's core.
 */
final class TcpPublisher implements Publisher {
    private static final Consumer<SelectionKey> IGNORE = key -> { };
    private static final long WAIT_SLICE_MS = 100;

    private final SocketChannel channel;
    private Selector selector; // opened the first time the send buffer is full
    private long waits;

    TcpPublisher(SocketChannel channel) throws IOException {
        this.channel = channel;
        channel.configureBlocking(false);
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        buffer.limit(offset + length).position(offset);
        channel.write(buffer);
        if (buffer.hasRemaining()) {
            writeRest(buffer);
        }
        buffer.clear(); // leave the whole buffer open for the next in-place header writes
    }

    private void writeRest(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.write(buffer) == 0) {
                awaitWritable();
            }
        }
    }

    private void awaitWritable() throws IOException {
        waits++;
        try {
            if (selector == null) {
                selector = Selector.open();
                channel.register(selector, SelectionKey.OP_WRITE);
            }
            while (selector.select(IGNORE, WAIT_SLICE_MS) == 0) {
                if (!channel.isOpen()) {
                    throw new ClosedChannelException();
                }
            }
        } catch (ClosedSelectorException e) {
            throw new ClosedChannelException(); // closed by another thread while waiting
        }
    }

    /** Whether TCP_NODELAY is on (tests). */
    boolean noDelay() throws IOException {
        return channel.getOption(java.net.StandardSocketOptions.TCP_NODELAY);
    }

    /**
     * {@code send_buffer_waits}: how often a write found the socket's send buffer full and the sender waited
     * for the receiver (or the relay) to take data, i.e. how often the peer held the sender back.
     */
    @Override
    public java.util.Map<String, Long> counters() {
        return java.util.Map.of("send_buffer_waits", waits);
    }

    /** How often a send found the socket's buffer full and waited (tests). */
    long waits() {
        return waits;
    }

    @Override
    public void close() throws IOException {
        try {
            if (selector != null) {
                selector.close();
            }
        } finally {
            channel.close();
        }
    }
}
