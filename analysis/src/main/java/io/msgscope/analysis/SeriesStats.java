package io.msgscope.analysis;

import java.util.Arrays;

/**
 * Aggregates of one measured series (M6).
 *
 * <ul>
 *   <li>mean = ΣX/N;</li>
 *   <li>median = the lower median, {@code sorted[(N-1)/2]} (0-based), i.e. the N/2-th value for
 *       an even N;</li>
 *   <li>robust deviation = Σ|X_n − X_med| / N;</li>
 *   <li>percentile p = nearest rank, {@code sorted[ceil(p/100·N) − 1]} (0-based).</li>
 * </ul>
 *
 * An empty series has {@code n = 0} and NaN everywhere else.
 */
public record SeriesStats(
        double n,
        double mean,
        double median,
        double robustDeviation,
        double min,
        double max,
        double p50,
        double p90,
        double p95,
        double p99,
        double p999,
        double p9999) {

    private static final SeriesStats EMPTY = new SeriesStats(0, Double.NaN, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /** The aggregates of an empty series. */
    public static SeriesStats empty() {
        return EMPTY;
    }

    /** Whether the series had no values. */
    public boolean isEmpty() {
        return n == 0;
    }

    /** Number of values as a long. */
    public long count() {
        return (long) n;
    }

    /**
     * 0-based index of the nearest-rank percentile {@code p} (0 &lt; p ≤ 100) in a sorted series
     * of {@code n} values: {@code ceil(p/100·n) − 1}, computed in integer arithmetic (p is taken
     * to a millionth of a percent) so that 99.9 % of 1000 values is index 998, not 999.
     */
    public static int nearestRankIndex(double p, long n) {
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100], was " + p);
        }
        if (n <= 0) {
            throw new IllegalArgumentException("empty series");
        }
        long perHundredMillion = Math.round(p * 1_000_000d); // p/100 in units of 1e-8
        final long denominator = 100_000_000L;
        // n ≤ 2^31 and perHundredMillion ≤ 1e8, so the product fits in a long.
        long rank = (perHundredMillion * n + denominator - 1) / denominator;
        if (rank < 1) {
            rank = 1;
        }
        return (int) (rank - 1);
    }

    /** Aggregates of {@code values[0, n)}; sorts that prefix in place. */
    public static SeriesStats ofLongs(long[] values, int n) {
        checkPrefix(values.length, n);
        Arrays.parallelSort(values, 0, n);
        return ofSortedLongs(values, n);
    }

    /** Aggregates of {@code values[0, n)}; sorts that prefix in place. NaN values are not allowed. */
    public static SeriesStats ofDoubles(double[] values, int n) {
        checkPrefix(values.length, n);
        Arrays.parallelSort(values, 0, n);
        return ofSortedDoubles(values, n);
    }

    /** Aggregates of {@code values[0, n)}, which must already be sorted ascending. */
    public static SeriesStats ofSortedLongs(long[] sorted, int n) {
        checkPrefix(sorted.length, n);
        if (n == 0) {
            return EMPTY;
        }
        long median = sorted[(n - 1) / 2];
        double mean = longSum(sorted, n) / n;
        double deviation = longAbsDeviationSum(sorted, n, median) / n;
        return new SeriesStats(n, mean, median, deviation, sorted[0], sorted[n - 1],
                sorted[nearestRankIndex(50, n)],
                sorted[nearestRankIndex(90, n)],
                sorted[nearestRankIndex(95, n)],
                sorted[nearestRankIndex(99, n)],
                sorted[nearestRankIndex(99.9, n)],
                sorted[nearestRankIndex(99.99, n)]);
    }

    /** Aggregates of {@code values[0, n)}, which must already be sorted ascending. */
    public static SeriesStats ofSortedDoubles(double[] sorted, int n) {
        checkPrefix(sorted.length, n);
        if (n == 0) {
            return EMPTY;
        }
        double median = sorted[(n - 1) / 2];
        double sum = 0;
        double deviationSum = 0;
        for (int i = 0; i < n; i++) {
            double x = sorted[i];
            sum += x;
            deviationSum += Math.abs(x - median);
        }
        return new SeriesStats(n, sum / n, median, deviationSum / n, sorted[0], sorted[n - 1],
                sorted[nearestRankIndex(50, n)],
                sorted[nearestRankIndex(90, n)],
                sorted[nearestRankIndex(95, n)],
                sorted[nearestRankIndex(99, n)],
                sorted[nearestRankIndex(99.9, n)],
                sorted[nearestRankIndex(99.99, n)]);
    }

    /** Exact sum while it fits in a long, otherwise a double sum. */
    private static double longSum(long[] values, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            long x = values[i];
            long r = sum + x;
            if (((sum ^ r) & (x ^ r)) < 0) {
                return doubleSum(values, n);
            }
            sum = r;
        }
        return sum;
    }

    private static double doubleSum(long[] values, int n) {
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += values[i];
        }
        return sum;
    }

    /** Σ|x − median|, exact while it fits in a long; the prefix is sorted, so no abs is needed. */
    private static double longAbsDeviationSum(long[] sorted, int n, long median) {
        long sum = 0;
        boolean exact = true;
        for (int i = 0; i < n; i++) {
            long x = sorted[i];
            long d = x >= median ? x - median : median - x;
            long r = sum + d;
            if (d < 0 || r < 0) {
                exact = false;
                break;
            }
            sum = r;
        }
        if (exact) {
            return sum;
        }
        double dsum = 0;
        double med = median;
        for (int i = 0; i < n; i++) {
            dsum += Math.abs(sorted[i] - med);
        }
        return dsum;
    }

    private static void checkPrefix(int length, int n) {
        if (n < 0 || n > length) {
            throw new IllegalArgumentException("prefix length " + n + " outside [0, " + length + "]");
        }
    }

    /** This series with every value divided by {@code divisor} (a positive constant). */
    public SeriesStats dividedBy(double divisor) {
        if (isEmpty()) {
            return this;
        }
        return new SeriesStats(n, mean / divisor, median / divisor, robustDeviation / divisor,
                min / divisor, max / divisor, p50 / divisor, p90 / divisor, p95 / divisor,
                p99 / divisor, p999 / divisor, p9999 / divisor);
    }
}
