package io.msgscope.core.driver;

import io.msgscope.core.WireHeader;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A subscriber's receive buffer for clients that hand over each payload as a byte array of their own (amqp-client,
 * ProtonJ2, kafka-clients, jnats): one little-endian buffer, allocated once and overwritten in place, that the
 * {@link MessageHandler} reads from offset 0. Owned by the one thread that delivers. Nothing is allocated per message
 * except, for a payload larger than the buffer, what the buffer's kind says:
 * <ul>
 *   <li>{@link #copyingUpTo}: the buffer holds the announced size up to a limit; a larger payload is wrapped, one
 *       small ByteBuffer per such delivery, cheaper than copying a large body;</li>
 *   <li>{@link #growing}: the buffer holds the announced size; a larger payload grows it once.</li>
 * </ul>
 */
public final class ReceiveBuffer {
    private final boolean grows;
    private ByteBuffer buffer;

    private ReceiveBuffer(int capacity, boolean grows) {
        this.grows = grows;
        this.buffer = allocate(capacity);
    }

    /** Copies payloads up to {@code messageSize} (at least a header, at most {@code copyLimit}); wraps larger ones. */
    public static ReceiveBuffer copyingUpTo(int messageSize, int copyLimit) {
        return new ReceiveBuffer(Math.min(Math.max(messageSize, WireHeader.SIZE), copyLimit), false);
    }

    /** Copies every payload; one larger than {@code messageSize} (or a header) grows the buffer to its size. */
    public static ReceiveBuffer growing(int messageSize) {
        return new ReceiveBuffer(Math.max(messageSize, WireHeader.SIZE), true);
    }

    /** The payload in a little-endian buffer, from offset 0, for the handler: this buffer or, see the kinds, a wrap. */
    public ByteBuffer of(byte[] payload) {
        final int n = payload.length;
        final ByteBuffer b = buffer;
        if (n <= b.capacity()) {
            System.arraycopy(payload, 0, b.array(), 0, n);
            return b;
        }
        if (!grows) {
            return ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        }
        buffer = allocate(n); // larger than announced: grow once
        return of(payload);
    }

    /** The current buffer's size (tests). */
    int capacity() {
        return buffer.capacity();
    }

    private static ByteBuffer allocate(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }
}
