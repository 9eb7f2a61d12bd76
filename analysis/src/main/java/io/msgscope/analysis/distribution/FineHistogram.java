package io.msgscope.analysis.distribution;

/**
 * The two passes of {@link Humpiness} over the values: their count and range, then a fine histogram of
 * {@value Humpiness#FINE_BINS} bins of y = ln(x + c) (or y = x) over [min y, max y] and the power sums of
 * y around a typical value, for the moments. Nothing is sorted or copied.
 */
final class FineHistogram {
    /** Values present (NaN skipped). */
    final long m;
    final double min;
    final double max;
    /** Whether y is ln(x + c). */
    final boolean log;
    /** The shift that makes every value positive on the log scale (0 when they all are). */
    final double c;
    final double ymin;
    /** Whether every present value has the same y. */
    final boolean constant;
    final int[] bins;
    final double width;
    /** Power sums of d = y − shift, shift the y of a typical value. */
    final double s1;
    final double s2;
    final double s3;
    final double s4;

    FineHistogram(HumpinessSource src, boolean log) {
        final int size = src.n;
        long count = 0;
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < size; i++) {
            double x = src.get(i);
            if (x == x) {
                count++;
                if (x < lo) {
                    lo = x;
                }
                if (x > hi) {
                    hi = x;
                }
            }
        }
        this.m = count;
        this.min = lo;
        this.max = hi;
        this.log = log;
        this.c = !log || min > 0 ? 0 : -min + Math.max(1e-3 * (max - min), Double.MIN_NORMAL);
        this.ymin = log ? Math.log(min + c) : min;
        final double ymax = log ? Math.log(max + c) : max;
        this.constant = m > 0 && !(ymax > ymin);
        boolean empty = constant || m == 0;
        this.bins = empty ? new int[1] : new int[Humpiness.FINE_BINS];
        this.width = empty ? 1 : (ymax - ymin) / Humpiness.FINE_BINS;

        final double fineScale = 1 / width;
        final double shift = m > 0 ? typicalY(src) : 0;
        double p1 = 0;
        double p2 = 0;
        double p3 = 0;
        double p4 = 0;
        final int last = bins.length - 1;
        for (int i = 0; i < size; i++) {
            double x = src.get(i);
            if (x != x) {
                continue;
            }
            double y = log ? Math.log(x + c) : x;
            int b = (int) ((y - ymin) * fineScale);
            if (b > last) {
                b = last;
            } else if (b < 0) {
                b = 0;
            }
            bins[b]++;
            double d = y - shift;
            double d2 = d * d;
            p1 += d;
            p2 += d2;
            p3 += d2 * d;
            p4 += d2 * d2;
        }
        this.s1 = p1;
        this.s2 = p2;
        this.s3 = p3;
        this.s4 = p4;
    }

    /** The y of the middle value, or of the minimum when that one is absent. */
    private double typicalY(HumpinessSource src) {
        double mid = src.get(src.n / 2);
        if (mid != mid) {
            mid = min;
        }
        return log ? Math.log(mid + c) : mid;
    }

    /** The value at analysis-scale position {@code y}, clamped to the values' range. */
    double value(double y) {
        double x = log ? Math.exp(y) - c : y;
        return Math.max(min, Math.min(max, x));
    }

    /** Position of quantile {@code p} on the analysis scale. */
    double quantile(double p) {
        return quantile(bins, m, p, ymin, width);
    }

    /** Sarle's bimodality coefficient of the values on the analysis scale. */
    double bimodalityCoefficient() {
        return bimodalityCoefficient(m, s1, s2, s3, s4);
    }

    /**
     * Sarle's bimodality coefficient from power sums of d = y − shift; NaN when n &lt; 4 or the
     * variance is 0.
     */
    static double bimodalityCoefficient(long n, double s1, double s2, double s3, double s4) {
        if (n < 4) {
            return Double.NaN;
        }
        double mu = s1 / n;
        double e2 = s2 / n;
        double e3 = s3 / n;
        double e4 = s4 / n;
        double mu2 = mu * mu;
        double m2 = e2 - mu2;
        double m3 = e3 - 3 * mu * e2 + 2 * mu * mu2;
        double m4 = e4 - 4 * mu * e3 + 6 * mu2 * e2 - 3 * mu2 * mu2;
        if (!(m2 > 1e-14 * Math.max(e2, Double.MIN_NORMAL))) {
            return Double.NaN;
        }
        double g1 = m3 / Math.pow(m2, 1.5);
        double g2 = m4 / (m2 * m2) - 3;
        double nn = n;
        double skew = g1 * Math.sqrt(nn * (nn - 1)) / (nn - 2);
        double kurt = ((nn + 1) * g2 + 6) * (nn - 1) / ((nn - 2) * (nn - 3));
        return (skew * skew + 1) / (kurt + 3 * (nn - 1) * (nn - 1) / ((nn - 2) * (nn - 3)));
    }

    /** Position of quantile p in a histogram of {@code total} values, interpolated within its bin. */
    static double quantile(int[] bins, long total, double p, double lo, double width) {
        double target = p * total;
        long cumulative = 0;
        for (int b = 0; b < bins.length; b++) {
            long next = cumulative + bins[b];
            if (next >= target && bins[b] > 0) {
                double within = (target - cumulative) / bins[b];
                return lo + (b + within) * width;
            }
            cumulative = next;
        }
        return lo + bins.length * width;
    }
}
