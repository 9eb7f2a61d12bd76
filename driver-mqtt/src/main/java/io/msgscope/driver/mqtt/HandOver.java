package io.msgscope.driver.mqtt;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DeliveryCount;
import io.msgscope.core.driver.MessageHandler;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;

/**
 * The delivery side of both MQTT subscribers (HiveMQ and the Netty engine): the client's I/O thread
 * hands each payload to the receiver's handler first thing (Q2), counts it in a
 * {@link DeliveryCount} the polling thread waits on, and keeps payloads shorter than the header
 * aside as {@code short_payloads} (issue 5). Messages that arrive before the receiver's first poll
 * (the handler is not known yet) are copied aside rather than blocking the I/O thread, which would
 * stop the acknowledgements, and Mosquitto drops what overflows its queue; they are handed over in
 * order by whichever thread gets there first once the handler is known. Their receive time is that
 * of the hand-over; they are warm-up messages in practice.
 */
final class HandOver {
    final DeliveryCount count = new DeliveryCount();
    private final ArrayList<ByteBuffer> pending = new ArrayList<>();
    private volatile MessageHandler handler;
    private volatile boolean early;
    private long shortPayloads; // written on the delivery thread only; read after the run

    /** I/O thread: one message's payload, {@code [position, limit)} of a little-endian buffer. */
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
        count.delivered();
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

    /** Holding the lock: delivers what arrived before the first poll. */
    private void drainPending(MessageHandler h) {
        for (ByteBuffer b : pending) {
            if (b.capacity() < WireHeader.SIZE) {
                shortPayloads++;
            } else {
                h.onMessage(b, 0);
            }
            count.delivered();
        }
        pending.clear();
        early = false;
    }

    /** Receiver thread: as {@link io.msgscope.core.driver.Subscriber#poll}. */
    int poll(MessageHandler handler, long timeoutMs) {
        if (this.handler != handler) {
            synchronized (pending) {
                this.handler = handler;
                if (early) {
                    drainPending(handler);
                }
            }
        }
        return count.await(timeoutMs);
    }

    long shortPayloads() {
        return shortPayloads;
    }
}
