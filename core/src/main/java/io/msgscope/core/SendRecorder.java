package io.msgscope.core;

import java.util.Arrays;

/**
 * O_n of every measured message in preallocated memory (D5, M5): one slot per sequence number,
 * written once by the sending thread, never written to disk during the run. In rate mode the
 * intended send time is kept too, so latency can be reported corrected for coordinated omission.
 */
public final class SendRecorder {
    /** Marks a slot that was never written (message not sent). */
    public static final long ABSENT = Long.MIN_VALUE;

    private final long[] sendNs;
    private final long[] intendedNs;
    private long sent; // stored opaque: another thread reads it for progress (never hoisted out of the loop)

    private static final java.lang.invoke.VarHandle SENT;

    static {
        try {
            SENT = java.lang.invoke.MethodHandles.lookup().findVarHandle(SendRecorder.class, "sent", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public SendRecorder(int count, boolean keepIntended) {
        sendNs = new long[count];
        Arrays.fill(sendNs, ABSENT); // also touches every page before the run
        if (keepIntended) {
            intendedNs = new long[count];
            Arrays.fill(intendedNs, ABSENT);
        } else {
            intendedNs = null;
        }
    }

    /** Records O_n; the hot path: one array store and one increment. */
    public void recordSend(int seq, long monoNs) {
        sendNs[seq] = monoNs;
        SENT.setOpaque(this, sent + 1); // a plain store on x86: same cost as sent++
    }

    public void recordIntended(int seq, long monoNs) {
        intendedNs[seq] = monoNs;
    }

    public long sent() {
        return sent;
    }

    /** {@link #sent()} read from another thread (the agent's heartbeat answer): recent, possibly a little behind. */
    public long progress() {
        return (long) SENT.getOpaque(this);
    }

    public long[] sendNs() {
        return sendNs;
    }

    /** Null unless the run is rate-driven. */
    public long[] intendedNs() {
        return intendedNs;
    }
}
