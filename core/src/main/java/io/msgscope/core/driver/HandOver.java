package io.msgscope.core.driver;

import io.msgscope.core.WireHeader;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The delivery side of the push-based subscribers (MQTT's HiveMQ and Netty engines, NATS's Netty
 * engine; one piece, since drivers never depend on each other): the client's I/O thread
 * hands each payload to the receiver's handler first thing (Q2) and keeps payloads shorter than the
 * header aside as {@code short_payloads} (issue 5). Two ways to get the handler:
 * <ul>
 *   <li>pull ({@link #poll}, trace mode): each delivery is counted in a {@link DeliveryCount} the polling
 *       thread waits on;</li>
 *   <li>push ({@link #start}, the scenario runtime, issue 13): the I/O thread calls the handler and nobody
 *       waits; the end of the connection is reported once through the {@code ended} callback.</li>
 * </ul>
 * Messages that arrive before the handler is known are copied aside rather than blocking the I/O thread
 * (which would stop the acknowledgements, and Mosquitto drops what overflows its queue); they are handed
 * over in order by whichever thread gets there first once the handler is known. Their receive time is
 * that of the hand-over; they are warm-up messages in practice.
 */
public final class HandOver {
    private final DeliveryCount count = new DeliveryCount();
    private final ArrayList<ByteBuffer> pending = new ArrayList<>();
    private volatile MessageHandler handler;
    private volatile boolean early;
    private long shortPayloads; // written on the delivery thread only; read after the run
    // guarded by pending: push mode's end report
    private Consumer<String> ended;
    private String lostWhy;
    private boolean closing;
    private boolean endReported;
    private boolean push;

    /** I/O thread: one message's payload, {@code [position, limit)} of a little-endian buffer. */
    public void deliver(ByteBuffer payload) {
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

    /** Holding the lock: delivers what arrived before the handler was known. */
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
    public int poll(MessageHandler handler, long timeoutMs) {
        if (this.handler != handler) {
            synchronized (pending) {
                if (push) {
                    throw new IllegalStateException("this subscriber delivers through start(); it cannot be polled too");
                }
                this.handler = handler;
                if (early) {
                    drainPending(handler);
                }
            }
        }
        return count.await(timeoutMs);
    }

    /**
     * As {@link io.msgscope.core.driver.Subscriber#start}: from now on the I/O thread calls {@code handler}
     * itself; what arrived before is handed over first, here, in order. A connection that ended before this
     * call is reported through {@code ended} at once.
     */
    public void start(MessageHandler handler, Consumer<String> ended) {
        start(handler, ended, Runnable::run);
    }

    /**
     * As {@link #start(MessageHandler, Consumer)}, handing over what arrived before on {@code drainOn} (an
     * engine's event loop, so that every delivery, the early ones too, runs on the I/O thread). Until that
     * task ran, a new message from the I/O thread hands the early ones over first itself: the order holds.
     */
    public void start(MessageHandler handler, Consumer<String> ended, java.util.concurrent.Executor drainOn) {
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(ended, "ended");
        String why;
        synchronized (pending) {
            if (this.handler != null) {
                throw new IllegalStateException("this subscriber already delivers to a handler");
            }
            push = true;
            this.ended = ended;
            this.handler = handler;
            why = takeEnd();
        }
        drainOn.execute(() -> {
            synchronized (pending) {
                if (early) {
                    drainPending(handler);
                }
            }
        });
        if (why != null) {
            ended.accept(why);
        }
    }

    /**
     * Any thread, once: the connection ended for this one-line reason. Polling sees -1 from now on; in push
     * mode {@code ended} hears it, unless the subscriber is being closed by its owner.
     */
    public void lost(String why) {
        count.lost();
        String report;
        Consumer<String> e;
        synchronized (pending) {
            if (lostWhy == null) {
                lostWhy = why;
            }
            report = takeEnd();
            e = ended;
        }
        if (report != null) {
            e.accept(report);
        }
    }

    /** The owner closes the subscriber: its end is not reported through {@code ended}. */
    public void closing() {
        synchronized (pending) {
            closing = true;
        }
    }

    /** Holding the lock: the reason to report through {@code ended} now, at most once. */
    private String takeEnd() {
        if (ended == null || lostWhy == null || closing || endReported) {
            return null;
        }
        endReported = true;
        return lostWhy;
    }

    public long shortPayloads() {
        return shortPayloads;
    }
}
