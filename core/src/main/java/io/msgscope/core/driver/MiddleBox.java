package io.msgscope.core.driver;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * A driver's own middle box (M1's broker box, M10), run by the broker-probe agent in relay mode: it
 * binds an ingress side (publishers connect) and an egress side (subscribers connect) and forwards
 * whole messages on the one thread that calls {@link #forward}, handing each measured-size message to
 * a {@link Tap} first, so the probe can stamp its CPU into the message in place (D4, M3) exactly as
 * the raw-TCP relay does. Drivers without one (brokers are somebody else's process) keep the default.
 */
public interface MiddleBox extends AutoCloseable {
    /** The hook on every whole message before it is forwarded; called on the forwarding thread, must not allocate. */
    @FunctionalInterface
    interface Tap {
        /**
         * @param index the number of this message on the middle box, from 0, warm-up included
         */
        void onMessage(ByteBuffer buffer, int offset, long index);

        /**
         * The {@code count} consecutive messages of {@code size} bytes at {@code offset} of {@code buffer}, the
         * first of them the middle box's message {@code firstIndex}: what one read completed (the raw-TCP relay
         * hands each read's whole messages at once). The default calls {@link #onMessage} for each; taps that can
         * find the few messages they act on by arithmetic override it, so the others cost nothing.
         */
        default void onMessages(ByteBuffer buffer, int offset, int count, int size, long firstIndex) {
            for (int i = 0, off = offset; i < count; i++, off += size) {
                onMessage(buffer, off, firstIndex + i);
            }
        }
    }

    /**
     * What the box is, for its thread's name ({@code msgscope-NAME}): "relay" for the raw-TCP relay, a driver's own
     * box says which (e.g. "zmq-proxy"). The broker-probe agent knows no driver by name (issue 15).
     */
    String name();

    /** Port the publishers connect to. */
    int ingressPort();

    /** Port the subscribers connect to. */
    int egressPort();

    /**
     * Forwards on the calling thread until {@link #close} (then returns normally).
     *
     * @throws IOException when the middle box cannot go on (the message says after how many messages)
     */
    void forward(Tap tap) throws IOException;

    /** Messages forwarded so far (any thread). */
    long forwarded();

    /**
     * CPU time (ns) of the helper threads the middle box's library runs besides the forwarding thread
     * (e.g. JeroMQ's I/O thread, which does the socket work), so that the probe's stamps cover the
     * whole forwarding path; 0 when there are none. Called every Nth message on the forwarding thread.
     */
    default long helperCpuNs() {
        return 0;
    }

    /** The middle box's own counters for the results, e.g. short payloads passed through; any thread. */
    default Map<String, Long> counters() {
        return Map.of();
    }

    /** Stops {@link #forward} and releases the sockets; idempotent, any thread. */
    @Override
    void close();
}
