package io.msgscope.analysis;

import java.util.Objects;

/**
 * The raw per-message trace of one run, indexed by sequence number {@code 0..count-1}.
 *
 * <p>All times are monotonic nanoseconds taken on the same box (M1, R1), so differences between
 * any two of them are meaningful. {@link #ABSENT} marks a message that was not sent (in
 * {@code sendNs}) or not received (in {@code recvNs}).
 *
 * <p>The arrays are held, not copied: a trace can be ten million messages long, and copying it
 * would double the footprint of the analysis. Callers must not modify them afterwards.
 */
public final class Trace {

    /** Marks "not sent" in {@code sendNs}, "not received" in {@code recvNs}. */
    public static final long ABSENT = Long.MIN_VALUE;

    /** Largest count an analysis can handle (Java arrays are int-indexed). */
    public static final long MAX_COUNT = Integer.MAX_VALUE - 8;

    private final long count;
    private final long[] sendNs;
    private final long[] intendedNs;
    private final long[] recvNs;

    /**
     * @param count number of sequences in the run
     * @param sendNs actual send time O_n per sequence, length at least {@code count}
     * @param intendedNs intended send time per sequence in rate mode, or {@code null}
     * @param recvNs receive time I_n per sequence, length at least {@code count}
     */
    public Trace(long count, long[] sendNs, long[] intendedNs, long[] recvNs) {
        Objects.requireNonNull(sendNs, "sendNs");
        Objects.requireNonNull(recvNs, "recvNs");
        if (count < 0 || count > MAX_COUNT) {
            throw new IllegalArgumentException("count must be in [0, " + MAX_COUNT + "], was " + count);
        }
        requireLength("sendNs", sendNs, count);
        requireLength("recvNs", recvNs, count);
        if (intendedNs != null) {
            requireLength("intendedNs", intendedNs, count);
        }
        this.count = count;
        this.sendNs = sendNs;
        this.intendedNs = intendedNs;
        this.recvNs = recvNs;
    }

    private static void requireLength(String name, long[] array, long count) {
        if (array.length < count) {
            throw new IllegalArgumentException(
                    name + " has length " + array.length + " but count is " + count);
        }
    }

    /** Number of sequences in the run. */
    public long count() {
        return count;
    }

    /** {@link #count()} as an int index bound. */
    public int size() {
        return (int) count;
    }

    /** Actual send times O_n; the array itself, not a copy. */
    public long[] sendNs() {
        return sendNs;
    }

    /** Intended send times (rate mode only), or {@code null}; the array itself. */
    public long[] intendedNs() {
        return intendedNs;
    }

    /** Receive times I_n; the array itself, not a copy. */
    public long[] recvNs() {
        return recvNs;
    }

    /** Whether the trace carries intended send times (rate mode, coordinated omission). */
    public boolean hasIntended() {
        return intendedNs != null;
    }

    /** Send time of sequence {@code n}, or {@link #ABSENT}. */
    public long sendNs(int n) {
        return sendNs[n];
    }

    /** Receive time of sequence {@code n}, or {@link #ABSENT}. */
    public long recvNs(int n) {
        return recvNs[n];
    }

    /**
     * Start of the run: the earliest present send time, or intended time in rate mode, whichever
     * is earlier; {@link #ABSENT} if nothing was sent.
     */
    public long startNs() {
        long start = Long.MAX_VALUE;
        boolean any = false;
        int n = size();
        for (int i = 0; i < n; i++) {
            long s = sendNs[i];
            if (s != ABSENT) {
                any = true;
                if (s < start) {
                    start = s;
                }
            }
        }
        if (intendedNs != null) {
            for (int i = 0; i < n; i++) {
                long s = intendedNs[i];
                if (s != ABSENT) {
                    any = true;
                    if (s < start) {
                        start = s;
                    }
                }
            }
        }
        return any ? start : ABSENT;
    }
}
