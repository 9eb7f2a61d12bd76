package io.msgscope.driver.stomp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;

/**
 * The SEND frames a publisher's thread has framed and its event loop has not written yet. The sending thread appends
 * each frame to {@code fill} (under a lock) and schedules one write task when none is on its way; the event loop swaps
 * {@code fill} with {@code spare}, copies what it took into one buffer of its own and writes and flushes it. So a burst
 * of SENDs leaves in one write and one flush, and the sending thread never wakes the event loop more than once per
 * batch (a write and a flush from outside the event loop are a task and a wake-up each: at 10,000 msg/s with one of
 * each per message the sender could not keep up on the loaded 2-core box, 6,340 msg/s received in the first trial).
 * Both buffers are the publisher's own and never released; the copy is a memcpy per batch.
 */
final class SendBatch {
    /** Bytes framed and not yet written above which the publisher waits, as for an unwritable channel. */
    static final int HIGH_WATER = 256 * 1024;

    private final Object lock = new Object();
    private ByteBuf fill = Unpooled.buffer(0);
    private ByteBuf spare = Unpooled.buffer(0); // event loop only, between takes
    private boolean scheduled;                  // guarded by lock
    private volatile int pending;               // fill's size, for the sender's back-pressure

    /** Sending thread: appends one SEND; true when no write task is on its way and the caller must schedule one. */
    boolean append(StompSend frame, ByteBuffer body, int offset, long receiptId) {
        synchronized (lock) {
            frame.write(fill, body, offset, receiptId);
            pending = fill.readableBytes();
            if (scheduled) {
                return false;
            }
            scheduled = true;
            return true;
        }
    }

    /** Whether so much waits for the event loop that the sender should wait too. */
    boolean full() {
        return pending > HIGH_WATER;
    }

    /** Event loop: what was appended since the last take, in a buffer from {@code alloc}, or null when nothing. */
    ByteBuf take(ByteBufAllocator alloc) {
        ByteBuf taken;
        synchronized (lock) {
            taken = fill;
            fill = spare;
            spare = taken;
            scheduled = false;
            pending = 0;
        }
        if (!taken.isReadable()) {
            return null;
        }
        ByteBuf out = alloc.directBuffer(taken.readableBytes());
        out.writeBytes(taken);
        taken.clear();
        return out;
    }
}
