package io.msgscope.analysis.stats;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The saturation curve fitted to throughput against F (issue 17's knee), checked against curves built by hand. */
class SaturationFitTest {
    private static final double[] F = {1, 3, 10, 30, 100, 300, 1000, 3000, 10000};

    private static double[] curve(double p, double f0, double k) {
        double[] x = new double[F.length];
        for (int i = 0; i < F.length; i++) {
            x[i] = p * F[i] / Math.pow(Math.pow(F[i], k) + Math.pow(f0, k), 1 / k);
        }
        return x;
    }

    private static double[] ones() {
        double[] w = new double[F.length];
        java.util.Arrays.fill(w, 1);
        return w;
    }

    @Test
    void anExactCurveIsRecovered() {
        // k = 4 lies on the grid (1 * 16^(24/48) = 4); F0 = 50 to within the 0.2 % grid step
        SaturationFit fit = SaturationFit.fit(F, curve(300_000, 50, 4), ones());
        assertEquals(4, fit.sharpness(), 1e-9);
        assertEquals(50, fit.crossover(), 50 * 0.003);
        assertEquals(300_000, fit.plateau(), 300_000 * 0.003);
        assertTrue(fit.typicalErrorPercent() < 0.2, fit.describe());
        assertEquals(F.length, fit.points());
    }

    @Test
    void theKneeIsWhereTheCurveReachesItsShareOfThePlateau() {
        SaturationFit fit = new SaturationFit(1000, 50, 4, 0, 5);
        // by hand: F0 * 0.9 / (1 - 0.9^4)^(1/4) = 50 * 0.9 / 0.3439^0.25 = 50 * 0.9 / 0.765782 = 58.763
        assertEquals(58.763, fit.kneeAt(0.9), 0.001);
        assertEquals(900, fit.at(fit.kneeAt(0.9)), 1e-9);
        // at the crossover itself the curve is at 2^(-1/k) of the plateau
        assertEquals(1000 * Math.pow(2, -0.25), fit.at(50), 1e-9);
        // a hyperbola (k = 1) reaches 90 % only at 9 F0
        assertEquals(450, new SaturationFit(1000, 50, 1, 0, 5).kneeAt(0.9), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> fit.kneeAt(1));
    }

    @Test
    void multiplicativeNoiseLeavesTheCrossoverInPlace() {
        // each point 10 % above or below the curve, alternately: the crossover barely moves, half the points lie 10 % from it
        double[] x = curve(200_000, 30, 2);
        for (int i = 0; i < x.length; i++) {
            x[i] *= i % 2 == 0 ? 1.1 : 1 / 1.1;
        }
        SaturationFit fit = SaturationFit.fit(F, x, ones());
        assertEquals(30, fit.crossover(), 30 * 0.25, fit.describe());
        // five points above, four below: the weighted median of the residuals sits on an upper one
        assertEquals(200_000, fit.plateau(), 200_000 * 0.11, fit.describe());
        assertTrue(fit.typicalErrorPercent() > 5 && fit.typicalErrorPercent() < 11, fit.describe());
    }

    @Test
    void aProbeDisturbedByAnotherJobDoesNotMoveTheCurve() {
        // one point a fifth of the curve (another job took the cores during that probe), as seen on the relay here
        double[] x = curve(500_000, 100, 4);
        x[6] /= 5;
        SaturationFit fit = SaturationFit.fit(F, x, ones());
        assertEquals(100, fit.crossover(), 100 * 0.01, fit.describe());
        assertEquals(500_000, fit.plateau(), 500_000 * 0.01, fit.describe());
        assertTrue(fit.typicalErrorPercent() < 1, fit.describe());
    }

    @Test
    void weightsCountAPointAsOftenAsItWasMeasured() {
        // the plateau's points disagree (no monotone curve passes through them): 100k and 130k
        double[] f = {1, 10, 100, 1000, 10_000};
        double[] x = {1000, 10_000, 100_000, 130_000, 100_000};
        SaturationFit heavy = SaturationFit.fit(f, x, new double[] {1, 1, 3, 1, 3});
        SaturationFit light = SaturationFit.fit(f, x, new double[] {1, 1, 1, 3, 1});
        assertTrue(heavy.plateau() < light.plateau(), heavy.describe() + " / " + light.describe());
    }

    @Test
    void aPlateauFromTheFirstPointPutsTheKneeAtOrBelowIt() {
        SaturationFit fit = SaturationFit.fit(new double[] {1, 10, 100}, new double[] {50_000, 50_000, 50_000},
                new double[] {1, 1, 1});
        assertTrue(fit.kneeAt(0.9) <= 1.0 + 1e-9, fit.describe());
    }

    @Test
    void tooFewPointsOrBadOnesAreRefused() {
        assertNull(SaturationFit.fit(new double[] {1, 10}, new double[] {1, 2}, new double[] {1, 1}));
        assertThrows(IllegalArgumentException.class,
                () -> SaturationFit.fit(new double[] {1, 10, 100}, new double[] {1, 0, 2}, new double[] {1, 1, 1}));
        assertThrows(IllegalArgumentException.class,
                () -> SaturationFit.fit(new double[] {0, 10, 100}, new double[] {1, 1, 2}, new double[] {1, 1, 1}));
        assertThrows(IllegalArgumentException.class,
                () -> SaturationFit.fit(new double[] {1, 10}, new double[] {1, 1, 2}, new double[] {1, 1, 1}));
    }

    /**
     * Issue 27: the knee's bootstrap interval, on the curve P = 300,000, F0 = 50, k = 4 with a fixed ±8 % zig-zag:
     * it holds the knee the fit names, the same points give the same interval, and its cost is printed (200 refits on
     * the coarse grid).
     */
    @Test
    void theKneesIntervalHoldsItsKneeAndIsRepeatable() {
        double[] x = curve(300_000, 50, 4);
        for (int i = 0; i < x.length; i++) {
            x[i] *= 1 + 0.08 * (i % 3 - 1);
        }
        SaturationFit fit = SaturationFit.fit(F, x, ones());
        SaturationFit withCi = fit.withKneeInterval(F, x, ones(), 0.9, 27);
        assertTrue(withCi.kneeLow() <= fit.kneeAt(0.9) && fit.kneeAt(0.9) <= withCi.kneeHigh(), withCi.toString());
        for (int run = 0; run < 3; run++) { // the cost once compiled (the first call runs interpreted)
            long t0 = System.nanoTime();
            assertEquals(withCi, fit.withKneeInterval(F, x, ones(), 0.9, 27));
            System.out.printf("knee %.1f [%.1f, %.1f], bootstrap of %d refits over %d points: %.0f ms%n",
                    fit.kneeAt(0.9), withCi.kneeLow(), withCi.kneeHigh(), SaturationFit.BOOT_REPLICATES, F.length,
                    (System.nanoTime() - t0) / 1e6);
        }
        assertEquals(fit.crossover(), withCi.crossover());
        assertTrue(Double.isNaN(fit.kneeLow()), "no interval until one is computed");
    }

    /**
     * Issue 27: the bootstrap draws from the residuals without the fit's exact zeros, scaled for the three parameters:
     * six residuals, three of them 0, leave 0.1, -0.2 and 0.3, each times sqrt(6 / 3) = 1.414214.
     */
    @Test
    void theBootstrapDrawsFromTheNonZeroResidualsScaledForThreeParameters() {
        double[] pool = SaturationFit.residualPool(new double[] {0, 0.1, -0.2, 0, 0.3, 0});
        org.junit.jupiter.api.Assertions.assertArrayEquals(new double[] {0.1414214, -0.2828427, 0.4242641}, pool, 1e-7);
        // fewer than two non-zero residuals: nothing to scale, all of them are drawn
        org.junit.jupiter.api.Assertions.assertArrayEquals(new double[] {0, 0.1, 0},
                SaturationFit.residualPool(new double[] {0, 0.1, 0}), 0);
    }
}
