package io.msgscope.core.clock;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OffsetFitTest {
    private static final long MS = 1_000_000L;

    /** Probes every 250 ms for {@code n}: offset = base + drift·t (+ step after stepAt), ±noise, RTT 100 µs. */
    private static List<OffsetFit.Sample> series(int n, double baseNs, double ppm, long stepAtNs, double stepNs,
                                                 double noiseNs, long seed) {
        Random rnd = new Random(seed);
        List<OffsetFit.Sample> s = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long t = 1_000 * MS + i * 250 * MS;
            double off = baseNs + ppm * 1e-6 * (t - 1_000 * MS) + (t >= stepAtNs ? stepNs : 0)
                    + (rnd.nextDouble() * 2 - 1) * noiseNs;
            s.add(new OffsetFit.Sample(t, Math.round(off), 100_000));
        }
        return s;
    }

    @Test
    void exactLineGivesItsOffsetAndDriftAndNoStep() {
        // offset 3.7 ms at t = 1 s, +20 ppm: at t = 11 s it is 3.7 ms + 10 s × 20 µs/s = 3.9 ms
        OffsetFit f = OffsetFit.of(series(41, 3_700_000, 20, Long.MAX_VALUE, 0, 0, 1), 100_000);
        assertEquals(20.0, f.driftPpm(), 1e-6);
        assertEquals(3_900_000, f.offsetAt(11_000 * MS), 1);
        assertEquals(0, f.steps().size());
        assertEquals(0, f.residualNs(), 1);
        assertEquals(50_000, f.errorAt(5_000 * MS), 1); // half the best round trip, no residual
    }

    @Test
    void stepIsFoundWithItsSizeAndTimeAndBothSidesKeepTheDrift() {
        // 2 ms step between the probes at 6.0 s and 6.25 s, noise ±20 µs
        List<OffsetFit.Sample> s = series(41, 3_700_000, 20, 6_100 * MS, 2_000_000, 20_000, 2);
        OffsetFit f = OffsetFit.of(s, 100_000);
        assertEquals(1, f.steps().size());
        OffsetFit.Step step = f.steps().get(0);
        assertEquals(6_125 * MS, step.atNs());
        assertEquals(2_000_000, step.sizeNs(), 40_000);
        assertEquals(2, f.segments().size());
        assertEquals(20, f.driftPpm(), 15); // 20 samples a side, ±20 µs over 5 s
        assertEquals(3_700_000 + 20 * 4_000, f.offsetAt(5_000 * MS), 40_000);   // before: 3.7 ms + 4 s × 20 µs/s
        assertEquals(5_700_000 + 20 * 8_000, f.offsetAt(9_000 * MS), 40_000);   // after: + 2 ms
        assertTrue(f.residualNs() > 0 && f.residualNs() < 60_000, "residual " + f.residualNs());
    }

    @Test
    void delayedProbesAreOutliersNotSteps() {
        List<OffsetFit.Sample> s = new ArrayList<>(series(41, 1_000_000, -5, Long.MAX_VALUE, 0, 5_000, 3));
        // every seventh probe delayed one way by 3 ms: its offset is off by 1.5 ms and its round trip long
        for (int i = 3; i < s.size(); i += 7) {
            OffsetFit.Sample x = s.get(i);
            s.set(i, new OffsetFit.Sample(x.tNs(), x.offsetNs() + 1_500_000, 3_100_000));
        }
        OffsetFit f = OffsetFit.of(s, 100_000);
        assertEquals(0, f.steps().size());
        assertEquals(-5, f.driftPpm(), 3);
        assertEquals(1_000_000 - 5 * 5_000, f.offsetAt(6_000 * MS), 6_000);
        assertEquals(100_000, f.bestRttNs());
    }

    @Test
    void twoStepsMakeThreeSegments() {
        List<OffsetFit.Sample> s = series(60, 0, 0, 5_000 * MS, 1_000_000, 10_000, 4);
        List<OffsetFit.Sample> t = new ArrayList<>();
        for (OffsetFit.Sample x : s) {
            t.add(x.tNs() >= 12_000 * MS ? new OffsetFit.Sample(x.tNs(), x.offsetNs() - 3_000_000, x.rttNs()) : x);
        }
        OffsetFit f = OffsetFit.of(t, 100_000);
        assertEquals(2, f.steps().size());
        assertEquals(1_000_000, f.steps().get(0).sizeNs(), 20_000);
        assertEquals(-3_000_000, f.steps().get(1).sizeNs(), 20_000);
        assertEquals(-2_000_000, f.offsetAt(14_000 * MS), 20_000);
    }

    @Test
    void interpolationPicksTheSegmentByTheStepTime() {
        List<OffsetFit.Sample> s = series(21, 0, 0, 3_600 * MS, 2_000_000, 0, 5);
        OffsetFit f = OffsetFit.of(s, 100_000);
        // probes at 3.5 s and 3.75 s either side: the step's time is their midpoint, 3.625 s
        assertEquals(3_625 * MS, f.steps().get(0).atNs());
        assertEquals(0, f.offsetAt(3_624 * MS), 1);
        assertEquals(2_000_000, f.offsetAt(3_625 * MS), 1);
        assertEquals(0, f.offsetAt(0), 1); // before the first probe: the first segment, extended
    }

    @Test
    void oneSampleIsAConstantAndNoneIsAnError() {
        OffsetFit f = OffsetFit.of(List.of(new OffsetFit.Sample(5, 700, 40)), 100_000);
        assertEquals(700, f.offsetAt(1_000_000_000L), 0);
        assertEquals(20, f.errorAt(0), 0);
        assertThrows(IllegalArgumentException.class, () -> OffsetFit.of(List.of(), 1));
    }

    /**
     * A level that wanders ±300 µs over 8 s (a loaded box's delays coming and going) under ±20 µs of noise: window pairs
     * three probes apart differ by up to ~170 µs while neighbours differ by ~60 µs at most, so the old threshold
     * (4 × the neighbours' noise) found steps in it; the wander's own spread keeps them out, and a 2 ms step in the same
     * series is still found.
     */
    @Test
    void aWanderingLevelIsNoStepButAStepInItIs() {
        for (double step : new double[] {0, -2_000_000}) {
            List<OffsetFit.Sample> s = new ArrayList<>();
            Random rnd = new Random(7);
            for (int i = 0; i < 240; i++) { // 60 s of probes every 250 ms
                long t = 1_000 * MS + i * 250 * MS;
                double off = -3_700_000 + 300_000 * Math.sin(2 * Math.PI * i / 32.0) + (i >= 120 ? step : 0)
                        + (rnd.nextDouble() * 2 - 1) * 20_000;
                s.add(new OffsetFit.Sample(t, Math.round(off), 100_000));
            }
            double[] r = new double[s.size()];
            for (int i = 0; i < r.length; i++) {
                r[i] = s.get(i).offsetNs();
            }
            assertTrue(4 * OffsetFit.noise(r) < 300_000, "the neighbours' noise alone would let the wander through: "
                    + OffsetFit.noise(r));
            OffsetFit f = OffsetFit.of(s, 100_000);
            assertEquals(step == 0 ? 0 : 1, f.steps().size(), () -> "steps " + f.steps());
            if (step != 0) {
                assertEquals(-2_000_000, f.steps().get(0).sizeNs(), 400_000);
            }
        }
    }

    @Test
    void wanderByHand() {
        // windows of 3: jumps med(r[i..i+2]) − med(r[i-3..i-1]) for i = 3..6 of 0 0 0 1 2 3 4 4 4 are 2 − 0, 3 − 0,
        // 4 − 1, 4 − 2 = 2, 3, 3, 2: median 2.5, every deviation 0.5, so 1.4826 × 0.5
        assertEquals(1.4826 * 0.5, OffsetFit.wander(new double[] {0, 0, 0, 1, 2, 3, 4, 4, 4}), 1e-9);
        // one outlier moves no window's median: every jump 0
        assertEquals(0, OffsetFit.wander(new double[] {0, 0, 0, 3, 0, 0, 0, 0}), 0);
        assertEquals(0, OffsetFit.wander(new double[] {1, 2, 3}), 0); // too few for two windows
    }

    @Test
    void medianAndNoiseByHand() {
        assertEquals(2.5, OffsetFit.median(new double[]{4, 1, 3, 2}), 0);
        // differences 2, -2, 2, -2: median 0, absolute deviations all 2 → 1.4826 × 2 / √2
        assertEquals(1.4826 * 2 / Math.sqrt(2), OffsetFit.noise(new double[]{0, 2, 0, 2, 0}), 1e-9);
    }

    @Test
    void minRttFilterKeepsTheFastestProbeOfEachInterval() {
        List<OffsetFit.Sample> s = List.of(new OffsetFit.Sample(0, 10, 900), new OffsetFit.Sample(250, 20, 300),
                new OffsetFit.Sample(499, 30, 400), new OffsetFit.Sample(500, 40, 800), new OffsetFit.Sample(1_200, 50, 100),
                new OffsetFit.Sample(750, 60, 700));
        // intervals of 500 from the first sample: [0, 500) → the RTT-300 probe, [500, 1000) → 700, [1000, 1500) → 100
        assertEquals(List.of(s.get(1), s.get(5), s.get(4)), OffsetFit.minRttPerInterval(s, 500));
    }
}
