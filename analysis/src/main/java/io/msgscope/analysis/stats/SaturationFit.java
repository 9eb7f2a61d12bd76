package io.msgscope.analysis.stats;

import java.util.Locale;

/**
 * A saturation curve fitted to throughput measured at several in-flight counts F (issue 17's knee): a closed
 * loop carries F messages per round trip, so throughput rises in proportion to F while the pipe is not full and
 * levels off at the bottleneck's rate once it is. The model is the smooth minimum of those two asymptotes,
 * <pre>
 *     X(F) = P · F / (F^k + F0^k)^(1/k)
 * </pre>
 * with P the plateau (the bottleneck's rate), F0 the F at which the two asymptotes cross — the rising line
 * {@code P·F/F0} and the plateau P; by Little's law F0 = P × the round trip at F = 1, the "knee" of the
 * asymptotic bounds (Lazowska et al., <i>Quantitative System Performance</i>, ch. 5: N* = (D + Z) / D_max) —
 * and k how sharp the corner is (k = 1 a hyperbola, large k the two lines meeting at a point).
 *
 * <p>The fit minimises the weighted absolute error of log X — noise on throughput is multiplicative (a probe
 * 20 % off is as wrong at 10 k msg/s as at 300 k), and a probe disturbed by another job on the box can be off by a
 * factor of 5, which a squared error would let drag the whole curve while an absolute one lets it be (least
 * absolute deviations: the curve follows the weighted median of the points). It searches a grid of k and log F0;
 * for each pair log P has a closed form (the weighted median of the residuals), so the minimum is found without
 * an optimiser and is the same on every machine. The knee it yields — the smallest F at which the curve reaches {@code reach} of its
 * plateau — uses every measured point at once, where a knee read off single probes moves with each probe's
 * noise along a flat curve.
 *
 * @param plateau      P, in the unit of the values (msg/s)
 * @param crossover    F0: where the rising asymptote meets the plateau
 * @param sharpness    k
 * @param typicalLogError the weighted median of the points' distances from the curve, |log10 X − log10 curve|:
 *                     0.02 ≈ half the points within 5 % of the curve
 * @param points       how many points were fitted
 */
public record SaturationFit(double plateau, double crossover, double sharpness, double typicalLogError, int points,
                            double kneeLow, double kneeHigh) {

    /**
     * The sharpness grid (issue 27): from a corner softer than a hyperbola (0.25: the curve still 10 % under its
     * plateau at 2·10^6 × F0) to two lines meeting almost at a point (16), geometric steps. The bound was 1, and every
     * AMQP search landed on it: the knee then came from the bound, not the data. The criterion: neither bound may be
     * where the data put k — {@link #atBound()} says when a fit lands there anyway.
     */
    static final double MIN_SHARPNESS = 0.25;
    static final double MAX_SHARPNESS = 16;
    private static final int SHARPNESS_STEPS = 61;
    /** log10 F0 grid step: 0.2 % in F0. */
    private static final double CROSSOVER_STEP = 0.001;
    /** The first pass's step: 2.3 % in F0. */
    private static final double COARSE_STEP = 0.01;
    /**
     * The bootstrap's coarser grid, through the fit's own k and F0: k times 1.15^j for j = −12..12 (×0.19 to ×5.4,
     * within the bounds), log10 F0 in steps of 0.03 (7 %), no fine pass.
     */
    private static final int BOOT_SHARPNESS_STEPS = 12;
    private static final double BOOT_SHARPNESS_RATIO = 1.15;
    private static final double BOOT_STEP = 0.03;
    /** Refits of the knee's bootstrap. */
    public static final int BOOT_REPLICATES = 200;

    /** A fit without a knee interval. */
    public SaturationFit(double plateau, double crossover, double sharpness, double typicalLogError, int points) {
        this(plateau, crossover, sharpness, typicalLogError, points, Double.NaN, Double.NaN);
    }

    /** True when k lies on the grid's lowest or highest value: the data did not fix the corner within the family. */
    public boolean atBound() {
        return sharpness <= MIN_SHARPNESS * 1.0001 || sharpness >= MAX_SHARPNESS * 0.9999;
    }

    /** The curve at F. */
    public double at(double f) {
        return plateau * Math.exp(logShape(Math.log(f), Math.log(crossover), sharpness));
    }

    /**
     * The smallest F at which the curve reaches {@code reach} (0 &lt; reach &lt; 1) of its plateau:
     * {@code F0 · r / (1 − r^k)^(1/k)}.
     */
    public double kneeAt(double reach) {
        if (!(reach > 0 && reach < 1)) {
            throw new IllegalArgumentException("reach must lie in (0, 1), got " + reach);
        }
        return crossover * reach / Math.pow(1 - Math.pow(reach, sharpness), 1 / sharpness);
    }

    /** The model in words with its fitted values, for summary.json. */
    public String describe() {
        return String.format(Locale.ROOT, "X(F) = P * F / (F^k + F0^k)^(1/k), least absolute deviations on log X: P = %.1f msg/s, "
                + "F0 = %.1f, k = %.2f, half the points within %.1f%% of it", plateau, crossover, sharpness,
                typicalErrorPercent());
    }

    /** The typical (median) distance of a point from the curve, in per cent ({@code 10^typicalLogError − 1}). */
    public double typicalErrorPercent() {
        return 100 * (Math.pow(10, typicalLogError) - 1);
    }

    /**
     * Fits the curve.
     *
     * @param f       the in-flight counts, each at least 1
     * @param x       the throughput measured at each (positive)
     * @param weight  how much each point counts (e.g. how many probes it pools), positive
     * @return the fit, or null with fewer than 3 points (three parameters)
     */
    public static SaturationFit fit(double[] f, double[] x, double[] weight) {
        int n = f.length;
        if (x.length != n || weight.length != n) {
            throw new IllegalArgumentException("f, x and weight must have the same length");
        }
        if (n < 3) {
            return null;
        }
        double[] lf = new double[n];
        double[] lx = new double[n];
        double wsum = 0;
        double minLf = Double.POSITIVE_INFINITY;
        double maxLf = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            if (!(f[i] >= 1) || !(x[i] > 0) || !(weight[i] > 0)) {
                throw new IllegalArgumentException("point " + i + ": F >= 1, throughput > 0 and weight > 0 required");
            }
            lf[i] = Math.log(f[i]);
            lx[i] = Math.log(x[i]);
            wsum += weight[i];
            minLf = Math.min(minLf, lf[i]);
            maxLf = Math.max(maxLf, lf[i]);
        }
        // F0 from a decade below the smallest F (all points on the plateau) to a decade above the largest (none)
        double lo = minLf / Math.log(10) - 1;
        double hi = maxLf / Math.log(10) + 1;
        // a coarse pass over the whole grid of log F0, then a fine one around its best: the error is smooth in log F0
        Grid coarse = search(lf, lx, weight, wsum, lo, hi, COARSE_STEP, SHARPNESS_STEPS, null);
        Grid best = search(lf, lx, weight, wsum, coarse.logF0 - 2 * COARSE_STEP, coarse.logF0 + 2 * COARSE_STEP,
                CROSSOVER_STEP, SHARPNESS_STEPS, coarse);
        double[] distance = new double[n];
        for (int i = 0; i < n; i++) {
            distance[i] = Math.abs(lx[i] - logShape(lf[i], best.logF0 * Math.log(10), best.k) - best.logP) / Math.log(10);
        }
        return new SaturationFit(Math.exp(best.logP), Math.exp(best.logF0 * Math.log(10)), best.k,
                weightedMedian(distance, weight, wsum), n);
    }

    /**
     * This fit with a 95 % interval for its knee (the F reaching {@code reach} of the plateau), by a bootstrap of the
     * residuals: {@link #BOOT_REPLICATES} times, each point's log residual from the curve is replaced by one drawn
     * at random from all of them, the curve refitted on a coarser grid, and its knee kept; the interval is their 2.5th
     * and 97.5th percentiles. A soft corner fixes the knee poorly and gets a wide interval; a sharp one, a narrow one.
     *
     * @param f, x, weight the points this fit was fitted to
     * @param seed        the random draws' seed: the same points give the same interval
     */
    public SaturationFit withKneeInterval(double[] f, double[] x, double[] weight, double reach, long seed) {
        int n = f.length;
        double[] curve = new double[n];
        double[] residual = new double[n];
        double wsum = 0;
        double minLf = Double.POSITIVE_INFINITY;
        double maxLf = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            curve[i] = Math.log(at(f[i]));
            residual[i] = Math.log(x[i]) - curve[i];
            wsum += weight[i];
            minLf = Math.min(minLf, Math.log(f[i]));
            maxLf = Math.max(maxLf, Math.log(f[i]));
        }
        // a coarser grid through this fit's own k and F0 (a grid that missed them would bias every refit), over the
        // same range of F0; its shapes do not depend on the data: computed once, each refit only subtracts and sorts
        double fitted = Math.log10(crossover);
        double lo = fitted - Math.ceil((fitted - (minLf / Math.log(10) - 1)) / BOOT_STEP) * BOOT_STEP;
        int steps = (int) Math.ceil((maxLf / Math.log(10) + 1 - lo) / BOOT_STEP);
        double[] ks = java.util.stream.IntStream.rangeClosed(-BOOT_SHARPNESS_STEPS, BOOT_SHARPNESS_STEPS)
                .mapToDouble(j -> sharpness * Math.pow(BOOT_SHARPNESS_RATIO, j))
                .filter(k -> k >= MIN_SHARPNESS * 0.9999 && k <= MAX_SHARPNESS * 1.0001).toArray();
        double[][] shape = new double[ks.length * (steps + 1)][n];
        for (int s = 0; s < ks.length; s++) {
            for (int j = 0; j <= steps; j++) {
                for (int i = 0; i < n; i++) {
                    shape[s * (steps + 1) + j][i] = logShape(Math.log(f[i]), (lo + j * BOOT_STEP) * Math.log(10), ks[s]);
                }
            }
        }
        double[] pool = residualPool(residual);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        double[] knees = new double[BOOT_REPLICATES];
        double[] lx = new double[n];
        double[] r = new double[n];
        double[] sortedR = new double[n];
        double[] sortedW = new double[n];
        for (int b = 0; b < BOOT_REPLICATES; b++) {
            for (int i = 0; i < n; i++) {
                lx[i] = curve[i] + pool[rnd.nextInt(pool.length)];
            }
            double bestErr = Double.POSITIVE_INFINITY;
            int best = 0;
            for (int g = 0; g < shape.length; g++) {
                for (int i = 0; i < n; i++) {
                    r[i] = lx[i] - shape[g][i];
                }
                double logP = weightedMedianInPlace(r, weight, wsum, sortedR, sortedW);
                double err = 0;
                for (int i = 0; i < n; i++) {
                    err += weight[i] * Math.abs(r[i] - logP);
                }
                if (err < bestErr - 1e-15) {
                    bestErr = err;
                    best = g;
                }
            }
            double f0 = Math.pow(10, lo + (best % (steps + 1)) * BOOT_STEP);
            knees[b] = new SaturationFit(1, f0, ks[best / (steps + 1)], 0, n).kneeAt(reach);
        }
        java.util.Arrays.sort(knees);
        double qlo = knees[(int) Math.floor(0.025 * (BOOT_REPLICATES - 1))];
        double qhi = knees[(int) Math.ceil(0.975 * (BOOT_REPLICATES - 1))];
        return new SaturationFit(plateau, crossover, sharpness, typicalLogError, points, qlo, qhi);
    }

    /**
     * The residuals a bootstrap replicate draws from (issue 27): a least-absolute-deviations fit of three parameters
     * passes exactly through (about) three points, so three residuals are 0 and the rest are smaller than the noise
     * around the true curve; drawn as they are, they make replicates too alike and the interval too short (the soft
     * curve's true knee was inside 86 of 100 searches, the sharp one's 87). The zeros are left out and the others
     * scaled by {@code sqrt(n / (n - 3))}, the usual correction for three fitted parameters (then 95 and 91 of 100).
     */
    static double[] residualPool(double[] residual) {
        int n = residual.length;
        double[] nz = java.util.Arrays.stream(residual).filter(r -> Math.abs(r) > 1e-12).toArray();
        if (nz.length < 2) {
            return residual;
        }
        double scale = Math.sqrt((double) n / Math.max(1, n - 3));
        for (int i = 0; i < nz.length; i++) {
            nz[i] *= scale;
        }
        return nz;
    }

    /** The weighted median of {@link #weightedMedian}, by insertion sort into scratch arrays (a few dozen values). */
    private static double weightedMedianInPlace(double[] values, double[] weight, double wsum, double[] v, double[] w) {
        int n = values.length;
        for (int i = 0; i < n; i++) {
            double x = values[i];
            double wx = weight[i];
            int j = i - 1;
            while (j >= 0 && v[j] > x) {
                v[j + 1] = v[j];
                w[j + 1] = w[j];
                j--;
            }
            v[j + 1] = x;
            w[j + 1] = wx;
        }
        double acc = 0;
        for (int i = 0; i < n; i++) {
            acc += w[i];
            if (acc >= wsum / 2) {
                return v[i];
            }
        }
        return v[n - 1];
    }

    /** The best point of one pass: log10 F0, k, the natural log of P and the weighted absolute error. */
    private record Grid(double logF0, double k, double logP, double err) {
    }

    /** Every k of the grid and log10 F0 from {@code lo} to {@code hi} in {@code step}; {@code start} to beat, or null. */
    private static Grid search(double[] lf, double[] lx, double[] weight, double wsum, double lo, double hi, double step,
                               int kSteps, Grid start) {
        int n = lf.length;
        Grid best = start;
        double[] shape = new double[n];
        double[] residual = new double[n];
        int steps = (int) Math.round((hi - lo) / step);
        for (int s = 0; s < kSteps; s++) {
            double k = MIN_SHARPNESS * Math.pow(MAX_SHARPNESS / MIN_SHARPNESS, s / (double) (kSteps - 1));
            for (int j = 0; j <= steps; j++) {
                double u = lo + j * step;
                double lf0 = u * Math.log(10);
                for (int i = 0; i < n; i++) {
                    shape[i] = logShape(lf[i], lf0, k);
                    residual[i] = lx[i] - shape[i];
                }
                double logP = weightedMedian(residual, weight, wsum);
                double err = 0;
                for (int i = 0; i < n; i++) {
                    err += weight[i] * Math.abs(residual[i] - logP);
                }
                if (best == null || err < best.err - 1e-15) {
                    best = new Grid(u, k, logP, err);
                }
            }
        }
        return best;
    }

    /**
     * The weighted median: the smallest value at which the weights of the values up to it reach half the total
     * (the point that minimises the weighted sum of absolute distances).
     */
    static double weightedMedian(double[] values, double[] weight, double wsum) {
        int n = values.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> Double.compare(values[a], values[b]));
        double acc = 0;
        for (int i = 0; i < n; i++) {
            acc += weight[order[i]];
            if (acc >= wsum / 2) {
                return values[order[i]];
            }
        }
        return values[order[n - 1]];
    }

    /** log(F / (F^k + F0^k)^(1/k)) from log F and log F0, without overflow: log F − logsumexp(k·lf, k·lf0) / k. */
    private static double logShape(double lf, double lf0, double k) {
        double a = k * lf;
        double b = k * lf0;
        double m = Math.max(a, b);
        return lf - (m + Math.log(Math.exp(a - m) + Math.exp(b - m))) / k;
    }
}
