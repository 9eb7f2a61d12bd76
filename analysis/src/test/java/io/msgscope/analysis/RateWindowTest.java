package io.msgscope.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** ST/RT windows of at least M messages and a minimum span, against hand-walked windows. */
class RateWindowTest {
    private static final long A = Trace.ABSENT;

    private static int[] lengths(long[] t, int m, long min) {
        RateWindow w = new RateWindow(t, m, min);
        int[] k = new int[t.length];
        for (int n = 0; n < t.length; n++) {
            k[n] = w.lengthAt(n);
        }
        return k;
    }

    /**
     * The hand trace's send times (HandTraces.SEND), M = 2, at least 500 ns: n = 2, 3 span too little
     * from message 0; from n = 4 on the windows alternate between 3 messages over 500 ns and 4 over 600 ns.
     */
    @Test
    void handWalkedSendWindows() {
        int[] k = lengths(HandTraces.SEND.clone(), 2, 500);
        assertEquals(java.util.List.of(0, 0, 0, 0, 3, 4, 3, 4, 3, 4), java.util.Arrays.stream(k).boxed().toList());
        RateWindow w = new RateWindow(HandTraces.SEND.clone(), 2, 500);
        for (int n = 0; n < 4; n++) {
            assertTrue(Double.isNaN(w.rateAt(n)));
        }
        assertEquals(3e9 / 500, w.rateAt(4), 1e-6);
        assertEquals(4e9 / 600, w.rateAt(5), 1e-6);
    }

    @Test
    void handWalkedReceiveWindows() {
        // HandTraces.RECV, M = 2, >= 500 ns
        int[] k = lengths(HandTraces.RECV.clone(), 2, 500);
        assertEquals(java.util.List.of(0, 0, 0, 3, 3, 3, 3, 3, 3, 2), java.util.Arrays.stream(k).boxed().toList());
    }

    /**
     * A receiver reading bursts of 3 messages 1 ns apart every 1,000 ns: the true rate is 3 per 1,000 ns
     * (3 M msg/s). Over M = 2 messages RT alternates between the parse rate (2 per 2 ns = 1 G msg/s) and
     * 2 per ~1,000 ns; over windows of at least 1,000 ns every value is the true rate.
     */
    @Test
    void burstsReadAtOnceGiveTheParseRateOverMButTheReceiveRateOverAMinimumSpan() {
        long[] t = {0, 1, 2, 1000, 1001, 1002, 2000, 2001, 2002, 3000, 3001, 3002};
        RateWindow m2 = new RateWindow(t, 2, 0);
        assertEquals(1e9, m2.rateAt(2), 1e-3); // messages 0..2: 2 in 2 ns
        RateWindow spanned = new RateWindow(t, 2, 1000);
        assertTrue(Double.isNaN(spanned.rateAt(2)));
        for (int n = 3; n < t.length; n++) {
            assertEquals(3e6, spanned.rateAt(n), 1e-6, "n = " + n);
        }
        AnalysisResult plain = TraceAnalysis.analyse(new Trace(t.length, t.clone(), null, t.clone()), 2);
        AnalysisResult fixed = TraceAnalysis.analyse(new Trace(t.length, t.clone(), null, t.clone()), 2, 1000);
        assertTrue(plain.rtMsgPerSec().max() >= 1e9 - 1);
        assertEquals(3e6, fixed.rtMsgPerSec().median(), 1e-6);
        assertEquals(3e6, fixed.rtMsgPerSec().max(), 1e-6);
        assertEquals(1000.0 / 3, fixed.roNs().median(), 1e-9); // RO = span / messages
        assertEquals(9, fixed.rtExtended()); // every window needed 3 messages, M = 2
        assertEquals(1, fixed.rtUndefined()); // n = 2
        assertEquals(1000, fixed.rateWindowMinNs());
    }

    @Test
    void absentTimesAreSkippedAndAReorderedMessageIsLeftUndefined() {
        long[] t = {0, A, 2000, 3000, 2500};
        assertEquals(java.util.List.of(0, 0, 2, 1, 0), java.util.Arrays.stream(lengths(t, 1, 1000)).boxed().toList());
        // M2 (no minimum span): exactly M, undefined when the start is absent
        assertEquals(java.util.List.of(0, 0, 0, 1, 1), java.util.Arrays.stream(lengths(t, 1, 0)).boxed().toList());
    }

    @Test
    void checksItsArguments() {
        assertThrows(IllegalArgumentException.class, () -> new RateWindow(new long[2], 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new RateWindow(new long[2], 1, -1));
        RateWindow w = new RateWindow(new long[] {0, 1, 2}, 1, 0);
        w.lengthAt(2);
        assertThrows(IllegalArgumentException.class, () -> w.lengthAt(1));
        assertEquals("M = 100 messages", RateWindow.describe(100, 0));
        assertEquals(">= 100 messages and >= 10 ms", RateWindow.describe(100, 10_000_000));
        assertEquals(">= 100 messages and >= 500 us", RateWindow.describe(100, 500_000));
    }
}
