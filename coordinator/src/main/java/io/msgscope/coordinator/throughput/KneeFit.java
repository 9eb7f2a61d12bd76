package io.msgscope.coordinator.throughput;

import io.msgscope.analysis.stats.SaturationFit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.function.IntSupplier;

/**
 * The search's last stage (issue 17): the knee read off a saturation curve fitted to every point measured so far,
 * instead of off single probes. On a curve that is flat within the noise from some F on, "the smallest F whose
 * median is as high as the peak's" is decided by whichever probe happened to draw high or low, so five searches of
 * one system named knees from 24 to 41,499; a curve fitted to all the points moves far less with any one of them.
 *
 * <p>The fit ({@link SaturationFit}) yields the crossover F0 of the curve's two asymptotes — the rising line and
 * the plateau — which is the most repeatable figure the search has (within a factor 1.1–1.9 across seeds of a
 * simulation with 10–20 % noise per probe, where the single-probe knee moved by factors of 80–4,000), and the
 * sharpness of the corner, which only points around F0 can pin down: so the shoulder is probed at
 * {@code F0/2, F0, 2·F0, 4·F0} (a point within {@link #NEIGHBOUR} of one already measured counts as it, and is
 * measured a second time instead), the curve refitted, and the probing repeated once around the new F0. The knee
 * is then the smallest F at which the curve reaches {@code 1 − KNEE_MARGIN} of its plateau, measured there.
 */
final class KneeFit {
    /** A fit with half its points further than this from the curve (per cent) is not used. */
    static final double MAX_FIT_ERROR_PERCENT = 25;
    /**
     * A fit whose plateau lies under this share of the peak's bar is not used (issue 27): least absolute deviations
     * follow the majority of the points, and when most were measured in another regime than the peak (a system that
     * changed during the search) the curve describes that regime, not the one the knee is for.
     */
    static final double MIN_PLATEAU_OF_FLOOR = 0.8;
    /** Rounds of shoulder probing, each followed by a refit. */
    static final int ROUNDS = 2;
    /** Multiples of F0 probed on the shoulder. */
    private static final double[] SHOULDER = {0.5, 1, 2, 4};
    /** An F within this factor of a measured point is that point. */
    private static final double NEIGHBOUR = 1.25;
    /** The bootstrap's seed: the same points give the same interval on every machine. */
    static final long BOOTSTRAP_SEED = 27;
    /** How many probes a shoulder point gets at most. */
    private static final int SHOULDER_PROBES = 2;

    /** Measures at F and pools the probe into its point. */
    @FunctionalInterface
    interface Measurer {
        SearchPoint at(long f, String phase) throws Exception;
    }

    /** The knee, the curve it was read off (null when none was usable) and the rule in words. */
    record Knee(SearchPoint point, SaturationFit fit, String rule) {
    }

    private final NavigableMap<Long, SearchPoint> points;
    private final Measurer measurer;
    private final IntSupplier probesLeft;

    /**
     * @param points     every point measured so far, by F (ascending); the stage adds to it through {@code measurer}
     * @param probesLeft how many probes the search's budget still allows
     */
    KneeFit(NavigableMap<Long, SearchPoint> points, Measurer measurer, IntSupplier probesLeft) {
        this.points = points;
        this.measurer = measurer;
        this.probesLeft = probesLeft;
    }

    Knee find(SearchPoint peak, double floor) throws Exception {
        SaturationFit fit = fit(peak, floor);
        for (int round = 0; round < ROUNDS && usable(fit, floor); round++) {
            if (!probeShoulder(fit, peak)) {
                break;
            }
            fit = fit(peak, floor);
        }
        if (!usable(fit, floor)) {
            String why = fit == null ? "fewer than 3 points up to the peak"
                    : fit.typicalErrorPercent() > MAX_FIT_ERROR_PERCENT
                    ? String.format(Locale.ROOT, "half the points lie over %.0f%% from the curve (at most %.0f%%)",
                            fit.typicalErrorPercent(), MAX_FIT_ERROR_PERCENT)
                    : String.format(Locale.ROOT, "its plateau, %.0f msg/s, lies under %.0f%% of the peak's bar: it "
                            + "follows other points than the peak's", fit.plateau(), 100 * MIN_PLATEAU_OF_FLOOR);
            return new Knee(smallestWithin(peak, floor), null, "measured: the smallest measured F whose median reaches "
                    + "the peak's bar (no saturation curve fits: " + why + ")");
        }
        double[][] used = used(peak, floor);
        // issue 27: the knee with its 95 % interval, from refits of the curve to its own resampled residuals
        fit = fit.withKneeInterval(used[0], used[1], used[2], 1 - FSearch.KNEE_MARGIN, BOOTSTRAP_SEED);
        long f = kneeInFlight(fit, peak);
        SearchPoint knee = points.get(f);
        if (knee == null) {
            knee = probesLeft.getAsInt() > 0 ? measurer.at(f, "knee") : nearest(f);
        }
        return new Knee(knee, fit, String.format(Locale.ROOT, "fitted: the smallest F at which the fitted curve "
                + "reaches %.0f%% of its plateau%s", 100 * (1 - FSearch.KNEE_MARGIN),
                knee.inFlight() == f ? "" : " (no probe left to measure F = " + f + ": its nearest measured point)"));
    }

    /**
     * The smallest whole F at which the curve reaches {@code 1 − KNEE_MARGIN} of its plateau (rounded up: a smaller
     * F would fall short), never past the peak.
     */
    static long kneeInFlight(SaturationFit fit, SearchPoint peak) {
        return Math.min(peak.inFlight(), Math.max(1, (long) Math.ceil(fit.kneeAt(1 - FSearch.KNEE_MARGIN) - 1e-9)));
    }

    /** The curve through every point up to the peak and every larger one still at or above the floor. */
    private SaturationFit fit(SearchPoint peak, double floor) {
        double[][] u = used(peak, floor);
        return SaturationFit.fit(u[0], u[1], u[2]);
    }

    /** The points the curve goes through: {F, throughput, weight}. */
    private double[][] used(SearchPoint peak, double floor) {
        List<SearchPoint> used = new ArrayList<>();
        for (SearchPoint p : points.values()) {
            if (p.inFlight() <= peak.inFlight() || p.median() >= floor) {
                used.add(p);
            }
        }
        double[] f = new double[used.size()];
        double[] x = new double[used.size()];
        double[] w = new double[used.size()];
        for (int i = 0; i < f.length; i++) {
            SearchPoint p = used.get(i);
            f[i] = p.inFlight();
            // the peak's own figure is its confirmation: the probes that chose it are biased upwards
            x[i] = p == peak && p.confirmation() != null ? p.confirmation().median() : p.median();
            w[i] = p.measurements();
        }
        return new double[][] {f, x, w};
    }

    private static boolean usable(SaturationFit fit, double floor) {
        return fit != null && fit.typicalErrorPercent() <= MAX_FIT_ERROR_PERCENT
                && fit.plateau() >= MIN_PLATEAU_OF_FLOOR * floor;
    }

    /** One round on the shoulder; false when nothing was measured (every point there measured enough, or no budget). */
    private boolean probeShoulder(SaturationFit fit, SearchPoint peak) throws Exception {
        boolean measured = false;
        for (double m : SHOULDER) {
            long g = Math.min(peak.inFlight(), Math.max(1, Math.round(m * fit.crossover())));
            SearchPoint near = nearest(g);
            boolean same = near != null && Math.max(near.inFlight(), g) <= NEIGHBOUR * Math.min(near.inFlight(), g);
            if (same && near.measurements() >= SHOULDER_PROBES || probesLeft.getAsInt() <= 1) {
                continue; // enough there; one probe is kept for the knee itself
            }
            measurer.at(same ? near.inFlight() : g, "shoulder");
            measured = true;
        }
        return measured;
    }

    /** The measured point nearest F on log F. */
    private SearchPoint nearest(long f) {
        Map.Entry<Long, SearchPoint> lo = points.floorEntry(f);
        Map.Entry<Long, SearchPoint> hi = points.ceilingEntry(f);
        if (lo == null || hi == null) {
            return lo == null ? (hi == null ? null : hi.getValue()) : lo.getValue();
        }
        return (double) f / lo.getKey() <= (double) hi.getKey() / f ? lo.getValue() : hi.getValue();
    }

    /**
     * The rule without a curve: the smallest measured F up to the peak whose median reaches {@code floor} (the
     * peak's interval's lower bound, or its margin); the peak when none does.
     */
    private SearchPoint smallestWithin(SearchPoint peak, double floor) {
        for (SearchPoint p : points.values()) { // ascending F
            if (p.inFlight() < peak.inFlight() && p.median() >= floor) {
                return p;
            }
        }
        return peak;
    }
}
