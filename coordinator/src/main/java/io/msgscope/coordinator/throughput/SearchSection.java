package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.results.Json;
import io.msgscope.analysis.stats.SampleSummary;
import io.msgscope.analysis.stats.SaturationFit;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code search} section of a throughput summary (A6, issue 17), typed: how F was searched for, the peak with its
 * confirmation, the knee with its floor, why the search stopped, and every F measured. {@link #of} is the one place an
 * {@link FSearch.Result} becomes this section: a new figure of the search is added there and in {@link #toMap()}.
 * Immutable.
 *
 * @param method         the algorithm in words, with its parameters
 * @param pick           knee or peak, as given
 * @param chosenInFlight the F of the final measurement
 * @param peak           the measured F of highest median
 * @param peakConfirmation the peak's fresh probes (or its pooled samples when none were taken)
 * @param knee           where the fitted curve reaches 90 % of its plateau, or the smallest F within the peak's
 *                       interval and margin when no curve fits
 * @param kneeRule       which of the two placed the knee, in words
 * @param fit            the saturation curve the knee was read off, or null
 * @param kneeFloor      the peak's bar (the measured rule's), msg/s
 * @param drifted        the peak's confirmation disagrees with the probes that chose it
 * @param a6IntervalMean A6's figure: the mean of the narrowing's final bounds
 * @param lo             the narrowing's final bounds
 * @param hi             …
 * @param fellAtExponent the exponent at which throughput clearly fell, or null when it never did
 * @param stopReason     why the narrowing stopped (null when it never started)
 * @param probesTaken    every probe of the search
 * @param remeasured     how many were re-measurements
 * @param points         every F measured, ascending, pooled
 */
public record SearchSection(String method, String pick, long chosenInFlight, Point peak,
                            SampleSummary peakConfirmation, Point knee, String kneeRule, SaturationFit fit,
                            double kneeFloor, boolean drifted,
                            long a6IntervalMean, long lo, long hi, Integer fellAtExponent, String stopReason,
                            int probesTaken, int remeasured, List<Point> points) {

    public SearchSection {
        points = List.copyOf(points);
    }

    /**
     * One F of the search, its probes pooled: the samples' figures, how many probes, latency (µs) and the mean in
     * flight by Little's law and at arrivals; a figure that was not measured is null.
     */
    public record Point(long inFlight, SampleSummary samples, int measurements, Double latencyP50Us,
                        Double latencyP99Us, Double latencyMeanUs, Double littlesLaw, Double atArrivals) {
        public static Point of(SearchPoint p) {
            Histogram h = p.latency();
            boolean lat = h != null && h.getTotalCount() > 0;
            return new Point(p.inFlight(), p.summary(), p.measurements(),
                    lat ? h.getValueAtPercentile(50) / 1e3 : null, lat ? h.getValueAtPercentile(99) / 1e3 : null,
                    lat ? h.getMean() / 1e3 : null, lat ? Json.finite(p.median() * h.getMean() / 1e9) : null,
                    Json.finite(p.meanInFlight()));
        }

        public double median() {
            return samples.median();
        }

        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("in_flight", inFlight);
            m.putAll(SamplesJson.samples(samples));
            m.put("measurements", measurements);
            m.put("latency_p50_us", latencyP50Us);
            m.put("latency_p99_us", latencyP99Us);
            m.put("latency_mean_us", latencyMeanUs);
            m.put("mean_in_flight_littles_law", littlesLaw);
            m.put("mean_in_flight_at_arrivals", atArrivals);
            return m;
        }
    }

    /**
     * The section of a search's result.
     *
     * @param method   {@link FSearch#method}'s words
     * @param pick     knee or peak, as summary.json spells it
     * @param pickKnee whether the final measurement used the knee (else the peak)
     */
    public static SearchSection of(FSearch.Result r, String method, String pick, boolean pickKnee) {
        List<Point> points = new ArrayList<>();
        for (SearchPoint p : r.points()) {
            points.add(Point.of(p));
        }
        return new SearchSection(method, pick, (pickKnee ? r.knee() : r.peak()).inFlight(), Point.of(r.peak()),
                r.peakThroughput(), Point.of(r.knee()), r.kneeRule(), r.fit(), r.floor(), r.drifted(), r.a6IntervalMean(), r.lo(), r.hi(),
                r.fell() ? r.lastExponent() : null, r.stopReason(), r.probes().size(), r.remeasured(), points);
    }

    /** The saturation curve the knee was read off (issue 17), or null when none was usable. */
    private static Map<String, Object> fitMap(SaturationFit f) {
        if (f == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("model", "X(F) = plateau * F / (F^k + crossover^k)^(1/k), least absolute deviations on log X");
        m.put("plateau_msg_s", f.plateau());
        m.put("crossover_in_flight", f.crossover());
        m.put("sharpness_k", f.sharpness());
        m.put("median_error_percent", f.typicalErrorPercent());
        m.put("points", f.points());
        m.put("knee_reach", 1 - FSearch.KNEE_MARGIN);
        m.put("knee_in_flight_fitted", f.kneeAt(1 - FSearch.KNEE_MARGIN));
        m.put("knee_in_flight_ci95", Double.isFinite(f.kneeLow()) ? List.of(f.kneeLow(), f.kneeHigh()) : null);
        m.put("knee_ci_method", "2.5th and 97.5th percentiles of the knee over " + SaturationFit.BOOT_REPLICATES
                + " refits to the curve plus resampled residuals (a bootstrap of the residuals, on a coarser grid); a soft "
                + "corner fixes the knee poorly and its interval says so");
        m.put("sharpness_at_bound", f.atBound());
        m.put("note", "crossover_in_flight: where the rising asymptote (throughput in proportion to F) meets the "
                + "plateau, the most repeatable figure of the search; the knee is where the curve reaches knee_reach "
                + "of the plateau");
        return m;
    }

    public Map<String, Object> toMap() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("method", method);
        s.put("pick", pick);
        s.put("chosen_in_flight", chosenInFlight);
        Map<String, Object> p = peak.toMap();
        p.put("throughput", "the confirmation: fresh probes after the peak was chosen (median_msg_s etc. "
                + "above pool the probes that chose it)");
        p.put("confirmation", SamplesJson.samples(peakConfirmation));
        s.put("peak", p);
        Map<String, Object> k = knee.toMap();
        k.put("knee_floor_msg_s", kneeFloor);
        // the same bar under its name before the 10 % margin (issue 17), when it was the interval's lower bound
        // only; kept for readers of older summaries for one release, then removed
        k.put("within_peak_interval_from_msg_s", kneeFloor);
        k.put("rule", kneeRule);
        s.put("knee", k);
        s.put("fit", fitMap(fit));
        s.put("drifted", drifted);
        s.put("optimal_in_flight", peak.inFlight());
        s.put("a6_interval_mean", a6IntervalMean);
        s.put("bounds", List.of(lo, hi));
        s.put("fell_at_exponent", fellAtExponent);
        s.put("stop_reason", stopReason);
        s.put("probes_taken", probesTaken);
        s.put("remeasured", remeasured);
        List<Map<String, Object>> pts = new ArrayList<>();
        for (Point pt : points) {
            pts.add(pt.toMap());
        }
        s.put("points", pts);
        return s;
    }
}
