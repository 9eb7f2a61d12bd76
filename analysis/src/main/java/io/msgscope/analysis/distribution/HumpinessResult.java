package io.msgscope.analysis.distribution;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Outcome of {@link Humpiness}: the modes of the distribution and a verdict a person reads.
 *
 * @param n number of values analysed (NaN / ABSENT skipped)
 * @param modeCount number of modes ({@code modes().size()}); 0 only with too few values
 * @param modes the modes in ascending position
 * @param minorBumps statistically real bumps that hold less than the minimum share of the sample
 *     (not counted as modes), ascending
 * @param bimodalityCoefficient Sarle's bimodality coefficient on the analysis scale (log by
 *     default); above {@link #BC_THRESHOLD} hints at bimodality; NaN when undefined (n &lt; 4 or
 *     zero variance)
 * @param bandwidth kernel bandwidth used, on the analysis scale (natural log of the value when
 *     {@code logScale}); NaN when no density was estimated
 * @param logScale whether the density was estimated on log values
 * @param verdict e.g. "unimodal: 1 mode at 150 µs" or
 *     "multimodal: 2 modes at 150 µs (97.6 %) and 340 µs (1.6 %)"
 */
public record HumpinessResult(
        long n,
        int modeCount,
        List<Mode> modes,
        List<Mode> minorBumps,
        double bimodalityCoefficient,
        double bandwidth,
        boolean logScale,
        String verdict) {

    /** Sarle's threshold 5/9: the coefficient of a uniform distribution. */
    public static final double BC_THRESHOLD = 5.0 / 9.0;

    /**
     * One mode (or minor bump).
     *
     * @param position where the density peaks, in the unit of the values
     * @param height estimated density at the peak, as a fraction of the sample per unit of the
     *     values (so it can be compared with {@link DistributionWriter}'s density column)
     * @param share fraction of the values in the mode's basin (between the density minima that
     *     separate it from its neighbouring bumps), 0..1
     */
    public record Mode(double position, double height, double share) {
    }

    public HumpinessResult {
        modes = List.copyOf(Objects.requireNonNull(modes, "modes"));
        minorBumps = List.copyOf(Objects.requireNonNull(minorBumps, "minorBumps"));
        Objects.requireNonNull(verdict, "verdict");
        if (modeCount != modes.size()) {
            throw new IllegalArgumentException("modeCount " + modeCount + " != " + modes.size() + " modes");
        }
    }

    /** Whether more than one mode was found. */
    public boolean multimodal() {
        return modeCount > 1;
    }

    /** Positions of the modes, ascending — the marks for {@link DistributionWriter#gnuplot}. */
    public List<Double> positions() {
        List<Double> p = new ArrayList<>(modes.size());
        for (Mode m : modes) {
            p.add(m.position());
        }
        return List.copyOf(p);
    }
}
