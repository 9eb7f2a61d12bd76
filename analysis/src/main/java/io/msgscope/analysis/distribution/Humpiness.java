package io.msgscope.analysis.distribution;

import io.msgscope.analysis.Trace;
import io.msgscope.analysis.output.HumanFormat;
import java.util.ArrayList;
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
 *       among the first {@value HumpinessSource#QUANTUM_SAMPLE} values when it exceeds 1), so that a quantised
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
 *
 * <p>The steps live apart: the passes over the values in {@code FineHistogram} (and the moments),
 * the bandwidth and the estimate in {@code BinnedDensity}, the bumps, their prominence and basins in
 * {@code DensityPeaks}; this class ties them together and words the verdict.
 */
public final class Humpiness {

    /** Fewest values for which modes are estimated. */
    public static final int MIN_VALUES = 10;

    /** Bins of the fine histogram built in the single pass over the values. */
    public static final int FINE_BINS = 1 << 16;

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

        public Options withResolution(double r) {
            return new Options(logScale, minShare, minZ, minDepth, bandwidthFactor, r);
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
        return analyse(new HumpinessSource.Longs(latencyNs, n), options, HumanFormat::duration);
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
        return analyse(new HumpinessSource.Doubles(values, n), options, v -> Num.threeFigures(v) + suffix);
    }

    private static void checkPrefix(int length, int n) {
        if (n < 0 || n > length) {
            throw new IllegalArgumentException("prefix length " + n + " outside [0, " + length + "]");
        }
    }

    /** The passes, the bandwidth, the density and its bumps; the verdict in the words of {@code fmt}. */
    private static HumpinessResult analyse(HumpinessSource src, Options o, DoubleFunction<String> fmt) {
        FineHistogram fine = new FineHistogram(src, o.logScale());
        long m = fine.m;
        double bc = fine.bimodalityCoefficient();
        if (m < MIN_VALUES) {
            return new HumpinessResult(m, 0, List.of(), List.of(), bc, Double.NaN, fine.log,
                    "too few values: n = " + m + ", at least " + MIN_VALUES + " needed");
        }
        if (fine.constant) {
            HumpinessResult.Mode mode = new HumpinessResult.Mode(fine.min, Double.NaN, 1.0);
            return new HumpinessResult(m, 1, List.of(mode), List.of(), Double.NaN, Double.NaN, fine.log,
                    "unimodal: all " + HumanFormat.count(m) + " values equal " + fmt.apply(fine.min));
        }
        BinnedDensity density = new BinnedDensity(fine, BinnedDensity.bandwidth(fine, o, src.quantum()));
        int[] peaks = DensityPeaks.real(density.f, density.noise(m), o.minZ(), o.minDepth());
        HumpinessResult.Mode[] bumps = bumps(fine, density, peaks);
        List<HumpinessResult.Mode> modes = new ArrayList<>();
        List<HumpinessResult.Mode> minor = new ArrayList<>();
        int biggest = 0;
        for (int k = 1; k < bumps.length; k++) {
            if (bumps[k].share() > bumps[biggest].share()) {
                biggest = k;
            }
        }
        for (int k = 0; k < bumps.length; k++) {
            if (bumps[k].share() >= o.minShare() || k == biggest) {
                modes.add(bumps[k]);
            } else {
                minor.add(bumps[k]);
            }
        }
        return new HumpinessResult(m, modes.size(), modes, minor, bc, density.h, fine.log,
                verdict(modes, minor, o, fmt));
    }

    /** Every real bump at ascending {@code peaks}: its position, height and the share of values in its basin. */
    private static HumpinessResult.Mode[] bumps(FineHistogram fine, BinnedDensity density, int[] peaks) {
        double[] f = density.f;
        int[] cut = DensityPeaks.basins(f, peaks);
        HumpinessResult.Mode[] all = new HumpinessResult.Mode[peaks.length];
        for (int k = 0; k < peaks.length; k++) {
            long inBasin = 0;
            for (int i = cut[k]; i < cut[k + 1]; i++) {
                inBasin += density.counts[i];
            }
            int p = peaks[k];
            double x = fine.value(density.position(fine, p, DensityPeaks.refine(f, p)));
            if (fine.log && Math.abs(x) <= (x + fine.c) * density.step) {
                x = 0; // a cluster at zero (clamped latencies): within one grid step of it
            }
            double height = fine.log ? f[p] / (x + fine.c) : f[p];
            all[k] = new HumpinessResult.Mode(x, height, (double) inBasin / fine.m);
        }
        return all;
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
}
