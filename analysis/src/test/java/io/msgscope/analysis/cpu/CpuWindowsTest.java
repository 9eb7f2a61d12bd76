package io.msgscope.analysis.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.analysis.Trace;
import org.junit.jupiter.api.Test;

/** Hand-computed M3 rates: C = scale · (U_j − U_i) / (T_j − T_i). */
class CpuWindowsTest {

    private static final long A = Trace.ABSENT;
    private static final double PCT = CpuWindows.PERCENT_OF_ONE_CORE;
    private static final long MS = 1_000_000L;
    private static final double EPS = 1e-9;

    private static StepSeries rate(long[] t, long[] u, int every, long count) {
        return CpuWindows.rate("cpu", t, u, every, count, 0, PCT);
    }

    @Test
    void plainWindows() {
        // every=10, count=30: K=3 windows, 4 slots.
        // w0: 100·(500−0)/(1000−0) = 50 %; w1: 100·0/1000 = 0 %; w2: 100·500/1000 = 50 %.
        StepSeries s = rate(new long[] {0, 1000, 2000, 3000}, new long[] {0, 500, 500, 1000}, 10, 30);
        assertEquals(3, s.windows());
        assertArrayEquals(new double[] {50, 0, 50}, s.values(), EPS);
        assertEquals(50, s.valueAt(9), EPS);
        assertEquals(0, s.valueAt(10), EPS);
        assertEquals(50, s.valueAt(29), EPS);
        assertThrows(IndexOutOfBoundsException.class, () -> s.valueAt(30));
    }

    @Test
    void missingMiddleSampleIsBridged() {
        // Slot 1 missing: w0 and w1 both span slots 0→2: 100·(600−0)/(2000−0) = 30 %.
        // w2: 100·(1500−600)/(3000−2000) = 90 %.
        long[] t = {0, A, 2000, 3000};
        long[] u = {0, A, 600, 1500};
        assertArrayEquals(new double[] {30, 30, 90}, rate(t, u, 10, 30).values(), EPS);
        // Only the timestamp or only the counter missing: the slot is still missing.
        assertArrayEquals(new double[] {30, 30, 90},
                rate(new long[] {0, 1000, 2000, 3000}, new long[] {0, A, 600, 1500}, 10, 30).values(), EPS);
        assertArrayEquals(new double[] {30, 30, 90},
                rate(new long[] {0, A, 2000, 3000}, new long[] {0, 999, 600, 1500}, 10, 30).values(), EPS);
    }

    @Test
    void missingFirstOrLastSampleCannotBeBridged() {
        // Slot 0 missing: w0 has no present slot <= 0 → NaN; w1: 100·(500−250)/1000 = 25 %;
        // w2: 100·(1000−500)/1000 = 50 %.
        double[] first = rate(new long[] {A, 1000, 2000, 3000}, new long[] {A, 250, 500, 1000}, 10, 30).values();
        assertTrue(Double.isNaN(first[0]));
        assertEquals(25, first[1], EPS);
        assertEquals(50, first[2], EPS);
        // Slot 3 (after the last message) missing: w2 has no present slot >= 3 → NaN.
        double[] last = rate(new long[] {0, 1000, 2000, A}, new long[] {0, 250, 500, A}, 10, 30).values();
        assertEquals(25, last[0], EPS);
        assertEquals(25, last[1], EPS);
        assertTrue(Double.isNaN(last[2]));
        // Slots 2 and 3 missing: w1 and w2 cannot be closed.
        double[] tail = rate(new long[] {0, 1000, A, A}, new long[] {0, 250, A, A}, 10, 30).values();
        assertEquals(25, tail[0], EPS);
        assertTrue(Double.isNaN(tail[1]) && Double.isNaN(tail[2]));
    }

    @Test
    void zeroLengthAndReversedWindowsAreUndefined() {
        // w1: T_2 − T_1 = 0 → NaN; w2: T_3 − T_2 = −500 → NaN; w0: 100·100/1000 = 10 %.
        double[] v = rate(new long[] {0, 1000, 1000, 500}, new long[] {0, 100, 100, 200}, 10, 30).values();
        assertEquals(10, v[0], EPS);
        assertTrue(Double.isNaN(v[1]));
        assertTrue(Double.isNaN(v[2]));
    }

    @Test
    void counterWrapWithModulus() {
        // 32-bit byte counter: 4294967000 → 200 is (2^32 − 4294967000) + 200 = 296 + 200 = 496 bytes
        // over 1000 ns → 496 · 1e9 / 1000 = 4.96e8 bytes/s.
        long[] t = {0, 1000};
        long[] u = {4_294_967_000L, 200};
        StepSeries s = CpuWindows.rate("net_bytes_s", t, u, 1, 1, CpuWindows.WRAP_32, CpuWindows.PER_SECOND);
        assertEquals(4.96e8, s.window(0), 1e-3);
    }

    @Test
    void negativeDeltaWithoutWrapIsUndefined() {
        // w0: U falls 500 → 100 and no wrap modulus → NaN; w1: 100·(300−100)/1000 = 20 %.
        double[] v = rate(new long[] {0, 1000, 2000}, new long[] {500, 100, 300}, 10, 20).values();
        assertTrue(Double.isNaN(v[0]));
        assertEquals(20, v[1], EPS);
    }

    @Test
    void partialLastWindow() {
        // every=10, count=25: K = ceil(25/10) = 3 windows; the last holds messages 20..24.
        // w0: 100·250/1000 = 25 %; w1: 100·500/1000 = 50 %; w2: 100·(1000−750)/(2500−2000) = 50 %.
        StepSeries s = rate(new long[] {0, 1000, 2000, 2500}, new long[] {0, 250, 750, 1000}, 10, 25);
        assertEquals(3, s.windows());
        assertArrayEquals(new double[] {25, 50, 50}, s.values(), EPS);
        assertEquals(50, s.valueAt(24), EPS);
    }

    @Test
    void longerPreallocatedArraysAreFineShorterOnesAreNamed() {
        long[] t = {0, 1000, 2000, 3000, 777, 888};
        long[] u = {0, 500, 500, 1000, 1, 2};
        assertArrayEquals(new double[] {50, 0, 50}, rate(t, u, 10, 30).values(), EPS);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> rate(new long[] {0, 1000, 2000}, new long[] {0, 1, 2}, 10, 30));
        assertTrue(e.getMessage().contains("4 sample slots"), e.getMessage());
        assertEquals(0, rate(new long[0], new long[0], 10, 0).windows());
    }

    @Test
    void coarseTicksMergedToMinimumSpan() {
        // 120 windows of 2 ms (every=1), slots T_k = 2 ms·k up to 240 ms. The process really uses
        // 30 % of a core, but its CPU counter advances in 10 ms ticks: U(T) = floor(0.3·T/10 ms)·10 ms.
        int windows = 120;
        long[] t = new long[windows + 1];
        long[] u = new long[windows + 1];
        for (int k = 0; k <= windows; k++) {
            t[k] = 2 * MS * k;
            u[k] = (3 * t[k] / 100 / MS) * 10 * MS; // floor(0.3·T / 10 ms) · 10 ms
        }
        // Unmerged, a 2 ms window reads 0 % or 10 ms / 2 ms = 500 %.
        double[] raw = rate(t, u, 1, windows).values();
        assertEquals(0, raw[0], EPS);
        assertEquals(500, raw[16], EPS); // 0.3·34 ms = 10.2 ms: the first tick lands in window 16
        // Merged to >= 100 ms: run slots 0→50 (0→100 ms): U 0 → 30 ms → 30 %;
        // run 50→100 (100→200 ms): U 30 → 60 ms → 30 %;
        // tail 100→120 (200→240 ms) is only 40 ms, so it folds into the run before:
        // slots 50→120: U(240 ms) = floor(72/10)·10 = 70 ms; (70 − 30)/(240 − 100) = 40/140 = 28.571… %.
        double[] merged = CpuWindows.rateOverMinSpan("cpu", t, u, 1, windows, PCT, 100 * MS).values();
        for (int k = 0; k < 50; k++) {
            assertEquals(30, merged[k], EPS, "window " + k);
        }
        for (int k = 50; k < windows; k++) {
            assertEquals(4000.0 / 140, merged[k], EPS, "window " + k);
        }
    }

    @Test
    void unevenSpansMissingSlotsAndShortTraces() {
        // every=1, count=5, T = 0, 40, 80, 120, 130, 250 ms, U = 0, 10, 30, 60, 60, 100 ms.
        // minSpan 100 ms: run 0→3 (120 ms): 60/120 = 50 %; run 3→5 (130 ms): 40/130 = 30.769… %.
        long[] t = {0, 40 * MS, 80 * MS, 120 * MS, 130 * MS, 250 * MS};
        long[] u = {0, 10 * MS, 30 * MS, 60 * MS, 60 * MS, 100 * MS};
        assertArrayEquals(new double[] {50, 50, 50, 4000.0 / 130, 4000.0 / 130},
                CpuWindows.rateOverMinSpan("cpu", t, u, 1, 5, PCT, 100 * MS).values(), EPS);
        // A missing slot inside a run changes nothing.
        long[] t1 = t.clone();
        t1[1] = A;
        assertArrayEquals(new double[] {50, 50, 50, 4000.0 / 130, 4000.0 / 130},
                CpuWindows.rateOverMinSpan("cpu", t1, u, 1, 5, PCT, 100 * MS).values(), EPS);
        // A missing first slot: w0 NaN; run 1→4 (40→130 ms = 90 ms) is too short, extends to 5
        // (210 ms): (100 − 10)/210 = 42.857… %, the only run, so no tail folding.
        long[] t0 = t.clone();
        t0[0] = A;
        double[] v0 = CpuWindows.rateOverMinSpan("cpu", t0, u, 1, 5, PCT, 100 * MS).values();
        assertTrue(Double.isNaN(v0[0]));
        for (int k = 1; k < 5; k++) {
            assertEquals(9000.0 / 210, v0[k], EPS);
        }
        // The whole trace (250 ms) shorter than minSpan: one coarse run, 100/250 = 40 %.
        assertArrayEquals(new double[] {40, 40, 40, 40, 40},
                CpuWindows.rateOverMinSpan("cpu", t, u, 1, 5, PCT, 1000 * MS).values(), EPS);
        // minSpan 0 is plain rate(): 25 %, 50 %, 75 %, 0 %, 33.33… %.
        assertArrayEquals(rate(t, u, 1, 5).values(),
                CpuWindows.rateOverMinSpan("cpu", t, u, 1, 5, PCT, 0).values(), EPS);
        // Missing last slot: the windows after the last present slot (4) are NaN; run 0→3 as
        // before, tail 3→4 (10 ms) folds into it: 60/130 = 46.15… %.
        long[] tl = t.clone();
        tl[5] = A;
        double[] vl = CpuWindows.rateOverMinSpan("cpu", tl, u, 1, 5, PCT, 100 * MS).values();
        for (int k = 0; k < 4; k++) {
            assertEquals(6000.0 / 130, vl[k], EPS);
        }
        assertTrue(Double.isNaN(vl[4]));
    }

    /**
     * Windows of very different lengths (issue 17): two 1 ms windows at 100 % and one 1 s window at
     * 10 %. Per window the mean is (100 + 100 + 10)/3 = 70 %; per unit of time it is
     * (1 + 1 + 100) ms / 1002 ms = 10.18 %, which is what /proc shows over the same second.
     */
    @Test
    void timeWeightedMeanAgainstWindowsOfVeryDifferentLengths() {
        long[] t = {0, 1 * MS, 2 * MS, 1002 * MS};
        long[] u = {0, 1 * MS, 2 * MS, 102 * MS};
        StepSeries s = rate(t, u, 10, 30);
        assertArrayEquals(new double[] {100, 100, 10}, s.values(), EPS);
        assertEquals(70, s.stats().mean(), EPS);
        CpuWindows.TimeWeighted w = CpuWindows.timeWeighted(t, u, 10, 30, PCT);
        assertEquals(100.0 * 102 / 1002, w.rate(), EPS);
        assertEquals(1002 * MS, w.spanNs());
        assertEquals(102 * MS, w.counterDelta());
        assertEquals(30, w.messages());
        assertEquals(102.0 * MS / 30, w.perMessage(), EPS); // 3.4 ms of CPU per message
        assertEquals(1 * MS, w.windowMinNs());
        assertEquals(1 * MS, w.windowMedianNs());
        assertEquals(1000 * MS, w.windowMaxNs());
    }

    @Test
    void timeWeightedSkipsAbsentEndsAndCountsOnlyTheCoveredMessages() {
        // every=10, count=25: 3 windows, slots at messages 0, 10, 20 and after 25. Slot 0 absent:
        // the span runs from slot 1 (message 10) to slot 3 (after message 25): 15 messages.
        long[] t = {A, 10 * MS, 20 * MS, 40 * MS};
        long[] u = {A, 0, 5 * MS, 15 * MS};
        CpuWindows.TimeWeighted w = CpuWindows.timeWeighted(t, u, 10, 25, PCT);
        assertEquals(100.0 * 15 / 30, w.rate(), EPS);
        assertEquals(15, w.messages());
        assertEquals(1.0 * MS, w.perMessage(), EPS);
        // one present slot, or a counter that went backwards: nothing to say
        assertTrue(Double.isNaN(CpuWindows.timeWeighted(new long[] {A, A, 5, A}, new long[] {A, A, 1, A}, 10, 25, PCT)
                .rate()));
        assertTrue(Double.isNaN(CpuWindows.timeWeighted(new long[] {0, 10, 20, 30}, new long[] {9, 8, 7, 6}, 10, 25,
                PCT).rate()));
    }

    /**
     * Issue 31: CPU per message over one stretch of messages. 25 messages sampled every 10 (slots before messages 0,
     * 10, 20 and after the last, 25), the counter at 0, 1,000, 4,000, 5,000 ns: messages 0-19 cost 4,000 / 20 = 200 ns
     * each; 10-25 (slots 10 to the end) 4,000 / 15 = 266.7; 5-15 holds only slot 10: NaN; an absent slot is skipped.
     */
    @Test
    void perMessageOverAStretchUsesTheSlotsInsideIt() {
        long[] t = {0, 1_000_000, 2_000_000, 2_500_000};
        long[] u = {0, 1_000, 4_000, 5_000};
        org.junit.jupiter.api.Assertions.assertEquals(200.0, CpuWindows.perMessageOver(t, u, 10, 25, 0, 20), 1e-9);
        org.junit.jupiter.api.Assertions.assertEquals(4_000.0 / 15, CpuWindows.perMessageOver(t, u, 10, 25, 10, 25),
                1e-9);
        org.junit.jupiter.api.Assertions.assertTrue(Double.isNaN(CpuWindows.perMessageOver(t, u, 10, 25, 5, 15)));
        long[] gap = {0, io.msgscope.analysis.Trace.ABSENT, 2_000_000, 2_500_000};
        org.junit.jupiter.api.Assertions.assertEquals(200.0, CpuWindows.perMessageOver(gap, u, 10, 25, 0, 20), 1e-9);
    }
}
