package io.msgscope.analysis.distribution;

/**
 * The kernel density estimate of {@link Humpiness} on the analysis scale: Silverman's bandwidth, the
 * fine bins merged to a grid of spacing ≤ h/4 padded by the kernel's reach on both sides, and their
 * convolution with a Gaussian kernel truncated at ±4h (a binned KDE, O(grid·kernel)).
 */
final class BinnedDensity {

    /** Roughness of the Gaussian kernel, ∫K² = 1/(2√π). */
    private static final double KERNEL_ROUGHNESS = 1.0 / (2.0 * Math.sqrt(Math.PI));

    /** Kernel truncated at ± this many bandwidths. */
    private static final double KERNEL_REACH = 4.0;

    /** Grid spacing at most bandwidth / this. */
    private static final double GRID_PER_BANDWIDTH = 4.0;

    /** Bandwidth on the analysis scale. */
    final double h;
    /** Grid spacing on the analysis scale. */
    final double step;
    /** Grid points of padding on each side: the first fine bin lies in grid point {@code reach}. */
    final int reach;
    /** Values per grid point. */
    final long[] counts;
    /** The estimated density per grid point. */
    final double[] f;

    BinnedDensity(FineHistogram fine, double h) {
        this.h = h;
        int merge = Math.max(1, (int) Math.floor(h / GRID_PER_BANDWIDTH / fine.width));
        int gridBins = (Humpiness.FINE_BINS + merge - 1) / merge;
        this.step = merge * fine.width;
        this.reach = Math.max(1, (int) Math.ceil(KERNEL_REACH * h / step));
        int length = gridBins + 2 * reach;
        this.counts = new long[length];
        for (int b = 0; b < Humpiness.FINE_BINS; b++) {
            counts[reach + b / merge] += fine.bins[b];
        }
        double[] kernel = new double[2 * reach + 1];
        double kernelSum = 0;
        for (int j = -reach; j <= reach; j++) {
            double u = j * step / h;
            double w = Math.exp(-0.5 * u * u);
            kernel[j + reach] = w;
            kernelSum += w;
        }
        double norm = 1.0 / (kernelSum * fine.m * step);
        this.f = new double[length];
        for (int i = reach; i < reach + gridBins; i++) {
            long cnt = counts[i];
            if (cnt == 0) {
                continue;
            }
            double a = cnt * norm;
            int base = i - reach;
            for (int k = 0; k < kernel.length; k++) {
                f[base + k] += a * kernel[k];
            }
        }
    }

    /**
     * Silverman's rule of thumb 0.9·min(σ, IQR/1.34)·n^(−1/5) (σ alone when the IQR is 0) times the
     * bandwidth factor, no narrower than the resolution (the larger of the one given and
     * {@code quantum}) and than a fine bin.
     */
    static double bandwidth(FineHistogram fine, Humpiness.Options o, double quantum) {
        long m = fine.m;
        double mean = fine.s1 / m;
        double variance = Math.max(0, fine.s2 / m - mean * mean) * m / (m - 1.0);
        double sigma = Math.sqrt(variance);
        double q1 = fine.quantile(0.25);
        double q3 = fine.quantile(0.75);
        double median = fine.quantile(0.5);
        double iqrSigma = (q3 - q1) / 1.34;
        double spread = iqrSigma > 0 ? Math.min(sigma, iqrSigma) : sigma;
        double h = 0.9 * spread * Math.pow(m, -0.2) * o.bandwidthFactor();
        double resolution = Math.max(o.resolution(), quantum);
        if (resolution > 0) {
            double floor = fine.log ? Math.log1p(resolution / Math.max(Math.exp(median), Double.MIN_NORMAL))
                    : resolution;
            h = Math.max(h, floor);
        }
        if (!(h > fine.width)) {
            h = Math.max(fine.width, h);
        }
        return h;
    }

    /** Variance of the estimate per unit of density, f(y)·R(K)/(n·h) ÷ f(y). */
    double noise(long n) {
        return KERNEL_ROUGHNESS / (n * h);
    }

    /** Analysis-scale position of grid point {@code p} moved by {@code offset} grid steps. */
    double position(FineHistogram fine, int p, double offset) {
        return fine.ymin + (p - reach + 0.5) * step + offset * step;
    }
}
