package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.agents.ClockCorrection;
import io.msgscope.coordinator.agents.ClockErrorLimit;
import io.msgscope.coordinator.agents.ClockTrack;
import io.msgscope.core.LatencyRange;
import io.msgscope.coordinator.results.LatencyFigures;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Map;

/**
 * A cross-host scenario's latency corrected by the tracked clocks (issue 33): each latency interval (about a second;
 * the drain's too) shifted by the offset at its midpoint ({@link ClockCorrection}), merged, and its figures with one
 * error bound — the widest interval's, which adds the histogram's resolution at the interval's largest measured value
 * (HdrHistogram keeps three significant digits: a value is known to its bucket, 1/2048 of its power of two). The coordinator corrects the intervals rather than the subscribers agents each
 * message: the offsets are fitted from the whole run's probes (a step is only known once the probes after it are in),
 * the agents stay as they are, and within a second the offset moves by the drift only (its change is in the bound).
 *
 * @param corrected    the corrected latency figures
 * @param errorBoundNs the widest interval's bound, ns
 * @param belowZero    latencies the correction would make negative (recorded as 0)
 * @param limitNs      {@code --max-clock-error} for this run, ns (null: a percentage of a p50 there is not)
 */
public record ScenarioClockFigures(ClockTrack track, LatencyFigures corrected, double errorBoundNs, long belowZero,
                                   ClockErrorLimit limit, Double limitNs) {

    /** The summary's note on a cross-host run whose clocks were followed. */
    static final String NOTE = "cross-host run: latency_* subtract the publishers' epoch stamps from the subscribers' "
            + "clock, uncorrected; corrected_latency_* add the offset between the two clocks, tracked through the run "
            + "(clock_tracking) and taken at each interval's midpoint, within corrected_latency_error_bound_us (half "
            + "the best probe round trip plus the fit's residual and the offset's move within an interval; a link "
            + "slower one way than the other is not covered); intended_latency_* and the per-second series are not "
            + "corrected";

    /** The correction of {@code intervals} by {@code t}; null when no pair of the run is cross-host. */
    static ScenarioClockFigures of(ClockTrack t, List<ScenarioResult.Interval> intervals, ClockErrorLimit limit) {
        if (t == null || t.fits().isEmpty()) {
            return null;
        }
        Histogram merged = LatencyRange.histogram();
        double bound = 0;
        long below = 0;
        for (ScenarioResult.Interval i : intervals) {
            Histogram h = ScenarioLinks.decoded(i.histogram(), "a latency interval");
            if (h.getTotalCount() == 0) {
                continue;
            }
            ClockCorrection.Shift s = ClockCorrection.over(t, i.startEpochMs(), i.endEpochMs());
            below += ClockCorrection.shiftInto(h, Math.round(s.offsetNs()), merged);
            // the histogram keeps a value to its bucket, not to the ns: the shift keeps that resolution
            bound = Math.max(bound, s.errorNs() + h.sizeOfEquivalentValueRange(h.getMaxValue()));
        }
        LatencyFigures f = LatencyFigures.of(merged);
        return new ScenarioClockFigures(t, f, bound, below, limit,
                limit.limitNs(f.p50Us() == null ? null : f.p50Us() * 1e3));
    }

    /** The warning when the bound is wider than {@code --max-clock-error}, saying what would tighten it; else null. */
    String warning() {
        return limit.warning(errorBoundNs, limitNs);
    }

    /** summary.json's results: the corrected figures with the bound beside them, after the uncorrected ones. */
    void putResults(Map<String, Object> m) {
        corrected.putInto(m, "corrected_latency_");
        m.put("corrected_latency_error_bound_us", errorBoundNs / 1e3);
        m.put("corrected_latency_below_zero", belowZero);
    }

    /** summary.json's {@code clock_tracking}: per pair, the fitted offset, drift, steps and bound. */
    Map<String, Object> toMap() {
        return track.toMap(errorBoundNs, limitNs);
    }
}
