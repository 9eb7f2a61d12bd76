package io.msgscope.analysis.stats;

import java.util.Arrays;

/**
 * What the samples of one measurement say across its length (issue 27): the run cut into {@link #BLOCKS}
 * consecutive blocks of equal sample count (the last takes the remainder). A median's 95 % interval describes the
 * noise of the samples around one level; a system whose level drifts (RabbitMQ's regime shifts) moves more between
 * runs than that. The blocks show the drift:
 * <ul>
 *   <li><b>the delivered rate and its interval</b>, by batch means: each block's messages C_b over its time S_b, the
 *       whole run's R = ΣC/ΣS (messages delivered / period), and the ratio estimator's standard error
 *       se = √(Σ(C_b − R·S_b)² / (k(k − 1))) / S̄, the interval R ± t(0.975, k − 1)·se. Blocks much longer than the
 *       samples' correlation are nearly independent, so drift within the run widens it;</li>
 *   <li><b>the block medians</b> (their range is where a single block's median fell), and <b>where another run's
 *       median is expected</b>: the run's median ± t(0.975, k − 1)·s·√(2/k · (1 + ρ)/(1 − ρ)), s the standard deviation of
 *       the block medians — the run's median is about the mean of its k block medians (variance σ²/k), another run's
 *       too, and their difference has variance 2σ²/k — widened by ρ, the block medians' lag-1 autocorrelation plus
 *       1/k (its bias), within [0, 0.6], for a level that carries over from one block into the next. It assumes the
 *       next run meets the drift this one met, no more.</li>
 * </ul>
 * Fewer than {@link #MIN_SAMPLES} samples give no blocks ({@link #NONE}).
 *
 * @param blocks              the number of blocks (0 when not computed)
 * @param blockMedians        each block's lower median, in order
 * @param nextRunMedianLow    the lower end of where another run's median is expected
 * @param nextRunMedianHigh   its upper end
 * @param blockMedianSd       the sample standard deviation of the block medians
 * @param blockLag1           the neighbouring blocks' correlation the interval was widened for, in [0, 0.6]
 * @param deliveredRate       messages / time over all the samples, NaN without the samples' spans
 * @param deliveredLow        the lower end of its 95 % interval (batch means), NaN without spans
 * @param deliveredHigh       the upper end
 * @param blockRates          each block's messages over its time, in order; empty without spans
 */
public record BlockSpread(int blocks, double[] blockMedians, double nextRunMedianLow, double nextRunMedianHigh,
                          double blockMedianSd, double blockLag1, double deliveredRate, double deliveredLow, double deliveredHigh,
                          double[] blockRates) {

    /** Blocks per measurement: enough for a standard deviation, few enough for each to span the drift. */
    public static final int BLOCKS = 10;
    /** Below this many samples (two per block) no blocks are formed. */
    public static final int MIN_SAMPLES = 2 * BLOCKS;
    /** Student's t, 97.5 % quantile, 9 degrees of freedom (k − 1 for k = 10 blocks). */
    public static final double T_975_9 = 2.2621571627982;

    public static final BlockSpread NONE = new BlockSpread(0, new double[0], Double.NaN, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN, Double.NaN, Double.NaN, new double[0]);
    /** The most correlation between neighbouring blocks the interval is widened for. */
    public static final double MAX_BLOCK_LAG1 = 0.6;

    /**
     * The lag-1 autocorrelation of the block medians, plus 1/k (the downward bias of a lag-1 estimate from k values),
     * within [0, {@link #MAX_BLOCK_LAG1}]: a level that dwells for a good part of a block carries over into the next.
     */
    static double inflationLag1(double[] m) {
        double mean = Arrays.stream(m).average().orElse(Double.NaN);
        double num = 0;
        double den = 0;
        for (int i = 0; i < m.length; i++) {
            den += (m[i] - mean) * (m[i] - mean);
            if (i > 0) {
                num += (m[i] - mean) * (m[i - 1] - mean);
            }
        }
        double r = den > 0 ? num / den + 1.0 / m.length : 0;
        return Math.max(0, Math.min(MAX_BLOCK_LAG1, r));
    }

    /**
     * @param ratesInOrder the samples (messages per second), in the order taken
     * @param spansNs      each sample's span in ns, or null (or a different length) when not known
     */
    public static BlockSpread of(double[] ratesInOrder, long[] spansNs) {
        int n = ratesInOrder.length;
        if (n < MIN_SAMPLES) {
            return NONE;
        }
        int per = n / BLOCKS;
        double[] medians = new double[BLOCKS];
        for (int b = 0; b < BLOCKS; b++) {
            medians[b] = Stationarity.lowerMedian(ratesInOrder, b * per, b == BLOCKS - 1 ? n : (b + 1) * per);
        }
        double[] sorted = ratesInOrder.clone();
        Arrays.sort(sorted);
        double median = sorted[(n - 1) / 2];
        double sd = sd(medians);
        double rho = inflationLag1(medians);
        double half = T_975_9 * sd * Math.sqrt(2.0 / BLOCKS * (1 + rho) / (1 - rho));
        if (spansNs == null || spansNs.length != n) {
            return new BlockSpread(BLOCKS, medians, median - half, median + half, sd, rho, Double.NaN, Double.NaN,
                    Double.NaN, new double[0]);
        }
        double[] c = new double[BLOCKS];
        double[] s = new double[BLOCKS];
        for (int i = 0; i < n; i++) {
            int b = Math.min(BLOCKS - 1, i / per);
            c[b] += ratesInOrder[i] * spansNs[i] / 1e9; // the sample's messages: rate x span
            s[b] += spansNs[i] / 1e9;
        }
        double sumC = 0;
        double sumS = 0;
        double[] rates = new double[BLOCKS];
        for (int b = 0; b < BLOCKS; b++) {
            sumC += c[b];
            sumS += s[b];
            rates[b] = s[b] > 0 ? c[b] / s[b] : Double.NaN;
        }
        double r = sumS > 0 ? sumC / sumS : Double.NaN;
        double ss = 0;
        for (int b = 0; b < BLOCKS; b++) {
            ss += (c[b] - r * s[b]) * (c[b] - r * s[b]);
        }
        double se = Math.sqrt(ss / (BLOCKS * (BLOCKS - 1.0))) / (sumS / BLOCKS);
        return new BlockSpread(BLOCKS, medians, median - half, median + half, sd, rho, r, r - T_975_9 * se,
                r + T_975_9 * se, rates);
    }

    /** True when blocks were formed. */
    public boolean computed() {
        return blocks > 0;
    }

    /** The smallest block median (NaN when none). */
    public double blockMedianMin() {
        return Arrays.stream(blockMedians).min().orElse(Double.NaN);
    }

    /** The largest block median (NaN when none). */
    public double blockMedianMax() {
        return Arrays.stream(blockMedians).max().orElse(Double.NaN);
    }

    private static double sd(double[] v) {
        double mean = Arrays.stream(v).average().orElse(Double.NaN);
        double sq = 0;
        for (double x : v) {
            sq += (x - mean) * (x - mean);
        }
        return Math.sqrt(sq / (v.length - 1));
    }
}
