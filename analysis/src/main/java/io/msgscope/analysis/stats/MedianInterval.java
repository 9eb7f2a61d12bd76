package io.msgscope.analysis.stats;

import java.util.Arrays;

/**
 * A distribution-free confidence interval for the median of a sample (B4, issue 17): the order
 * statistics {@code [x(l), x(u)]} with {@code u = n − l + 1}, where {@code l} is the largest rank
 * with {@code P(B ≤ l − 1) ≤ (1 − level)/2} for {@code B ~ Binomial(n, 1/2)} — the number of
 * sample values below the true median. Nothing is assumed about the distribution, only that the
 * values are independent draws; the coverage actually achieved, {@code 1 − 2·P(B ≤ l − 1)}, is at
 * least {@code level} and is reported as {@link #confidence()}.
 *
 * <p>Throughput samples taken one after another are not independent: a slow 10 ms window tends to
 * be followed by another. With a positive lag-1 autocorrelation ρ the interval is widened by
 * computing the ranks for the effective sample size {@code m = n·(1 − ρ)/(1 + ρ)} (the AR(1)
 * variance inflation) and mapping them back onto the {@code n} values by quantile position:
 * rank {@code l} of {@code m} becomes rank {@code ⌊l·(n + 1)/(m + 1)⌋} of {@code n}. With
 * {@code m = n} this is the exact binomial interval. When {@code m} is below 6 no interval reaches
 * 95 %; the result then spans the whole sample and says so through its lower confidence.
 *
 * @param lower x(l)
 * @param upper x(u)
 * @param lowerRank l, 1-based
 * @param upperRank u, 1-based
 * @param confidence the coverage achieved (for the effective sample size)
 * @param n the number of values
 * @param effectiveN the effective sample size the ranks were computed for
 */
public record MedianInterval(double lower, double upper, int lowerRank, int upperRank, double confidence, int n,
        double effectiveN) {

    /** The level msgscope reports everywhere. */
    public static final double LEVEL = 0.95;

    private static final MedianInterval EMPTY = new MedianInterval(Double.NaN, Double.NaN, 0, 0, Double.NaN, 0, 0);

    /** True when the interval contains {@code x}. */
    public boolean contains(double x) {
        return x >= lower && x <= upper;
    }

    /** True when the two intervals share at least one value. */
    public boolean overlaps(MedianInterval o) {
        return lower <= o.upper && o.lower <= upper;
    }

    /** Half the interval's width relative to {@code centre} (e.g. the median): 0.05 = ±5 %. */
    public double relativeHalfWidth(double centre) {
        return (upper - lower) / 2 / Math.abs(centre);
    }

    /** The interval of unsorted values at {@link #LEVEL} for independent values. */
    public static MedianInterval of(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return ofSorted(sorted, sorted.length, LEVEL, sorted.length);
    }

    /**
     * @param sorted     ascending values, the first {@code n} used
     * @param level      the confidence wanted, in (0, 1)
     * @param effectiveN the effective sample size, in [1, n] (n for independent values)
     */
    public static MedianInterval ofSorted(double[] sorted, int n, double level, double effectiveN) {
        if (!(level > 0 && level < 1)) {
            throw new IllegalArgumentException("level must be in (0, 1), was " + level);
        }
        if (n < 0 || n > sorted.length) {
            throw new IllegalArgumentException("n " + n + " outside [0, " + sorted.length + "]");
        }
        if (n == 0) {
            return EMPTY;
        }
        double eff = Math.max(1, Math.min(n, effectiveN));
        int m = (int) Math.floor(eff);
        int l = lowerRank(m, (1 - level) / 2); // 1-based rank among m values
        double confidence = 1 - 2 * Math.exp(Binomial.logCdfHalf(m, l - 1));
        int lo;
        if (m == n) {
            lo = l;
        } else {
            lo = (int) Math.floor(l * (double) (n + 1) / (m + 1));
        }
        lo = Math.max(1, Math.min(lo, (n + 1) / 2));
        int hi = n - lo + 1;
        return new MedianInterval(sorted[lo - 1], sorted[hi - 1], lo, hi, confidence, n, eff);
    }

    /**
     * The largest rank l in [1, (m+1)/2] with P(B ≤ l − 1) ≤ tail for B ~ Binomial(m, 1/2); 1 when even
     * l = 1 misses the tail (then the interval is the whole sample, coverage 1 − 2^(1−m)).
     */
    static int lowerRank(int m, double tail) {
        double logTail = Math.log(tail);
        int l = 1;
        double logCdf = Double.NEGATIVE_INFINITY; // P(B ≤ l − 1) for l = 1 is P(B ≤ 0)
        double logPmf = -m * Math.log(2); // P(B = 0)
        // P(B ≤ k) for k = 0, 1, …: the largest k with P(B ≤ k) ≤ tail gives l = k + 1
        for (int k = 0; k <= m / 2; k++) {
            logCdf = Binomial.logSumExp(logCdf, logPmf);
            if (logCdf > logTail) {
                break;
            }
            l = k + 1;
            logPmf += Math.log((double) (m - k) / (k + 1));
        }
        return Math.max(1, Math.min(l, (m + 1) / 2));
    }
}
