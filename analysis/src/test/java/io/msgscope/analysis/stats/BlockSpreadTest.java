package io.msgscope.analysis.stats;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The between-block spread (issue 27, item 5) by hand, and its claim on simulated drifting runs. */
class BlockSpreadTest {

    /**
     * 20 values, 10 blocks of 2: block b holds (10b + 2, 10b + 1) except block 9, which holds (2, 1). Lower medians
     * 1, 11, 21, ..., 81, 1; the run's lower median is the 10th smallest of the 20 values.
     */
    @Test
    void blockMediansAndTheNextRunIntervalByHand() {
        double[] v = new double[20];
        for (int b = 0; b < 10; b++) {
            int base = b == 9 ? 0 : 10 * b;
            v[2 * b] = base + 2;
            v[2 * b + 1] = base + 1;
        }
        BlockSpread s = BlockSpread.of(v, null);
        assertArrayEquals(new double[] {1, 11, 21, 31, 41, 51, 61, 71, 81, 1}, s.blockMedians());
        // mean of the block medians 370 / 10 = 37; squares of (−36, −26, −16, −6, 4, 14, 24, 34, 44, −36):
        // 1296 + 676 + 256 + 36 + 16 + 196 + 576 + 1156 + 1936 + 1296 = 7440; sd = √(7440 / 9) = 28.752
        assertEquals(Math.sqrt(7440 / 9.0), s.blockMedianSd(), 1e-12);
        // the sorted values: 1,1,2,2,11,12,21,22,31,32,... the 10th smallest is 32
        // lag-1 of the block medians: Σ products of neighbouring deviations (−36·−26 + −26·−16 + −16·−6 + −6·4 + 4·14
        // + 14·24 + 24·34 + 34·44 + 44·−36) = 936 + 416 + 96 − 24 + 56 + 336 + 816 + 1496 − 1584 = 2544;
        // 2544 / 7440 + 1/10 = 0.44194; widening √((1 + ρ)/(1 − ρ)) = 1.6148
        double rho = 2544 / 7440.0 + 0.1;
        assertEquals(rho, s.blockLag1(), 1e-12);
        double half = 2.2621571627982 * Math.sqrt(7440 / 9.0) * Math.sqrt(0.2 * (1 + rho) / (1 - rho)); // 46.97
        assertEquals(32 - half, s.nextRunMedianLow(), 1e-9);
        assertEquals(32 + half, s.nextRunMedianHigh(), 1e-9);
        assertEquals(1, s.blockMedianMin());
        assertEquals(81, s.blockMedianMax());
        assertTrue(Double.isNaN(s.deliveredRate()), "no spans: no delivered rate");
        assertFalse(BlockSpread.of(new double[19], null).computed(), "fewer than 20 samples: no blocks");
    }

    /**
     * Runs of 1,000 samples from a drifting system: the level jumps at random (on average every {@code dwell} samples)
     * to a log-normal draw 15 % around its centre, each sample 30 % off it. Where the next, independent run's median
     * lands is covered by {@code next_run_median_95} about 95 % of the time when the level dwells for a fifth of a
     * block (seen: 0.95), a little less when for half a block (seen: 0.92); the median's own interval, which describes
     * the noise, covers it far less often (seen: 0.3).
     */
    @Test
    void theNextRunsMedianFallsInsideAboutAsOftenAsClaimed() {
        double[] shortDwell = coverage(20, 27);
        assertTrue(shortDwell[0] >= 0.915 && shortDwell[0] <= 0.985, "between-block coverage " + shortDwell[0]);
        assertTrue(shortDwell[1] < 0.6, "the median's interval describes noise: " + shortDwell[1]);
        double[] longDwell = coverage(50, 28);
        assertTrue(longDwell[0] >= 0.87 && longDwell[0] <= 0.985, "between-block coverage " + longDwell[0]);
    }

    /** {between-block coverage, the median interval's coverage} of the next run's median over 1,000 pairs. */
    static double[] coverage(int dwell, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int pairs = 1000;
        int inBlocks = 0;
        int inMedianCi = 0;
        double[] run = drifting(rnd, dwell);
        for (int i = 0; i < pairs; i++) {
            double[] next = drifting(rnd, dwell);
            double[] sorted = next.clone();
            Arrays.sort(sorted);
            double nextMedian = sorted[(sorted.length - 1) / 2];
            BlockSpread b = BlockSpread.of(run, null);
            if (nextMedian >= b.nextRunMedianLow() && nextMedian <= b.nextRunMedianHigh()) {
                inBlocks++;
            }
            double[] r = run.clone();
            Arrays.sort(r);
            if (MedianInterval.ofSorted(r, r.length, MedianInterval.LEVEL,
                    SampleSummary.effectiveSize(r.length, Ranks.lag1(run))).contains(nextMedian)) {
                inMedianCi++;
            }
            run = next;
        }
        System.out.printf("dwell %d: next run's median inside: between-block %.3f, median's 95%% interval %.3f%n",
                dwell, inBlocks / (double) pairs, inMedianCi / (double) pairs);
        return new double[] {inBlocks / (double) pairs, inMedianCi / (double) pairs};
    }

    static double[] drifting(SplittableRandom rnd, int dwell) {
        double[] v = new double[1000];
        double level = 0;
        for (int i = 0; i < v.length; i++) {
            if (i == 0 || rnd.nextDouble() < 1.0 / dwell) {
                level = 0.15 * gaussian(rnd);
            }
            v[i] = 50_000 * Math.exp(level + 0.3 * gaussian(rnd));
        }
        return v;
    }

    static double gaussian(SplittableRandom rnd) {
        return Math.sqrt(-2 * Math.log(1 - rnd.nextDouble())) * Math.cos(2 * Math.PI * rnd.nextDouble());
    }

    @Test
    void deliveredRateAndSpansByHand() {
        double[] rates = new double[20];
        long[] spans = new long[20];
        Arrays.fill(rates, 1_000.0);
        Arrays.fill(spans, 10_000_000L); // 10 messages per 10 ms window
        rates[0] = 100.0;
        spans[0] = 100_000_000L; // one stalled window: 10 messages in 100 ms
        BlockSpread s = BlockSpread.of(rates, spans);
        assertEquals(200 / 0.29, s.deliveredRate(), 1e-9); // 200 messages over 19 x 10 + 100 ms
        assertEquals(20 / 0.11, s.blockRates()[0], 1e-9);
        assertEquals(1_000.0, s.blockRates()[1], 1e-9);
    }
}
