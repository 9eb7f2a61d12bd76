package io.msgscope.analysis.stats;

import java.util.Arrays;

/**
 * Everything msgscope reports about one set of samples taken in order (throughput samples, A7, B4):
 * the lower median (M6), mean, sample standard deviation, a distribution-free 95 % interval for the
 * median ({@link MedianInterval}, widened for the lag-1 autocorrelation of the ranks) and the
 * {@link Stationarity} checks.
 *
 * @param lag1          the lag-1 autocorrelation of the ranks (0 for fewer than 3 samples)
 * @param effectiveN    n·(1 − ρ)/(1 + ρ) for ρ &gt; 0, else n
 */
public record SampleSummary(int n, double median, double mean, double stddev, MedianInterval medianInterval,
        double lag1, double effectiveN, Stationarity stationarity) {

    public static SampleSummary of(double[] inOrder) {
        int n = inOrder.length;
        if (n == 0) {
            return new SampleSummary(0, Double.NaN, Double.NaN, Double.NaN,
                    MedianInterval.ofSorted(new double[0], 0, MedianInterval.LEVEL, 0), 0, 0,
                    Stationarity.of(inOrder, 1));
        }
        double[] sorted = inOrder.clone();
        Arrays.sort(sorted);
        double median = sorted[(n - 1) / 2];
        double sum = 0;
        for (double v : inOrder) {
            sum += v;
        }
        double mean = sum / n;
        double sq = 0;
        for (double v : inOrder) {
            sq += (v - mean) * (v - mean);
        }
        double sd = n > 1 ? Math.sqrt(sq / (n - 1)) : 0;
        double rho = Ranks.lag1(inOrder);
        double eff = effectiveSize(n, rho);
        MedianInterval ci = MedianInterval.ofSorted(sorted, n, MedianInterval.LEVEL, eff);
        return new SampleSummary(n, median, mean, sd, ci, rho, eff, Stationarity.of(inOrder, eff / n));
    }

    /** The AR(1) effective sample size n·(1 − ρ)/(1 + ρ) for ρ &gt; 0; n otherwise; at least 1. */
    public static double effectiveSize(int n, double rho) {
        if (!(rho > 0)) {
            return n;
        }
        return Math.max(1, Math.min(n, n * (1 - rho) / (1 + rho)));
    }
}
