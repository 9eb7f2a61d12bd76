package io.msgscope.analysis;

/**
 * The 40-message trace around a broker pause that the fault tests share (issue 32): FaultAnalysisTest works its
 * figures out by hand, the coordinator's FaultSectionTest finds them again in summary.json's units. Message i is due
 * and sent at {@code t0} + i × 100 ms (10 msg/s) and received 1 ms later, except those a pause applied at 1.5005 s
 * and resumed at 2.505 s held: 15-19 and 21-25 arrive at 2.506 s, 20 never.
 */
public final class PausedTraces {
    public static final long MS = 1_000_000L;
    public static final int COUNT = 40;
    /** When the held messages arrive, after {@code t0}. */
    public static final long RELEASED_NS = 2_506 * MS;

    private PausedTraces() {
    }

    /** The trace with every held message arriving at {@link #RELEASED_NS}. */
    public static Trace paused(long t0) {
        return build(t0, RELEASED_NS, RELEASED_NS);
    }

    /** The same, but 22 arrives 0.5 ms and 21 1 ms after the others held: both after 23, reordered. */
    public static Trace pausedReordered(long t0) {
        return build(t0, RELEASED_NS + MS, RELEASED_NS + MS / 2);
    }

    private static Trace build(long t0, long at21, long at22) {
        long[] send = new long[COUNT];
        long[] intended = new long[COUNT];
        long[] recv = new long[COUNT];
        for (int i = 0; i < COUNT; i++) {
            intended[i] = t0 + i * 100 * MS;
            send[i] = intended[i];
            recv[i] = i >= 15 && i <= 25 ? t0 + RELEASED_NS : send[i] + MS;
        }
        recv[20] = Trace.ABSENT;
        recv[21] = t0 + at21;
        recv[22] = t0 + at22;
        return new Trace(COUNT, send, intended, recv);
    }
}
