package io.msgscope.coordinator.agents;

import io.msgscope.core.clock.OffsetFit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The clocks of a run, tracked (issue 33): each cross-host sender → receiver pair's fitted offset (sender − receiver,
 * ns, on the coordinator's monotonic clock), how many pairs the run has in all (the others share a box: offset 0), and
 * the agents whose clock the test hook shifts ({@link io.msgscope.core.clock.ClockShift}), and the anchor that maps the coordinator's epoch ms onto its monotonic clock.
 */
public record ClockTrack(Map<String, OffsetFit> fits, int allPairs, long anchorNs, long anchorEpochMs,
                         java.util.List<String> testHookAgents, ClockErrorLimit limit) {
    public ClockTrack {
        testHookAgents = java.util.List.copyOf(testHookAgents);
        fits = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(fits));
    }

    /** The coordinator's monotonic time at epoch ms {@code epochMs}. */
    public long monoAt(long epochMs) {
        return anchorNs + (epochMs - anchorEpochMs) * 1_000_000L;
    }

    /** The epoch ms of the coordinator's monotonic time {@code monoNs}. */
    public double epochMsAt(long monoNs) {
        return anchorEpochMs + (monoNs - anchorNs) / 1e6;
    }

    /**
     * summary.json's {@code clock_tracking} (scenario and trace mode alike): the probing, per pair the fitted offset,
     * drift, steps and bound, the bound {@code errorBoundNs} on the corrected latency, the limit ({@code limitNs} null
     * when a percentage has no p50), and what the bound does not cover.
     */
    public Map<String, Object> toMap(double errorBoundNs, Double limitNs) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("probe_every_ms", ClockTracker.PROBE_EVERY_MS);
        m.put("probes_per_burst", ClockTracker.BURST);
        m.put("min_rtt_filter_ms", ClockTracker.FILTER_MS);
        Map<String, Object> pairs = new LinkedHashMap<>();
        fits.forEach((name, f) -> pairs.put(name, pair(f)));
        m.put("pairs", pairs);
        m.put("error_bound_us", errorBoundNs / 1e3);
        m.put("max_clock_error", limit.toString());
        m.put("max_clock_error_us", limitNs == null ? null : limitNs / 1e3);
        m.put("not_covered", "a link slower one way than the other shifts every probe, and so the offset, by half the "
                + "difference: never more than half the probe's round trip, which the bound holds, but no probe can tell "
                + "it from a true offset, so more probes do not narrow it");
        if (!testHookAgents.isEmpty()) {
            m.put("test_hook_agents", testHookAgents);
        }
        return m;
    }

    private Map<String, Object> pair(OffsetFit f) {
        Map<String, Object> p = new LinkedHashMap<>();
        OffsetFit.Segment first = f.segments().get(0);
        OffsetFit.Segment last = f.segments().get(f.segments().size() - 1);
        p.put("samples", f.samples());
        p.put("first_probe", java.time.Instant.ofEpochMilli(Math.round(epochMsAt(first.fromNs()))).toString());
        p.put("offset_at_first_probe_us", first.at(first.fromNs()) / 1e3);
        p.put("offset_at_last_probe_us", last.at(last.toNs()) / 1e3);
        p.put("drift_ppm", f.driftPpm());
        List<Map<String, Object>> steps = new ArrayList<>();
        for (OffsetFit.Step s : f.steps()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("at", java.time.Instant.ofEpochMilli(Math.round(epochMsAt(s.atNs()))).toString());
            e.put("after_first_probe_s", (s.atNs() - first.fromNs()) / 1e9);
            e.put("size_us", s.sizeNs() / 1e3);
            steps.add(e);
        }
        p.put("steps", steps);
        p.put("best_rtt_us", f.bestRttNs() / 1e3);
        p.put("residual_us", f.residualNs() / 1e3);
        p.put("error_bound_us", f.errorBoundNs() / 1e3);
        return p;
    }
}
