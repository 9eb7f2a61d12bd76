package io.msgscope.analysis.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.analysis.Trace;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Verdicts on synthetic samples (seeded RNG), in ns like the per-message latency. */
class HumpinessTest {

    /** Groups of normal values: counts[g] values around meansUs[g] ± sdsUs[g], in ns. */
    static long[] mixture(long seed, int[] counts, double[] meansUs, double[] sdsUs) {
        Random random = new Random(seed);
        int n = 0;
        for (int c : counts) {
            n += c;
        }
        long[] ns = new long[n];
        int k = 0;
        for (int g = 0; g < counts.length; g++) {
            for (int i = 0; i < counts[g]; i++) {
                ns[k++] = Math.round(1000 * (meansUs[g] + sdsUs[g] * random.nextGaussian()));
            }
        }
        // shuffle: the position in the run must not matter
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long t = ns[i];
            ns[i] = ns[j];
            ns[j] = t;
        }
        return ns;
    }

    static long[] seedExample(long seed) {
        return mixture(seed, new int[] {9765, 160, 75}, new double[] {150, 340, 250}, new double[] {10, 12, 8});
    }

    private static void assertNear(double expected, double actual, double relative, String what) {
        assertTrue(Math.abs(actual - expected) <= relative * expected,
                what + ": expected " + expected + " ± " + (100 * relative) + " %, was " + actual);
    }

    @Test
    void normalIsUnimodal() {
        long[] ns = mixture(1, new int[] {10_000}, new double[] {150}, new double[] {10});
        HumpinessResult r = Humpiness.ofNanos(ns, ns.length);
        assertEquals(1, r.modeCount(), r.verdict());
        assertNear(150_000, r.modes().get(0).position(), 0.03, "mode");
        assertEquals(1.0, r.modes().get(0).share());
        assertTrue(r.verdict().startsWith("unimodal: 1 mode at 1"), r.verdict());
        assertTrue(r.bimodalityCoefficient() < HumpinessResult.BC_THRESHOLD, "BC " + r.bimodalityCoefficient());
        assertFalse(r.multimodal());
        assertEquals(10_000, r.n());
    }

    @Test
    void lognormalTailIsUnimodal() {
        for (long seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            long[] ns = new long[10_000];
            for (int i = 0; i < ns.length; i++) {
                ns[i] = Math.round(150_000 * Math.exp(0.8 * random.nextGaussian()));
            }
            HumpinessResult r = Humpiness.ofNanos(ns, ns.length);
            assertEquals(1, r.modeCount(), "seed " + seed + ": " + r.verdict());
            assertTrue(r.minorBumps().isEmpty(), "seed " + seed + ": " + r.verdict());
            assertNear(150_000, r.modes().get(0).position(), 0.2, "mode (log-scale peak = median)");
            assertTrue(r.bimodalityCoefficient() < HumpinessResult.BC_THRESHOLD, "BC " + r.bimodalityCoefficient());
        }
    }

    @Test
    void fiftyFiftyIsBimodal() {
        long[] ns = mixture(2, new int[] {5000, 5000}, new double[] {100, 300}, new double[] {10, 30});
        HumpinessResult r = Humpiness.ofNanos(ns, ns.length);
        assertEquals(2, r.modeCount(), r.verdict());
        assertNear(100_000, r.modes().get(0).position(), 0.10, "first mode");
        assertNear(300_000, r.modes().get(1).position(), 0.10, "second mode");
        assertNear(0.5, r.modes().get(0).share(), 0.02, "first share");
        assertNear(0.5, r.modes().get(1).share(), 0.02, "second share");
        assertTrue(r.verdict().startsWith("multimodal: 2 modes at "), r.verdict());
        assertTrue(r.bimodalityCoefficient() > HumpinessResult.BC_THRESHOLD, "BC " + r.bimodalityCoefficient());
        assertEquals(r.modes().get(0).position(), r.positions().get(0));
    }

    /**
     * Seed 001: most messages near 150 µs, a little hump of 160 near 340 µs, 75 near 250 µs, of
     * 10,000. The hump is a mode with 1.6 % of the values; the 75 are a minor bump (0.75 % &lt; 1 %).
     */
    @Test
    void seedExampleHasTheHumpAt340() {
        for (long seed = 1; seed <= 20; seed++) {
            long[] ns = seedExample(seed);
            HumpinessResult r = Humpiness.ofNanos(ns, ns.length);
            assertEquals(2, r.modeCount(), "seed " + seed + ": " + r.verdict());
            HumpinessResult.Mode main = r.modes().get(0);
            HumpinessResult.Mode hump = r.modes().get(1);
            assertNear(150_000, main.position(), 0.05, "main mode");
            assertNear(340_000, hump.position(), 0.05, "hump");
            assertNear(0.016, hump.share(), 0.1, "hump share");
            assertNear(0.9765, main.share(), 0.01, "main share");
            assertTrue(hump.height() < main.height() / 20, "the hump is much lower");
            assertEquals(1, r.minorBumps().size(), r.verdict());
            assertNear(250_000, r.minorBumps().get(0).position(), 0.05, "minor bump");
            assertTrue(r.bimodalityCoefficient() > HumpinessResult.BC_THRESHOLD, "BC " + r.bimodalityCoefficient());
        }
        HumpinessResult r = Humpiness.ofNanos(seedExample(1), 10_000);
        assertEquals("multimodal: 2 modes at 150 µs (97.7 %) and 346 µs (1.6 %); "
                + "1 minor bump (under 1 % of the values) at 252 µs", r.verdict());
    }

    /** With the 75 spread out (± 25 µs) they merge into the hump's basin: still 2 modes. */
    @Test
    void seedExampleWithDiffuseMiddleStillHasTwoModes() {
        long[] ns = mixture(3, new int[] {9765, 160, 75}, new double[] {150, 340, 250}, new double[] {10, 12, 25});
        HumpinessResult r = Humpiness.ofNanos(ns, ns.length);
        assertEquals(2, r.modeCount(), r.verdict());
        assertNear(340_000, r.modes().get(1).position(), 0.05, "hump");
        double share = r.modes().get(1).share();
        assertTrue(share >= 0.016 && share <= 0.0235 + 1e-9, "hump share " + share);
    }

    @Test
    void warmUpTailIsNotAHump() {
        Random random = new Random(3);
        long[] ns = new long[10_000];
        for (int i = 0; i < ns.length; i++) {
            double us = 150 + 10 * random.nextGaussian();
            if (i < 500) {
                us += 1350 * Math.exp(-i / 100.0) * random.nextDouble();
            }
            ns[i] = Math.round(us * 1000);
        }
        HumpinessResult r = Humpiness.ofNanos(ns, ns.length);
        assertEquals(1, r.modeCount(), r.verdict());
    }

    @Test
    void threeModes() {
        long[] ns = mixture(4, new int[] {4000, 3500, 2500}, new double[] {100, 250, 600}, new double[] {8, 20, 50});
        HumpinessResult r = Humpiness.ofNanos(ns, ns.length);
        assertEquals(3, r.modeCount(), r.verdict());
        double[] expected = {100_000, 250_000, 600_000};
        double[] shares = {0.40, 0.35, 0.25};
        for (int k = 0; k < 3; k++) {
            assertNear(expected[k], r.modes().get(k).position(), 0.05, "mode " + k);
            assertNear(shares[k], r.modes().get(k).share(), 0.02, "share " + k);
        }
        assertTrue(r.verdict().matches("multimodal: 3 modes at \\S+ µs \\(40 %\\), \\S+ µs \\(35 %\\) and \\S+ µs \\(25 %\\)"),
                r.verdict());
    }

    @Test
    void constantDataIsOneModeWithoutDividingByZero() {
        long[] ns = new long[1000];
        java.util.Arrays.fill(ns, 150_000);
        HumpinessResult r = Humpiness.ofNanos(ns, ns.length);
        assertEquals(1, r.modeCount());
        assertEquals(150_000, r.modes().get(0).position());
        assertEquals(1.0, r.modes().get(0).share());
        assertTrue(Double.isNaN(r.bimodalityCoefficient()));
        assertEquals("unimodal: all 1,000 values equal 150 µs", r.verdict());
        double[] zeros = new double[50];
        HumpinessResult z = Humpiness.of(zeros, zeros.length, "%");
        assertEquals(1, z.modeCount());
        assertEquals("unimodal: all 50 values equal 0 %", z.verdict());
    }

    @Test
    void tooFewValues() {
        long[] ns = {100, 200, 300, Trace.ABSENT, 400, 500, 600, 700, 800, 900, Trace.ABSENT};
        HumpinessResult r = Humpiness.ofNanos(ns, ns.length);
        assertEquals(9, r.n());
        assertEquals(0, r.modeCount());
        assertTrue(r.modes().isEmpty());
        assertEquals("too few values: n = 9, at least 10 needed", r.verdict());
        assertEquals("too few values: n = 0, at least 10 needed", Humpiness.ofNanos(new long[0], 0).verdict());
    }

    @Test
    void absentValuesAreSkipped() {
        long[] ns = seedExample(5);
        long[] withGaps = new long[ns.length * 2];
        java.util.Arrays.fill(withGaps, Trace.ABSENT);
        for (int i = 0; i < ns.length; i++) {
            withGaps[2 * i] = ns[i];
        }
        HumpinessResult gaps = Humpiness.ofNanos(withGaps, withGaps.length);
        HumpinessResult plain = Humpiness.ofNanos(ns, ns.length);
        assertEquals(plain.n(), gaps.n());
        assertEquals(plain.modes(), gaps.modes());
    }

    @Test
    void clusterOfZerosIsAModeAtZero() {
        Random random = new Random(6);
        long[] ns = new long[1000];
        for (int i = 0; i < ns.length; i++) {
            ns[i] = i < 30 ? 0 : Math.round(1000 * (150 + 10 * random.nextGaussian()));
        }
        HumpinessResult r = Humpiness.ofNanos(ns, ns.length);
        assertEquals(2, r.modeCount(), r.verdict());
        assertEquals(0.0, r.modes().get(0).position());
        assertNear(0.03, r.modes().get(0).share(), 0.01, "share of zeros");
    }

    @Test
    void quantisedValuesDoNotLookLikeAComb() {
        Random random = new Random(8);
        long[] ns = new long[1_000_000];
        for (int i = 0; i < ns.length; i++) {
            ns[i] = 1000 * Math.round(150 + 10 * random.nextGaussian()); // a 1 µs clock
        }
        assertEquals(1, Humpiness.ofNanos(ns, ns.length).modeCount());
        double[] us = new double[ns.length];
        for (int i = 0; i < ns.length; i++) {
            us[i] = ns[i] / 1000.0;
        }
        // doubles carry no granularity: it is given explicitly
        HumpinessResult r = Humpiness.of(us, us.length, "µs", Humpiness.Options.defaults().withResolution(1.0));
        assertEquals(1, r.modeCount(), r.verdict());
    }

    @Test
    void linearScaleOnSymmetricData() {
        Random random = new Random(9);
        double[] values = new double[20_000];
        for (int i = 0; i < values.length; i++) {
            values[i] = (i % 2 == 0 ? -5 : 5) + random.nextGaussian();
        }
        HumpinessResult r = Humpiness.of(values, values.length, "", Humpiness.Options.defaults().withLogScale(false));
        assertEquals(2, r.modeCount(), r.verdict());
        assertEquals(-5, r.modes().get(0).position(), 0.3);
        assertEquals(5, r.modes().get(1).position(), 0.3);
        assertFalse(r.logScale());
    }

    @Test
    void bimodalityCoefficientByHand() {
        // values 0,0,1,1 around shift 0: m2 = 1/4, m3 = 0, m4 = 1/16 -> g1 = 0, g2 = -2;
        // G2 = ((n+1)g2 + 6)(n-1)/((n-2)(n-3)) = (-10+6)*3/2 = -6; b = 1/(-6 + 3*9/2) = 1/7.5
        double b = FineHistogram.bimodalityCoefficient(4, 2, 2, 2, 2);
        assertEquals(1 / 7.5, b, 1e-12);
        assertTrue(Double.isNaN(FineHistogram.bimodalityCoefficient(3, 1, 1, 1, 1)));
    }

    @Test
    void tenMillionValuesWellUnderASecond() {
        Random random = new Random(10);
        long[] ns = new long[10_000_000];
        for (int i = 0; i < ns.length; i++) {
            ns[i] = Math.round(150_000 * Math.exp(0.3 * random.nextGaussian()));
        }
        Humpiness.ofNanos(ns, 1_000_000); // warm up
        long t0 = System.nanoTime();
        HumpinessResult million = Humpiness.ofNanos(ns, 1_000_000);
        long t1 = System.nanoTime();
        HumpinessResult all = Humpiness.ofNanos(ns, ns.length);
        long t2 = System.nanoTime();
        System.out.printf("Humpiness: 1,000,000 values in %.1f ms, 10,000,000 in %.1f ms%n",
                (t1 - t0) / 1e6, (t2 - t1) / 1e6);
        assertEquals(1, million.modeCount(), million.verdict());
        assertEquals(1, all.modeCount(), all.verdict());
        assertTrue(t2 - t1 < 3_000_000_000L, "10M values took " + (t2 - t1) / 1e6 + " ms");
    }
}
