package io.msgscope.coordinator.agents;

import io.msgscope.core.clock.OffsetFit;

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
}
