package io.msgscope.analysis.dist;

import io.msgscope.analysis.Trace;
import io.msgscope.analysis.output.HumanFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.DoubleFunction;

/**
 * The automatic "humpiness" (multi-modality) metric of M8: does the series oscillate around
 * several centres, where, and with what share of the messages?
 *
 * <h2>Method: mode count of a kernel density estimate on log values</h2>
 * <ol>
 *   <li><b>Scale.</b> Latency is right-skewed: a long tail that is perfectly unimodal on a log
 *       axis shows up on a linear axis as a slowly decaying, noisy tail where a fixed bandwidth
 *       creates spurious bumps. The density is therefore estimated for y = ln(x + c), with c = 0
 *       when all values are positive and otherwise c = −min + 10⁻³·(max − min) (zeros, e.g.
 *       clamped negative latencies, then sit far left instead of at −∞).
 *       {@link Options#logScale()} = false estimates on the values themselves (for series that
 *       are not skewed).</li>
 *   <li><b>Binning.</b> One pass over the values fills a fine histogram of
 *       {@value #FINE_BINS} bins over [min y, max y] and accumulates the power sums for the
 *       moments; nothing is sorted and nothing is copied, so the cost is O(n) plus a cost that
 *       does not depend on n (10⁷ values take well under a second).</li>
 *   <li><b>Bandwidth.</b> Silverman's rule of thumb h = 0.9·min(σ, IQR/1.34)·n^(−1/5) (σ and the
 *       quartiles from the fine histogram; σ alone when the IQR is 0), times
 *       {@link Options#bandwidthFactor()}, and never below the measuring resolution (the clock
 *       granularity: {@link Options#resolution()}, or for long values the GCD of the differences
 *       among the first {@value #QUANTUM_SAMPLE} values when it exceeds 1), so that a quantised
 *       series does not look like a comb; on the log scale the floor is ln(1 + q/median). The IQR term
 *       keeps h small when a small far hump inflates σ, which is exactly the case to detect.</li>
 *   <li><b>Density.</b> The fine bins are merged to a grid of spacing ≤ h/4 and convolved with
 *       a Gaussian kernel truncated at ±4h (a binned KDE, O(grid·kernel)).</li>
 *   <li><b>Bumps and their significance.</b> Every local maximum of the estimate gets its
 *       topographic prominence (= 0-dimensional persistence: its height above the highest
 *       saddle that separates it from a higher peak), computed by a union-find sweep from the
 *       top down. A bump is real when its prominence is at least {@link Options#minZ()} standard
 *       errors of the estimate — var f̂(y) ≈ f(y)·R(K)/(n·h) with R(K) = 1/(2√π), summed over
 *       the peak and its saddle — and at least {@link Options#minDepth()} of its own height
 *       (so a shoulder is not a mode). The highest peak is always real.</li>
 *   <li><b>Shares.</b> The real bumps cut the axis into basins at the lowest point between
 *       neighbours; a bump's share is the fraction of values binned into its basin. Bumps with at
 *       least {@link Options#minShare()} of the values (default 1 %) are the modes; smaller
 *       real bumps are reported as minor bumps and their values belong to no mode.</li>
 * </ol>
 * Defaults: log scale, minShare 1 %, minZ 4, minDepth 5 %, bandwidth factor 1, no resolution
 * floor beyond the detected granularity. The seed's hump (160 of 10,000 messages near 340 µs
 * next to 9,765 near 150 µs) is a mode (1.6 %); a cluster of 75 near 250 µs is a minor bump; a
 * lognormal tail (σ = 0.8) is one mode.
 *
 * <h2>Secondary number: Sarle's bimodality coefficient</h2>
 * b = (G₁² + 1) / (G₂ + 3(n−1)²/((n−2)(n−3))) with the sample-size adjusted skewness G₁ and
 * excess kurtosis G₂, computed on the same scale as the density (log by default: on the raw scale
 * a lognormal's skewness alone pushes b over 5/9). b &gt; 5/9 hints at bimodality, but b also
 * rises for one-sided outliers, which is why the mode count is the verdict.
 *
 * <p>At least {@value #MIN_VALUES} values are needed; fewer give the verdict "too few values".
 */
public final class Humpiness {

    /** Fewest values for which modes are estimated. */
    public static final int MIN_VALUES = 10;

    /** Bins of the fine histogram built in the single pass over the values. */
    public static final int FINE_BINS = 1 << 16;

    /** Roughness of the Gaussian kernel, ∫K² = 1/(2√π). */
    private static final double KERNEL_ROUGHNESS = 1.0 / (2.0 * Math.sqrt(Math.PI));

    /** Kernel truncated at ± this many bandwidths. */
    private static final double KERNEL_REACH = 4.0;

    /** Grid spacing at most bandwidth / this. */
    private static final double GRID_PER_BANDWIDTH = 4.0;

    /**
     * Tuning of the metric.
     *
     * @param logScale estimate the density of ln(x + c) (default) instead of x
     * @param minShare smallest fraction of the values a bump must hold to count as a mode (0.01)
     * @param minZ smallest prominence of a bump in standard errors of the estimate (4)
     * @param minDepth smallest prominence as a fraction of the bump's height (0.05)
     * @param bandwidthFactor multiplies Silverman's bandwidth (1)
     * @param resolution measuring resolution in the unit of the values, a floor for the
     *     bandwidth (0 = none given; long values are still checked for a common granularity)
     */
    public record Options(boolean logScale, double minShare, double minZ, double minDepth,
            double bandwidthFactor, double resolution) {

        public Options {
            if (!(minShare >= 0 && minShare < 1)) {
                throw new IllegalArgumentException("minShare must be in [0, 1), was " + minShare);
            }
            if (!(minZ >= 0) || Double.isInfinite(minZ)) {
                throw new IllegalArgumentException("minZ must be a non-negative number, was " + minZ);
            }
            if (!(minDepth >= 0 && minDepth < 1)) {
                throw new IllegalArgumentException("minDepth must be in [0, 1), was " + minDepth);
            }
            if (!(bandwidthFactor > 0) || Double.isInfinite(bandwidthFactor)) {
                throw new IllegalArgumentException("bandwidthFactor must be positive, was " + bandwidthFactor);
            }
            if (!(resolution >= 0) || Double.isInfinite(resolution)) {
                throw new IllegalArgumentException("resolution must be >= 0, was " + resolution);
            }
        }

        /** The documented defaults. */
        public static Options defaults() {
            return new Options(true, 0.01, 4.0, 0.05, 1.0, 0.0);
        }

        public Options withLogScale(boolean log) {
            return new Options(log, minShare, minZ, minDepth, bandwidthFactor, resolution);
        }

        public Options withMinShare(double share) {
            return new Options(logScale, share, minZ, minDepth, bandwidthFactor, resolution);
        }

        public Options withResolution(double r) {
            return new Options(logScale, minShare, minZ, minDepth, bandwidthFactor, r);
        }

        public Options withBandwidthFactor(double f) {
            return new Options(logScale, minShare, minZ, minDepth, f, resolution);
        }
    }

    private Humpiness() {
    }

    /**
     * Humpiness of per-message latencies in ns ({@code latencyNs[0, n)}, {@link Trace#ABSENT}
     * skipped) with the default options; positions in ns, the verdict in µs/ms.
     */
    public static HumpinessResult ofNanos(long[] latencyNs, int n) {
        return ofNanos(latencyNs, n, Options.defaults());
    }

    /** As {@link #ofNanos(long[], int)} with {@code options}. */
    public static HumpinessResult ofNanos(long[] latencyNs, int n, Options options) {
        checkPrefix(latencyNs.length, n);
        return analyse(new LongSource(latencyNs, n), options, HumanFormat::duration);
    }

    /**
     * Humpiness of {@code values[0, n)} (NaN and infinities skipped) with the default options;
     * positions in the unit of the values, {@code unit} (may be empty) only for the verdict.
     */
    public static HumpinessResult of(double[] values, int n, String unit) {
        return of(values, n, unit, Options.defaults());
    }

    /** As {@link #of(double[], int, String)} with {@code options}. */
    public static HumpinessResult of(double[] values, int n, String unit, Options options) {
        checkPrefix(values.length, n);
        String suffix = unit == null || unit.isBlank() ? "" : " " + unit.strip();
        return analyse(new DoubleSource(values, n), options, v -> Num.threeFigures(v) + suffix);
    }

    /** Present values sampled to detect the granularity of long values. */
    static final int QUANTUM_SAMPLE = 1 << 16;

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    private static void checkPrefix(int length, int n) {
        if (n < 0 || n > length) {
            throw new IllegalArgumentException("prefix length " + n + " outside [0, " + length + "]");
        }
    }

    /** Values by index; NaN means "skip". */
    private abstract static class Source {
        final int n;

        Source(int n) {
            this.n = n;
        }

        abstract double get(int i);

        /** Granularity of the values if they are known to be quantised, else 0. */
        double quantum() {
            return 0;
        }
    }

    private static final class LongSource extends Source {
        private final long[] values;

        LongSource(long[] values, int n) {
            super(n);
            this.values = values;
        }

        @Override
        double get(int i) {
            long v = values[i];
            return v == Trace.ABSENT ? Double.NaN : (double) v;
        }

        /** GCD of the differences between the first {@value #QUANTUM_SAMPLE} present values. */
        @Override
        double quantum() {
            long first = 0;
            boolean seen = false;
            long g = 0;
            int sampled = 0;
            for (int i = 0; i < n && sampled < QUANTUM_SAMPLE; i++) {
                long v = values[i];
                if (v == Trace.ABSENT) {
                    continue;
                }
                sampled++;
                if (!seen) {
                    first = v;
                    seen = true;
                    continue;
                }
                long d = Math.abs(v - first);
                if (d < 0) {
                    return 0; // overflow: no meaningful quantum
                }
                g = gcd(g, d);
                if (g == 1) {
                    return 0;
                }
            }
            return g > 1 ? g : 0;
        }
    }

    private static final class DoubleSource extends Source {
        private final double[] values;

        DoubleSource(double[] values, int n) {
            super(n);
            this.values = values;
        }

        @Override
        double get(int i) {
            double v = values[i];
            return Double.isInfinite(v) ? Double.NaN : v;
        }
    }

    private static HumpinessResult analyse(Source src, Options o, DoubleFunction<String> fmt) {
        // Pass 0: count, min, max of the raw values.
        final int size = src.n;
        long m = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < size; i++) {
            double x = src.get(i);
            if (x == x) {
                m++;
                if (x < min) {
                    min = x;
                }
                if (x > max) {
                    max = x;
                }
            }
        }
        final boolean log = o.logScale();
        final double c = !log || min > 0 ? 0 : -min + Math.max(1e-3 * (max - min), Double.MIN_NORMAL);
        final double ymin = log ? Math.log(min + c) : min;
        final double ymax = log ? Math.log(max + c) : max;
        boolean constant = m > 0 && !(ymax > ymin);

        // Pass 1: fine histogram of y and power sums around a typical value (for the moments).
        int[] fine = constant || m == 0 ? new int[1] : new int[FINE_BINS];
        double fineWidth = constant || m == 0 ? 1 : (ymax - ymin) / FINE_BINS;
        double fineScale = 1 / fineWidth;
        double shift = 0;
        if (m > 0) {
            double mid = src.get(size / 2);
            if (mid != mid) {
                mid = min;
            }
            shift = log ? Math.log(mid + c) : mid;
        }
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        double s4 = 0;
        final int last = fine.length - 1;
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
            fine[b]++;
            double d = y - shift;
            double d2 = d * d;
            s1 += d;
            s2 += d2;
            s3 += d2 * d;
            s4 += d2 * d2;
        }
        double bc = bimodalityCoefficient(m, s1, s2, s3, s4);

        if (m < MIN_VALUES) {
            return new HumpinessResult(m, 0, List.of(), List.of(), bc, Double.NaN, log,
                    "too few values: n = " + m + ", at least " + MIN_VALUES + " needed");
        }
        if (constant) {
            HumpinessResult.Mode mode = new HumpinessResult.Mode(min, Double.NaN, 1.0);
            return new HumpinessResult(m, 1, List.of(mode), List.of(), Double.NaN, Double.NaN, log,
                    "unimodal: all " + HumanFormat.count(m) + " values equal " + fmt.apply(min));
        }

        // Bandwidth (Silverman) on the analysis scale.
        double mean = s1 / m;
        double variance = Math.max(0, s2 / m - mean * mean) * m / (m - 1.0);
        double sigma = Math.sqrt(variance);
        double q1 = quantile(fine, m, 0.25, ymin, fineWidth);
        double q3 = quantile(fine, m, 0.75, ymin, fineWidth);
        double median = quantile(fine, m, 0.5, ymin, fineWidth);
        double iqrSigma = (q3 - q1) / 1.34;
        double spread = iqrSigma > 0 ? Math.min(sigma, iqrSigma) : sigma;
        double h = 0.9 * spread * Math.pow(m, -0.2) * o.bandwidthFactor();
        double resolution = Math.max(o.resolution(), src.quantum());
        if (resolution > 0) {
            double floor = log ? Math.log1p(resolution / Math.max(Math.exp(median), Double.MIN_NORMAL))
                    : resolution;
            h = Math.max(h, floor);
        }
        if (!(h > fineWidth)) {
            h = Math.max(fineWidth, h);
        }

        // Grid of spacing <= h/4 by merging fine bins, padded by the kernel reach on both sides.
        int merge = Math.max(1, (int) Math.floor(h / GRID_PER_BANDWIDTH / fineWidth));
        int gridBins = (FINE_BINS + merge - 1) / merge;
        double step = merge * fineWidth;
        int reach = Math.max(1, (int) Math.ceil(KERNEL_REACH * h / step));
        int length = gridBins + 2 * reach;
        long[] counts = new long[length];
        for (int b = 0; b < FINE_BINS; b++) {
            counts[reach + b / merge] += fine[b];
        }
        double[] kernel = new double[2 * reach + 1];
        double kernelSum = 0;
        for (int j = -reach; j <= reach; j++) {
            double u = j * step / h;
            double w = Math.exp(-0.5 * u * u);
            kernel[j + reach] = w;
            kernelSum += w;
        }
        double norm = 1.0 / (kernelSum * m * step);
        double[] f = new double[length];
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

        // Bumps, their prominence (persistence) and significance.
        int[] saddle = persistence(f);
        double noise = KERNEL_ROUGHNESS / (m * h);
        int globalPeak = argMax(f);
        List<Integer> real = new ArrayList<>();
        for (int p = 0; p < length; p++) {
            if (saddle[p] == NOT_A_PEAK) {
                continue;
            }
            if (p == globalPeak) {
                real.add(p);
                continue;
            }
            double top = f[p];
            double low = f[saddle[p]];
            double prominence = top - low;
            if (!(prominence > 0)) {
                continue;
            }
            double z = prominence / Math.sqrt((top + low) * noise);
            if (z >= o.minZ() && prominence >= o.minDepth() * top) {
                real.add(p);
            }
        }
        // real is in ascending position (p ascending)

        // Basins between real bumps, cut at the lowest point between neighbours.
        int bumps = real.size();
        int[] cut = new int[bumps + 1];
        cut[0] = 0;
        cut[bumps] = length;
        for (int k = 1; k < bumps; k++) {
            int a = real.get(k - 1);
            int b = real.get(k);
            int lowest = a + 1;
            for (int i = a + 1; i < b; i++) {
                if (f[i] < f[lowest]) {
                    lowest = i;
                }
            }
            cut[k] = lowest;
        }
        List<HumpinessResult.Mode> modes = new ArrayList<>();
        List<HumpinessResult.Mode> minor = new ArrayList<>();
        HumpinessResult.Mode[] all = new HumpinessResult.Mode[bumps];
        int biggest = 0;
        for (int k = 0; k < bumps; k++) {
            long inBasin = 0;
            for (int i = cut[k]; i < cut[k + 1]; i++) {
                inBasin += counts[i];
            }
            int p = real.get(k);
            double y = ymin + (p - reach + 0.5) * step + refine(f, p) * step;
            double x = log ? Math.exp(y) - c : y;
            x = Math.max(min, Math.min(max, x));
            if (log && Math.abs(x) <= (x + c) * step) {
                x = 0; // a cluster at zero (clamped latencies): within one grid step of it
            }
            double height = log ? f[p] / (x + c) : f[p];
            all[k] = new HumpinessResult.Mode(x, height, (double) inBasin / m);
            if (all[k].share() > all[biggest].share()) {
                biggest = k;
            }
        }
        for (int k = 0; k < bumps; k++) {
            if (all[k].share() >= o.minShare() || k == biggest) {
                modes.add(all[k]);
            } else {
                minor.add(all[k]);
            }
        }
        return new HumpinessResult(m, modes.size(), modes, minor, bc, h, log,
                verdict(modes, minor, o, fmt));
    }

    static String verdict(List<HumpinessResult.Mode> modes, List<HumpinessResult.Mode> minor, Options o,
            DoubleFunction<String> fmt) {
        StringBuilder v = new StringBuilder(96);
        if (modes.size() == 1) {
            v.append("unimodal: 1 mode at ").append(fmt.apply(modes.get(0).position()));
        } else {
            v.append("multimodal: ").append(modes.size()).append(" modes at ");
            for (int k = 0; k < modes.size(); k++) {
                if (k > 0) {
                    v.append(k == modes.size() - 1 ? " and " : ", ");
                }
                HumpinessResult.Mode mode = modes.get(k);
                v.append(fmt.apply(mode.position())).append(" (").append(Num.threeFigures(100 * mode.share()))
                        .append(" %)");
            }
        }
        if (!minor.isEmpty()) {
            v.append("; ").append(minor.size()).append(minor.size() == 1 ? " minor bump" : " minor bumps")
                    .append(" (under ").append(Num.threeFigures(100 * o.minShare())).append(" % of the values) at ");
            for (int k = 0; k < minor.size(); k++) {
                if (k > 0) {
                    v.append(", ");
                }
                v.append(fmt.apply(minor.get(k).position()));
            }
        }
        return v.toString();
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

    /** Sub-grid offset of a peak (−0.5..0.5 grid steps) from the parabola through it and its neighbours. */
    private static double refine(double[] f, int p) {
        if (p <= 0 || p >= f.length - 1) {
            return 0;
        }
        double a = f[p - 1];
        double b = f[p];
        double d = f[p + 1];
        double denominator = a - 2 * b + d;
        if (!(denominator < 0)) {
            return 0;
        }
        double offset = 0.5 * (a - d) / denominator;
        return Math.max(-0.5, Math.min(0.5, offset));
    }

    private static int argMax(double[] f) {
        int best = 0;
        for (int i = 1; i < f.length; i++) {
            if (f[i] > f[best]) {
                best = i;
            }
        }
        return best;
    }

    /** Marks a grid point that is not a peak in the array returned by {@link #persistence}. */
    static final int NOT_A_PEAK = -2;

    /**
     * Topographic prominence by a top-down union-find sweep: for every local maximum (the first
     * point of a plateau) the index of its key saddle — where its component merges into one with
     * a higher peak — and for the global maximum the index of the global minimum. Every other
     * point maps to {@link #NOT_A_PEAK}.
     */
    static int[] persistence(double[] f) {
        int len = f.length;
        Integer[] order = new Integer[len];
        for (int i = 0; i < len; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            int cmp = Double.compare(f[b], f[a]);
            return cmp != 0 ? cmp : Integer.compare(a, b);
        });
        int[] parent = new int[len];
        int[] peak = new int[len];
        int[] saddle = new int[len];
        Arrays.fill(parent, -1);
        Arrays.fill(saddle, NOT_A_PEAK);
        for (int r = 0; r < len; r++) {
            int i = order[r];
            boolean left = i > 0 && parent[i - 1] >= 0;
            boolean right = i < len - 1 && parent[i + 1] >= 0;
            if (!left && !right) {
                parent[i] = i;
                peak[i] = i;
                saddle[i] = -1; // alive
            } else if (left && right) {
                int rl = find(parent, i - 1);
                int rr = find(parent, i + 1);
                if (rl == rr) {
                    parent[i] = rl;
                    continue;
                }
                int pl = peak[rl];
                int pr = peak[rr];
                boolean leftLower = f[pl] < f[pr] || (f[pl] == f[pr] && pl > pr);
                int lowerRoot = leftLower ? rl : rr;
                int higherRoot = leftLower ? rr : rl;
                saddle[peak[lowerRoot]] = i;
                parent[lowerRoot] = higherRoot;
                parent[i] = higherRoot;
            } else {
                parent[i] = find(parent, left ? i - 1 : i + 1);
            }
        }
        int lowest = 0;
        for (int i = 1; i < len; i++) {
            if (f[i] < f[lowest]) {
                lowest = i;
            }
        }
        for (int i = 0; i < len; i++) {
            if (saddle[i] == -1) {
                saddle[i] = lowest;
            }
        }
        return saddle;
    }

    private static int find(int[] parent, int i) {
        int root = i;
        while (parent[root] != root) {
            root = parent[root];
        }
        while (parent[i] != root) {
            int next = parent[i];
            parent[i] = root;
            i = next;
        }
        return root;
    }
}
