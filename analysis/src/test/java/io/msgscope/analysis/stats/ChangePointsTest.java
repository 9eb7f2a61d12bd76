package io.msgscope.analysis.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** E-divisive change points (issue 34 item 5) against hand-computed divergences and planted shifts. */
class ChangePointsTest {

    @Test
    void theStatisticOfASplitAsWorkedByHand() {
        double[] x = {1, 1, 1, 5, 5, 5};
        double[] ranks = Ranks.of(x);
        assertEquals(List.of(2.0, 2.0, 2.0, 5.0, 5.0, 5.0), java.util.Arrays.stream(ranks).boxed().toList());
        // two ties of 3: (27 - 3) * 2 / (6 * 5) = 1.6
        double ties = ChangePoints.tieTerm(x);
        assertEquals(1.6, ties, 1e-12);
        // t = 3: R = 6, U = 6 - 6 = 0, t*m/2 = 4.5; variance 3*3/12 * (7 - 1.6) = 4.05; z = 4.5 / sqrt(4.05) = sqrt(5)
        assertEquals(Math.sqrt(5), ChangePoints.z(6, 6, 3, ties), 1e-12);
        // t = 2: R = 4, U = 4 - 3 = 1, t*m/2 = 4; variance 2*4/12 * 5.4 = 3.6; z = 3 / sqrt(3.6)
        assertEquals(3 / Math.sqrt(3.6), ChangePoints.z(4, 6, 2, ties), 1e-12);
        // all equal: no spread, no statistic
        assertTrue(Double.isNaN(ChangePoints.z(7, 6, 2, ChangePoints.tieTerm(new double[]{3, 3, 3, 3, 3, 3}))));
    }

    @Test
    void aStepIsFoundWhereItIsWithTheMediansEitherSide() {
        double[] x = new double[30];
        for (int i = 0; i < x.length; i++) {
            x[i] = (i < 18 ? 100 : 130) + (i % 3) - 1; // 99, 100, 101 repeating, then 129, 130, 131
        }
        List<ChangePoints.ChangePoint> cps = ChangePoints.find(x);
        assertEquals(1, cps.size(), cps::toString);
        ChangePoints.ChangePoint cp = cps.get(0);
        assertEquals(18, cp.index());
        assertEquals(100, cp.medianBefore());
        assertEquals(130, cp.medianAfter());
        assertEquals(0.3, cp.relativeChange(), 1e-12);
        // none of 499 shuffles reaches a clean step: p is the smallest the test can give
        assertEquals(1.0 / 500, cp.p(), 1e-12);
    }

    @Test
    void twoStepsAreBothFoundAndAFlatSeriesHasNone() {
        double[] x = new double[45];
        for (int i = 0; i < x.length; i++) {
            x[i] = (i < 15 ? 10 : i < 30 ? 20 : 12) + 0.1 * (i % 4);
        }
        List<ChangePoints.ChangePoint> cps = ChangePoints.find(x);
        assertEquals(List.of(15, 30), cps.stream().map(ChangePoints.ChangePoint::index).toList(), cps::toString);
        assertEquals(0, ChangePoints.find(new double[40]).size(), "forty zeros: no split can be significant");
        assertEquals(0, ChangePoints.find(new double[]{1, 2, 3, 100, 200, 300, 400, 500, 600}).size(),
                "under 2 x 5 values nothing is tested");
    }

    @Test
    void badInputIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ChangePoints.find(new double[]{1, Double.NaN}));
        assertThrows(IllegalArgumentException.class, () -> ChangePoints.find(new double[]{1, 2}, 0, 10, 1));
        assertThrows(IllegalArgumentException.class, () -> ChangePoints.find(new double[]{1, 2}, 0.05, 0, 1));
    }

    /** 200 runs, multiplicative noise of spread {@code noise}, a shift of {@code shift} planted at run 120. */
    static double[] planted(long seed, double noise, double shift) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] x = new double[200];
        for (int i = 0; i < x.length; i++) {
            x[i] = 1000 * (i >= 120 ? 1 + shift : 1) * Math.exp(noise * gaussian(r));
        }
        return x;
    }

    private static double gaussian(SplittableRandom r) {
        double u = r.nextDouble();
        double v = r.nextDouble();
        return Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * v);
    }

    /** How often a planted shift is found within 5 runs of 120, over {@code seeds} series. */
    private static int foundNear120(int seeds, double noise, double shift) {
        int found = 0;
        for (long seed = 1; seed <= seeds; seed++) {
            if (ChangePoints.find(planted(seed, noise, shift)).stream().anyMatch(c -> Math.abs(c.index() - 120) <= 5)) {
                found++;
            }
        }
        return found;
    }

    @Test
    void issue34sTargetsOnPlantedSeries() {
        // issue 34: a 10 % shift at run 120 of 200 under run-to-run noise like this box's (15-40 %) is found at
        // 120 +- 5, and with no shift none is reported. Noise here: lognormal, sigma 0.15 (the low end). A 10 % shift
        // is then 0.64 sigma: even an oracle's estimate of where it lies misses by more than 5 runs now and then, so
        // the rates are measured and bounded, not promised to be 100 %
        int seeds = 100;
        int tenUnderFifteen = foundNear120(seeds, 0.15, 0.10);
        int twentyUnderFifteen = foundNear120(seeds, 0.15, 0.20);
        int tenUnderFive = foundNear120(seeds, 0.05, 0.10);
        int falseAlarms = 0;
        for (long seed = 1; seed <= 200; seed++) {
            falseAlarms += ChangePoints.find(planted(10_000 + seed, 0.15, 0)).isEmpty() ? 0 : 1;
        }
        System.out.println("change points over " + seeds + " planted series each: a 10 % shift under 15 % noise found at "
                + "120 +- 5 in " + tenUnderFifteen + ", a 20 % shift under 15 % noise in " + twentyUnderFifteen
                + ", a 10 % shift under 5 % noise in " + tenUnderFive + "; without a shift, " + falseAlarms
                + " of 200 series had a change point (alpha " + ChangePoints.DEFAULT_ALPHA + ")");
        assertTrue(tenUnderFifteen >= 55, tenUnderFifteen + " of " + seeds);
        assertTrue(twentyUnderFifteen >= 90, twentyUnderFifteen + " of " + seeds);
        assertTrue(tenUnderFive >= 95, tenUnderFive + " of " + seeds);
        // at alpha 0.01, 2 of 200 expected; 8 or more has a chance under 0.001 if the test holds its level
        assertTrue(falseAlarms < 8, falseAlarms + " false alarms in 200");
    }
}
