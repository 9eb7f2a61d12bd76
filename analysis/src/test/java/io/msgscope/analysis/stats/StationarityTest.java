package io.msgscope.analysis.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The change-point and split-halves checks on synthetic throughput samples. */
class StationarityTest {

    private static double[] noisy(Random rnd, int n, double level, double relSd) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = level * (1 + relSd * rnd.nextGaussian());
        }
        return v;
    }

    @Test
    void pettittStatisticByHand() {
        // ranks 1..10 in order: U_t = 2*(1+..+t) - 11t = t^2 - 10t, |U| largest at t = 5 (25);
        // p = 2 exp(-6*625/(1000+100)) = 0.06619
        double[] v = {1, 2, 3, 4, 5, 11, 12, 13, 14, 15};
        Stationarity s = Stationarity.of(v, 1);
        assertTrue(s.checked());
        assertEquals(5, s.changeIndex());
        // issue 27: for the effective n. Each side relative to its median (3, 13): −2 −1 0 1 2 −2 −1 0 1 2, ranks
        // 1.5 3.5 5.5 7.5 9.5 (twice), deviations from 5.5: −4 −2 0 2 4 (twice); Σd² = 80, Σ d_i·d_i+1 = 8 + 0 + 0 + 8
        // − 16 + 8 + 0 + 0 + 8 = 16; ρ = 0.2, n_eff = 10·0.8/1.2 = 6.667; p = 2 exp(−6·625·(6.667/10)/1100) = 0.2061
        assertEquals(10 * 0.8 / 1.2, s.pettittEffectiveN(), 1e-12);
        assertEquals(2 * Math.exp(-6 * 625.0 * (0.8 / 1.2) / 1100), s.pettittP(), 1e-12);
        assertEquals(2 * Math.exp(-6 * 625.0 / 1100), Stationarity.pettittP(25, 10, 1), 1e-12); // raw n: 0.06619
        assertEquals(3, s.medianBefore());
        assertEquals(13, s.medianAfter());
        assertFalse(s.changePoint(), "p = 0.066 is not below 0.01");
        // halves [1..5] and [11..15]: intervals [1,5] and [11,15] do not overlap, shift >= 5 %
        assertTrue(s.halvesDisagree());
        assertFalse(s.steady());
    }

    @Test
    void steadySamplesPass() {
        Random rnd = new Random(1);
        for (int run = 0; run < 20; run++) {
            SampleSummary s = SampleSummary.of(noisy(rnd, 100, 300_000, 0.3));
            assertTrue(s.stationarity().steady(), "run " + run + ": " + s.stationarity().warning("msg/s"));
            assertEquals("", s.stationarity().warning("msg/s"));
        }
    }

    /** The run: ~70 k msg/s for 47 samples, then ~320 k. */
    @Test
    void aStepChangeIsFoundWhereItHappened() {
        Random rnd = new Random(2);
        double[] a = noisy(rnd, 47, 70_000, 0.3);
        double[] b = noisy(rnd, 53, 320_000, 0.3);
        double[] v = new double[100];
        System.arraycopy(a, 0, v, 0, 47);
        System.arraycopy(b, 0, v, 47, 53);
        SampleSummary s = SampleSummary.of(v);
        Stationarity st = s.stationarity();
        assertTrue(st.changePoint());
        assertTrue(Math.abs(st.changeIndex() - 47) <= 2, "change at " + st.changeIndex());
        assertTrue(st.pettittP() < 1e-6, "p " + st.pettittP());
        assertTrue(st.halvesDisagree());
        assertFalse(st.steady());
        String w = st.warning("msg/s");
        assertTrue(w.startsWith("the samples are not steady: a change point from sample "), w);
        assertTrue(w.contains("halves disagree"), w);
        // the step also shows as strong autocorrelation, which widens the median's interval
        assertTrue(s.lag1() > 0.5, "lag-1 " + s.lag1());
        assertTrue(s.effectiveN() < 20, "effective n " + s.effectiveN());
    }

    /** The AMQP client measured cold: the first 5 % of the samples at a third of the rate. */
    @Test
    void aColdStartTooShortForPettittIsCaughtByTheFirstTenth() {
        Random rnd = new Random(5);
        double[] v = noisy(rnd, 400, 47_000, 0.3);
        for (int i = 0; i < 20; i++) {
            v[i] = 17_000 * (1 + 0.3 * rnd.nextGaussian());
        }
        Stationarity st = SampleSummary.of(v).stationarity();
        assertTrue(st.coldStart());
        assertFalse(st.halvesDisagree());
        assertFalse(st.steady());
        assertTrue(st.warning("msg/s").contains("cold start"), st.warning("msg/s"));
    }

    /** A statistically clear but tiny drift (1 %) is not worth a warning. */
    @Test
    void aTinyShiftIsNotFlagged() {
        Random rnd = new Random(3);
        double[] v = new double[4000];
        for (int i = 0; i < v.length; i++) {
            v[i] = (i < 2000 ? 100_000 : 101_000) * (1 + 0.01 * rnd.nextGaussian());
        }
        Stationarity st = Stationarity.of(v, 1);
        assertTrue(st.pettittP() < 1e-6);
        assertFalse(st.changePoint());
        assertFalse(st.halvesDisagree());
        assertFalse(st.coldStart());
        assertTrue(st.steady());
    }

    @Test
    void tooFewSamplesAreNotChecked() {
        Stationarity st = Stationarity.of(new double[] {1, 2, 3, 100, 200}, 1);
        assertFalse(st.checked());
        assertTrue(st.steady());
    }

    @Test
    void summaryFigures() {
        SampleSummary s = SampleSummary.of(new double[] {4, 1, 3, 2});
        assertEquals(2, s.median()); // lower median (M6)
        assertEquals(2.5, s.mean());
        assertEquals(Math.sqrt(5.0 / 3), s.stddev(), 1e-12);
        assertEquals(1, s.medianInterval().lower());
        assertEquals(4, s.medianInterval().upper());
        // ranks 4,1,3,2: deviations 1.5,-1.5,0.5,-0.5; lag-1 (-2.25-0.75-0.25)/5 = -0.65 -> not widened
        assertEquals(-0.65, s.lag1(), 1e-12);
        assertEquals(4, s.effectiveN());
        assertEquals(0, SampleSummary.of(new double[0]).n());
    }
}
