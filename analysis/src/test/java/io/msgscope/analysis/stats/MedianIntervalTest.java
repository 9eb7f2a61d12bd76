package io.msgscope.analysis.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The order-statistic interval against hand-computed binomial ranks, and its coverage by simulation. */
class MedianIntervalTest {

    private static double[] oneTo(int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = i + 1;
        }
        return v;
    }

    @Test
    void ranksAreTheBinomialOnesComputedByHand() {
        // n = 10: P(B <= 1) = 11/1024 = 0.0107 <= 0.025 < P(B <= 2) = 56/1024, so l = 2, u = 9,
        // coverage 1 - 2*11/1024 = 0.978515625
        MedianInterval i10 = MedianInterval.of(oneTo(10));
        assertEquals(2, i10.lowerRank());
        assertEquals(9, i10.upperRank());
        assertEquals(2, i10.lower());
        assertEquals(9, i10.upper());
        assertEquals(1 - 2 * 11.0 / 1024, i10.confidence(), 1e-12);
        // n = 100: the textbook ranks 40 and 61, coverage 0.9648
        MedianInterval i100 = MedianInterval.of(oneTo(100));
        assertEquals(40, i100.lowerRank());
        assertEquals(61, i100.upperRank());
        assertEquals(0.9647998, i100.confidence(), 1e-6);
        // n = 20: ranks 6 and 15; n = 1000: 469 and 532
        assertEquals(6, MedianInterval.of(oneTo(20)).lowerRank());
        assertEquals(15, MedianInterval.of(oneTo(20)).upperRank());
        assertEquals(469, MedianInterval.of(oneTo(1000)).lowerRank());
        assertEquals(532, MedianInterval.of(oneTo(1000)).upperRank());
    }

    @Test
    void tooFewValuesGiveTheWholeSampleAndSayItsCoverageIsBelowTheLevel() {
        // n = 5: even [x(1), x(5)] covers only 1 - 2/32 = 0.9375
        MedianInterval i = MedianInterval.of(new double[] {5, 1, 4, 2, 3});
        assertEquals(1, i.lower());
        assertEquals(5, i.upper());
        assertEquals(0.9375, i.confidence(), 1e-12);
        assertTrue(i.confidence() < MedianInterval.LEVEL);
        MedianInterval one = MedianInterval.of(new double[] {7});
        assertEquals(7, one.lower());
        assertEquals(7, one.upper());
        assertEquals(0, MedianInterval.of(new double[0]).n());
        assertTrue(Double.isNaN(MedianInterval.of(new double[0]).lower()));
    }

    @Test
    void anEffectiveSizeBelowNWidensTheIntervalByQuantilePosition() {
        // m = 10 effective values among 100: rank 2 of 10 sits at quantile 2/11, rank floor(2*101/11) = 18 of 100
        MedianInterval i = MedianInterval.ofSorted(oneTo(100), 100, 0.95, 10);
        assertEquals(18, i.lowerRank());
        assertEquals(83, i.upperRank());
        assertEquals(1 - 2 * 11.0 / 1024, i.confidence(), 1e-12);
        assertEquals(10, i.effectiveN());
    }

    @Test
    void overlapAndContainment() {
        MedianInterval a = new MedianInterval(10, 20, 1, 2, 0.95, 2, 2);
        assertTrue(a.overlaps(new MedianInterval(20, 30, 1, 2, 0.95, 2, 2)));
        assertFalse(a.overlaps(new MedianInterval(20.5, 30, 1, 2, 0.95, 2, 2)));
        assertTrue(a.contains(15));
        assertFalse(a.contains(9.99));
        assertEquals(5.0 / 15, a.relativeHalfWidth(15), 1e-12); // (20 - 10) / 2 / 15
        assertThrows(IllegalArgumentException.class, () -> MedianInterval.ofSorted(oneTo(3), 3, 1.0, 3));
    }

    /** Independent draws: the interval covers the true median at least 95 % of the time. */
    @Test
    void coversTheTrueMedianOfIndependentSamples() {
        Random rnd = new Random(17);
        int covered = 0;
        int runs = 4000;
        for (int r = 0; r < runs; r++) {
            double[] v = new double[100];
            for (int i = 0; i < v.length; i++) {
                v[i] = Math.exp(rnd.nextGaussian()); // log-normal: median 1, skewed like throughput
            }
            if (MedianInterval.of(v).contains(1.0)) {
                covered++;
            }
        }
        double rate = (double) covered / runs;
        assertTrue(rate > 0.95 && rate < 0.98, "coverage " + rate); // exact coverage 0.9648
    }

    /**
     * AR(1) samples with ρ = 0.7: the plain binomial interval is far too narrow; widened for the
     * measured autocorrelation it comes close to its level again.
     */
    @Test
    void autocorrelatedSamplesAreCoveredOnceTheIntervalIsWidened() {
        Random rnd = new Random(42);
        int plain = 0;
        int widened = 0;
        int runs = 2000;
        for (int r = 0; r < runs; r++) {
            double[] v = new double[200];
            double x = rnd.nextGaussian();
            for (int i = 0; i < v.length; i++) {
                x = 0.7 * x + Math.sqrt(1 - 0.49) * rnd.nextGaussian();
                v[i] = x;
            }
            if (MedianInterval.of(v).contains(0)) {
                plain++;
            }
            if (SampleSummary.of(v).medianInterval().contains(0)) {
                widened++;
            }
        }
        double p = (double) plain / runs;
        double w = (double) widened / runs;
        assertTrue(p < 0.80, "plain coverage " + p);
        assertTrue(w > 0.90, "widened coverage " + w);
    }
}
