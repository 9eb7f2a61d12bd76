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

    public final Map<String, Object> header = new LinkedHashMap<>();
    public final Map<String, Object> fields = new LinkedHashMap<>();
    public final List<Second> seconds = new ArrayList<>();
    public final List<String> notes = new ArrayList<>();
}
