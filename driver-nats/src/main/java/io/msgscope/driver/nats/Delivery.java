package io.msgscope.driver.nats;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DeliveryCount;
import io.msgscope.core.driver.MessageHandler;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.concurrent.Executor;

/**
 * The delivery side of the lean subscriber: the event loop hands each payload to the receiver's handler first thing
 * (Q2) and keeps payloads shorter than the header aside as {@code short_payloads} (issue 5). Two ways to take the
 * messages: {@link #poll} (trace mode) counts them in a {@link DeliveryCount} the polling thread waits on;
 * {@link #start} (scenario mode) only calls the handler, no thread of the caller waits.
 *
 * <p>Messages that arrive before the handler is known (between SUB and the first poll or {@code start}) are
 * copied aside rather than blocking the event loop, which serves other connections too; they are handed over in
 * order before any later message: by the poller in poll mode, on the event loop in push mode. Their receive time is
 * that of the hand-over; they are warm-up messages in practice.
 */
final class Delivery {
    final DeliveryCount count = new DeliveryCount();
    private final ArrayList<ByteBuffer> pending = new ArrayList<>();
    private volatile MessageHandler handler;
    private volatile boolean early;
    private boolean push; // written before handler, read after it
    private long shortPayloads; // event loop only (and the hand-over under the lock); read after the run

    /** Event loop: one message's payload, {@code [position, limit)} of a little-endian buffer. */
    void deliver(ByteBuffer payload) {
        final MessageHandler h = handler;
        if (h == null || early) {
            deliverEarly(payload);
            return;
        }
        if (payload.remaining() < WireHeader.SIZE) {
            shortPayloads++;
        } else {
            h.onMessage(payload, payload.position());
        }
        if (!push) {
            count.delivered();
        }
    }

    private void deliverEarly(ByteBuffer payload) {
        synchronized (pending) {
            if (handler == null) {
                ByteBuffer copy = ByteBuffer.allocate(payload.remaining()).order(ByteOrder.LITTLE_ENDIAN);
                copy.put(0, payload, payload.position(), payload.remaining());
                pending.add(copy);
                early = true;
                return;
            }
            drainPending(handler);
            deliver(payload);
        }
    }

    /** Holding the lock: hands over what arrived before the handler was known. */
    private void drainPending(MessageHandler h) {
        for (ByteBuffer b : pending) {
            if (b.capacity() < WireHeader.SIZE) {
                shortPayloads++;
            } else {
                h.onMessage(b, 0);
            }
            if (!push) {
                count.delivered();
            }
        }
        pending.clear();
        early = false;
    }

    /** Receiver thread: as {@link io.msgscope.core.driver.Subscriber#poll}. */
    int poll(MessageHandler h, long timeoutMs) {
        if (handler != h) {
            synchronized (pending) {
                if (push) {
                    throw new IllegalStateException("this subscriber was started (push delivery); it cannot be polled");
                }
                handler = h;
                if (early) {
                    drainPending(h);
                }
            }
        }
        return count.await(timeoutMs);
    }

    /**
     * Push delivery from now on: every later message goes to {@code h} on the event loop; what arrived before is
     * handed over first, on the event loop too ({@code loop}).
     */
    void start(MessageHandler h, Executor loop) {
        synchronized (pending) {
            if (handler != null) {
                throw new IllegalStateException(push ? "this subscriber was started already" : "this subscriber is "
                        + "being polled; it cannot be started as well");
            }
            push = true;
            handler = h;
        }
        loop.execute(() -> {
            synchronized (pending) {
                if (early) {
                    drainPending(h);
                }
            }
        });
    }

    long shortPayloads() {
        return shortPayloads;
    }
}
