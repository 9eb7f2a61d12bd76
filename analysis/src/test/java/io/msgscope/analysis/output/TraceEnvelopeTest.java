package io.msgscope.analysis.output;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.analysis.HandTraces;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.cpu.StepSeries;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * trace-envelope.dat against buckets computed by hand from the 10-message hand trace (HandTraces):
 * 3 buckets over 10 messages hold messages 0-2, 3-5 and 6-9; latency I−O in µs; ST/RT over M = 1.
 */
class TraceEnvelopeTest {

    private static List<String> rows(Trace t, List<StepSeries> steps, int buckets) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TraceEnvelope.write(out, t, 1, steps, buckets);
        return out.toString(StandardCharsets.US_ASCII).lines().filter(l -> !l.startsWith("#")).toList();
    }

    @Test
    void bucketsOfTheHandTraceHoldMinLowerMedianAndMax() throws IOException {
        // latency µs: .5 .6 .5 | .7 .6 .8 | .7 .9 .8 1.1
        // ST (send gaps 100/200 ns): - 1e7 5e6 | 1e7 5e6 1e7 | 5e6 1e7 5e6 1e7
        // RT (receive gaps):         - 5e6 1e7 | 3.33e6 1e7 3.33e6 | 1e7 3.33e6 1e7 2.5e6
        assertEquals(List.of(
                "0 0 2 1 0.500 0.500 0.600 5000000.0 5000000.0 10000000.0 5000000.0 5000000.0 10000000.0",
                "1 3 5 4 0.600 0.700 0.800 5000000.0 10000000.0 10000000.0 3333333.3 3333333.3 10000000.0",
                "2 6 9 7 0.700 0.800 1.100 5000000.0 5000000.0 10000000.0 2500000.0 3333333.3 10000000.0"),
                rows(HandTraces.plain(), List.of(), 3));
    }

    @Test
    void lostMessagesAreSkippedAndAnEmptyBucketIsNaN() throws IOException {
        // message 4 lost, message 0 received before it was sent (latency clamped at 0, Q2)
        List<String> r = rows(HandTraces.withLossAndNegative(), List.of(), 3);
        assertTrue(r.get(0).startsWith("0 0 2 1 0.000 0.500 0.600 "), r.get(0));
        assertTrue(r.get(0).endsWith(" 1250000.0 1250000.0 10000000.0"), r.get(0));
        assertTrue(r.get(1).startsWith("1 3 5 4 0.700 0.700 0.800 "), r.get(1));
        assertTrue(r.get(1).endsWith(" 3333333.3 3333333.3 3333333.3"), r.get(1));

        long[] recv = HandTraces.RECV.clone();
        for (int i = 3; i < 6; i++) {
            recv[i] = Trace.ABSENT;
        }
        List<String> gap = rows(new Trace(10, HandTraces.SEND.clone(), null, recv), List.of(), 3);
        assertTrue(gap.get(1).startsWith("1 3 5 4 NaN NaN NaN 5000000.0 10000000.0 10000000.0 NaN NaN NaN"),
                gap.get(1));
    }

    @Test
    void stepColumnsCarryTheBucketMedianAndRateModeAddsTheCorrectedLatency() throws IOException {
        StepSeries cpu = new StepSeries("cpu_sender_pct", 5, 10, new double[] {10, 20});
        List<String> r = rows(HandTraces.rateMode(), List.of(cpu), 3);
        // corrected latency I − intended: 500 600 600 | 800 800 1000 | 1000 1200 1200 1500 ns
        assertTrue(r.get(0).endsWith(" 0.500 0.600 0.600 10.00"), r.get(0));
        assertTrue(r.get(1).endsWith(" 0.800 0.800 1.000 10.00"), r.get(1));
        assertTrue(r.get(2).endsWith(" 1.000 1.200 1.500 20.00"), r.get(2));
        assertEquals(17, TraceEnvelope.columnOf(HandTraces.rateMode(), List.of(cpu), "cpu_sender_pct"));
        assertEquals(17, r.get(0).split(" ").length);
    }

    @Test
    void moreBucketsThanMessagesGiveOneMessagePerBucketAndLocaleNeverMatters() throws IOException {
        Locale saved = Locale.getDefault();
        try {
            Locale.setDefault(Locale.GERMANY);
            List<String> r = rows(HandTraces.plain(), List.of(), 2000);
            assertEquals(10, r.size());
            assertEquals("9 9 9 9 1.100 1.100 1.100 10000000.0 10000000.0 10000000.0 2500000.0 2500000.0 2500000.0",
                    r.get(9));
        } finally {
            Locale.setDefault(saved);
        }
    }

    @Test
    void bucketBoundariesCoverEveryMessageOnce() {
        long n = 1_000_003;
        int b = TraceEnvelope.bucketCount(n, 2000);
        assertEquals(0, TraceEnvelope.firstOf(0, b, n));
        assertEquals(n, TraceEnvelope.firstOf(b, b, n));
        for (int k = 0; k < b; k++) {
            long size = TraceEnvelope.firstOf(k + 1, b, n) - TraceEnvelope.firstOf(k, b, n);
            assertTrue(size == 500 || size == 501, "bucket " + k + " has " + size);
        }
    }

    @Test
    void quickselectFindsTheLowerMedianLikeASort() {
        Random rnd = new Random(7);
        double[] out = new double[3];
        for (int trial = 0; trial < 500; trial++) {
            int m = 1 + rnd.nextInt(60);
            double[] xs = new double[m];
            for (int i = 0; i < m; i++) {
                xs[i] = rnd.nextInt(10); // many ties
            }
            double[] sorted = xs.clone();
            Arrays.sort(sorted);
            TraceEnvelope.minMedianMax(xs, m, out);
            assertArrayEquals(new double[] {sorted[0], sorted[(m - 1) / 2], sorted[m - 1]}, out, "m=" + m);
        }
    }
}
