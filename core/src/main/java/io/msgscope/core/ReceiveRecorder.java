package io.msgscope.core;

import java.util.Arrays;

/**
 * I_n of every measured message in preallocated memory indexed by sequence number (D5, M5),
 * and exact counts of what did not arrive as sent: duplicates (a sequence seen again; the first
 * arrival is kept), reordering (a sequence lower than the highest already seen) and sequences
 * outside [0, count). Loss is derived after the run from the slots still {@link #ABSENT}.
 * Single writer: the receiving thread.
 */
public final class ReceiveRecorder {
    public static final long ABSENT = SendRecorder.ABSENT;

    private final long[] recvNs;
    /** The messages the run holds: the array's length, or fewer once a drain that published ended (issue 31). */
    private volatile int count;
    private long received; // stored opaque: another thread reads it for progress

    private static final java.lang.invoke.VarHandle RECEIVED;

    static {
        try {
            RECEIVED = java.lang.invoke.MethodHandles.lookup().findVarHandle(ReceiveRecorder.class, "received", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private long duplicates;
    private long reordered;
    private long outOfRange;
    private long highest = -1;
    private long firstNs = ABSENT;
    private long lastNs = ABSENT;

    public ReceiveRecorder(int count) {
        this.count = count;
        recvNs = new long[count];
        Arrays.fill(recvNs, ABSENT);
    }

    /** Forgets everything recorded: the explicit reset between a discarded phase and the measurement. */
    public void reset() {
        Arrays.fill(recvNs, ABSENT);
        received = 0;
        duplicates = 0;
        reordered = 0;
        outOfRange = 0;
        highest = -1;
        firstNs = ABSENT;
        lastNs = ABSENT;
    }

    /** Records I_n for sequence {@code seq}; the hot path. */
    public void recordReceive(long seq, long monoNs) {
        if (seq < 0 || seq >= count) {
            outOfRange++;
            return;
        }
        int i = (int) seq;
        if (recvNs[i] != ABSENT) {
            duplicates++;
            return;
        }
        recvNs[i] = monoNs;
        RECEIVED.setOpaque(this, received + 1);
        if (seq < highest) {
            reordered++;
        } else {
            highest = seq;
        }
        if (firstNs == ABSENT) {
            firstNs = monoNs;
        }
        lastNs = monoNs;
    }

    /**
     * The run holds {@code n} messages, fewer than it was sized for: a drain that published ended before its cap
     * (issue 31), so the later messages were numbered on from where it ended. Completion and loss are over [0, n).
     */
    public void expect(int n) {
        if (n < 1 || n > recvNs.length) {
            throw new IllegalArgumentException("a recorder for " + recvNs.length + " messages cannot expect " + n);
        }
        count = n;
    }

    /** The messages the run holds ({@link #expect}). */
    public int expected() {
        return count;
    }

    /**
     * The first message from {@code from} (inclusive) to {@code below} (exclusive) not yet received, or {@code below}
     * when every one has been: called with the last answer as {@code from}, a scan over a backlog is done once.
     */
    public long firstMissing(long from, long below) {
        long i = Math.max(0, from);
        final long end = Math.min(below, recvNs.length);
        while (i < end && recvNs[(int) i] != ABSENT) {
            i++;
        }
        return i < end ? i : below;
    }

    /** How many messages from {@code from} to {@code below} (exclusive) have not been received. */
    public long missing(long from, long below) {
        long n = 0;
        for (long i = Math.max(0, from), end = Math.min(below, recvNs.length); i < end; i++) {
            if (recvNs[(int) i] == ABSENT) {
                n++;
            }
        }
        return n;
    }

    public boolean complete() {
        return received == count;
    }

    public long received() {
        return received;
    }

    /** {@link #received()} read from another thread (the agent's heartbeat answer): recent, possibly a little behind. */
    public long progress() {
        return (long) RECEIVED.getOpaque(this);
    }

    public long duplicates() {
        return duplicates;
    }

    public long reordered() {
        return reordered;
    }

    public long outOfRange() {
        return outOfRange;
    }

    public long firstNs() {
        return firstNs;
    }

    public long lastNs() {
        return lastNs;
    }

    public long[] recvNs() {
        return recvNs;
    }
}
