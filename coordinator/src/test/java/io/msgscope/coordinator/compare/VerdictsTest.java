package io.msgscope.coordinator.compare;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.msgscope.coordinator.compare.FigureVerdict.Verdict;
import io.msgscope.coordinator.view.SummaryView;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.HdrHistogram.Histogram;
import org.apache.commons.math3.special.Erf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** compare's statistics (issue 34) against hand-computed cases. */
class VerdictsTest {
    private static final SummaryView VIEW;

    static {
        try {
            VIEW = new SummaryView(new ObjectMapper().readTree("{\"mode\":\"trace\",\"status\":\"ok\"}"));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static RunData run(double[] throughput, List<IntervalDist> latency) {
        return new RunData("r", VIEW, throughput, latency);
    }

    private static IntervalDist interval(long... values) {
        Histogram h = new Histogram(3);
        for (long v : values) {
            h.recordValue(v);
        }
        return IntervalDist.of(h);
    }

    /** Two-sided p of the Mann–Whitney U test by its normal approximation, U counted pair by pair. */
    private static double mannWhitneyByHand(double[] x, double[] y) {
        double u = 0;
        for (double a : x) {
            for (double b : y) {
                u += a > b ? 1 : a == b ? 0.5 : 0;
            }
        }
        double n1 = x.length;
        double n2 = y.length;
        double umax = Math.max(u, n1 * n2 - u);
        double z = (umax - n1 * n2 / 2) / Math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
        return Erf.erfc(z / Math.sqrt(2)); // 2 (1 − Φ(z))
    }

    @Test
    void throughputMedianChangeAndRankTestByHand() {
        double[] b = {1000, 2000, 3000, 4000, 5000};
        double[] c = {6000, 7000, 8000, 9000, 10000};
        FigureVerdict v = Verdicts.throughput(List.of(run(b, List.of())), List.of(run(c, List.of())));
        assertEquals(3000, v.baseline());
        assertEquals(8000, v.candidate());
        assertEquals(8000.0 / 3000 - 1, v.change(), 1e-12);
        // U = 0 of 25 pairs: z = (25 - 12.5) / sqrt(5·5·11/12) = 2.611, p = 0.00902
        assertEquals(mannWhitneyByHand(b, c), v.mannWhitneyP(), 1e-12);
        assertEquals(0.00902, v.mannWhitneyP(), 5e-5);
        assertEquals(Verdict.BETTER, v.verdict());
        // every draw's median lies within the samples: the change within [6000/5000, 10000/1000] − 1
        assertEquals(true, v.ciLow() >= 6000.0 / 5000 - 1 && v.ciHigh() <= 10000.0 / 1000 - 1);
    }

    @Test
    void constantSamplesGiveAnExactIntervalAndTheRankTestDecides() {
        double[] b = {100, 100, 100, 100, 100, 100};
        double[] c = {110, 110, 110, 110, 110, 110};
        FigureVerdict v = Verdicts.throughput(List.of(run(b, List.of())), List.of(run(c, List.of())));
        assertEquals(0.1, v.change(), 1e-12);
        assertEquals(0.1, v.ciLow(), 1e-12);
        assertEquals(0.1, v.ciHigh(), 1e-12);
        // U = 0 of 36: z = 18 / sqrt(36·13/12) = 2.882, p = 0.00395
        assertEquals(0.00395, v.mannWhitneyP(), 5e-5);
        assertEquals(Verdict.BETTER, v.verdict());

        FigureVerdict same = Verdicts.throughput(List.of(run(b, List.of())), List.of(run(b, List.of())));
        assertEquals(0.0, same.change());
        assertEquals(1.0, same.mannWhitneyP(), 1e-12); // U = 18 = n1 n2 / 2
        assertEquals(Verdict.SAME, same.verdict());
    }

    @Test
    void fewerThanFiveSamplesASideIsTooFewToTell() {
        FigureVerdict v = Verdicts.throughput(List.of(run(new double[] {1, 2, 3, 4}, List.of())),
                List.of(run(new double[] {10, 20, 30, 40, 50}, List.of())));
        assertEquals(Verdict.TOO_FEW, v.verdict());
        assertEquals("too few repeats to tell", v.verdict().words());
        assertEquals(2.5, v.baseline());
        assertNull(v.ciLow());
        assertNull(v.mannWhitneyP());
        assertEquals(4, v.baselineSamples());
    }

    @Test
    void aBaselineOfZeroHasNoChange() {
        FigureVerdict v = Verdicts.throughput(List.of(run(new double[] {0, 0, 0, 0, 0}, List.of())),
                List.of(run(new double[] {1, 1, 1, 1, 1}, List.of())));
        assertNull(v.change());
        assertEquals(Verdict.UNKNOWN, v.verdict());
    }

    @Test
    void percentileIntervalTakesTheRanksOfTwoAndAHalfPercent() {
        double[] d = new double[2000];
        for (int i = 0; i < d.length; i++) {
            d[i] = d.length - 1 - i; // 1999 … 0, sorted by the method
        }
        assertArrayEquals(new double[] {50, 1949}, Verdicts.percentileInterval(d));
    }

    @Test
    void mergedIntervalsReadAsOneHistogramByHand() {
        List<IntervalDist> all = List.of(interval(100, 200, 300), interval(400));
        long[] grid = IntervalDist.grid(all);
        assertArrayEquals(new long[] {100, 200, 300, 400}, grid);
        int[] both = {0, 1};
        // 4 values: p50's rank round(0.5 · 4) = 2 → 200; p99's round(3.96) = 4 → 400; mean 1000 / 4
        assertEquals(200, IntervalDist.quantile(all, both, 0.50, grid));
        assertEquals(400, IntervalDist.quantile(all, both, 0.99, grid));
        assertEquals(250, IntervalDist.mean(all, both));
        // the first interval drawn twice: 100 100 200 200 300 300 400, p50 rank round(3.5) = 4 → 200
        assertEquals(200, IntervalDist.quantile(all, new int[] {0, 0, 1}, 0.50, grid));
        assertEquals(1000.0 / 4, IntervalDist.mean(all, new int[] {1, 0}));
    }

    @Test
    void mergedQuantilesEqualHdrHistogramsOwnOnAMergedHistogram() {
        Random rnd = new Random(7);
        List<IntervalDist> all = new ArrayList<>();
        Histogram merged = new Histogram(3);
        for (int i = 0; i < 6; i++) {
            Histogram h = new Histogram(3);
            for (int k = 0; k < 5000; k++) {
                h.recordValue(1000 + (long) Math.abs(rnd.nextGaussian() * 200_000) + i * 10_000L);
            }
            merged.add(h);
            all.add(IntervalDist.of(h));
        }
        long[] grid = IntervalDist.grid(all);
        int[] idx = {0, 1, 2, 3, 4, 5};
        for (double q : new double[] {0.5, 0.9, 0.99, 0.999}) {
            assertEquals(merged.getValueAtPercentile(q * 100), IntervalDist.quantile(all, idx, q, grid), "q=" + q);
        }
    }

    @Test
    void latencyVerdictFromIntervalsByHand() {
        // baseline: 6 intervals of 1000…1099 ns; candidate: each value × 1.5 (1500, 1501, 1503, …, 1648)
        List<IntervalDist> b = new ArrayList<>();
        List<IntervalDist> c = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            long[] vb = new long[100];
            long[] vc = new long[100];
            for (int k = 0; k < 100; k++) {
                vb[k] = 1000 + k;
                vc[k] = (1000 + k) * 3 / 2;
            }
            b.add(interval(vb));
            c.add(interval(vc));
        }
        FigureVerdict v = Verdicts.latency(Figure.P99, List.of(run(new double[0], b)), List.of(run(new double[0], c)));
        // 600 values, rank round(594) = 594: the 99th distinct value (each 6 times), 1098 ns and 1098 · 1.5 = 1647 ns
        assertEquals(1.098, v.baseline(), 1e-12);
        assertEquals(1.647, v.candidate(), 1e-12);
        assertEquals(0.5, v.change(), 1e-12);
        // every interval alike: every draw gives the same +50 %
        assertEquals(0.5, v.ciLow(), 1e-12);
        assertEquals(0.5, v.ciHigh(), 1e-12);
        // per-interval p99s: all 1.098 against all 1.647, U = 0 of 36 → p = 0.00395
        assertEquals(0.00395, v.mannWhitneyP(), 5e-5);
        assertEquals(Verdict.WORSE, v.verdict());
        assertEquals(6, v.baselineSamples());
    }

    @Test
    void twoStageDrawTakesRunsThenTheirSamples() {
        // runs of one sample each: a draw takes 3 runs with replacement, so its values are among 1, 2, 3
        double[] d = Verdicts.resample(new double[][] {{1}, {2}, {3}}, new java.util.SplittableRandom(1));
        assertEquals(3, d.length);
        for (double x : d) {
            assertEquals(true, x == 1 || x == 2 || x == 3);
        }
        // one run of two samples and one of none: a draw takes 2 runs, each with as many draws as it has samples
        double[] e = Verdicts.resample(new double[][] {{5, 5}, {}}, new java.util.SplittableRandom(2));
        assertEquals(0, e.length % 2);
    }
}
