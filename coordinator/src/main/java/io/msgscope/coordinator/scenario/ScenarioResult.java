package io.msgscope.coordinator.scenario;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scenario run's results, the one model every writer reads: the header (what ran, status) and
 * the flat summary fields (Q4, Q5, Q6 names) in a fixed order, plus the per-second series.
 */
public final class ScenarioResult {
    /** One second of the measurement: rate and percentiles over that interval. */
    public record Second(long second, double rate, double p50Us, double p99Us) {
    }

    /**
     * One interval of the latency log (latency.hlog): its wall-clock span in ms since the epoch, a tag (null, or
     * "drain" for what arrived after the publishers stopped) and the histogram, HdrHistogram's compressed form.
     */
    public record Interval(long startEpochMs, long endEpochMs, String tag, byte[] histogram) {
    }

    /** What every mode's summary begins with (issue 15); {@link #header} holds it first, then what ran. */
    public io.msgscope.coordinator.result.Envelope envelope;
    public final Map<String, Object> header = new LinkedHashMap<>();
    public final Map<String, Object> fields = new LinkedHashMap<>();
    public final List<Second> seconds = new ArrayList<>();
    /** The measurement's latency, one interval per second and the drain, adding up to the whole run's. */
    public final List<Interval> intervals = new ArrayList<>();
    public final List<String> notes = new ArrayList<>();
}
