package io.msgscope.analysis;

/** The 10-message hand trace shared by the tests; the hand computation is in TraceAnalysisTest. */
public final class HandTraces {

    /** O_n in ns. */
    public static final long[] SEND = {1000, 1100, 1300, 1400, 1600, 1700, 1900, 2000, 2200, 2300};
    /** I_n in ns. */
    public static final long[] RECV = {1500, 1700, 1800, 2100, 2200, 2500, 2600, 2900, 3000, 3400};
    /** Intended send times for the rate-mode variant: one every 100 ns from 1000. */
    public static final long[] INTENDED = {1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900};

    private HandTraces() {
    }

    public static Trace plain() {
        return new Trace(10, SEND.clone(), null, RECV.clone());
    }

    public static Trace rateMode() {
        return new Trace(10, SEND.clone(), INTENDED.clone(), RECV.clone());
    }

    /** Message 4 lost, message 0 received "before" it was sent (clock error, latency −100). */
    public static Trace withLossAndNegative() {
        long[] recv = RECV.clone();
        recv[4] = Trace.ABSENT;
        recv[0] = 900;
        return new Trace(10, SEND.clone(), null, recv);
    }
}
