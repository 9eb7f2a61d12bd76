package io.msgscope.coordinator.results;

import com.fasterxml.jackson.databind.JsonNode;
import org.HdrHistogram.Histogram;

import java.util.Map;

/**
 * The Q4 latency figures of a histogram in µs — min, max, mean, p50, p95, p99, p99.9 — as the throughput result and
 * the scenario result write them, each null when the histogram recorded nothing. Immutable; written by
 * {@link #putInto} and read back from a summary by {@link #read}.
 */
public record LatencyFigures(Double minUs, Double maxUs, Double meanUs, Double p50Us, Double p95Us, Double p99Us,
                             Double p999Us) {

    /** The figures of {@code h} (ns), all null when it is null or empty. */
    public static LatencyFigures of(Histogram h) {
        boolean any = h != null && h.getTotalCount() > 0;
        return new LatencyFigures(any ? h.getMinValue() / 1e3 : null, any ? h.getMaxValue() / 1e3 : null,
                any ? h.getMean() / 1e3 : null, any ? h.getValueAtPercentile(50) / 1e3 : null,
                any ? h.getValueAtPercentile(95) / 1e3 : null, any ? h.getValueAtPercentile(99) / 1e3 : null,
                any ? h.getValueAtPercentile(99.9) / 1e3 : null);
    }

    /** Adds {@code PREFIXmin_us} … {@code PREFIXp999_us} to {@code m}, in that order. */
    public void putInto(Map<String, Object> m, String prefix) {
        m.put(prefix + "min_us", minUs);
        m.put(prefix + "max_us", maxUs);
        m.put(prefix + "mean_us", meanUs);
        m.put(prefix + "p50_us", p50Us);
        m.put(prefix + "p95_us", p95Us);
        m.put(prefix + "p99_us", p99Us);
        m.put(prefix + "p999_us", p999Us);
    }

    /** The figures under {@code prefix} in a summary's JSON object (a throughput result's latency, a scenario's results). */
    public static LatencyFigures read(JsonNode m, String prefix) {
        return new LatencyFigures(number(m, prefix + "min_us"), number(m, prefix + "max_us"),
                number(m, prefix + "mean_us"), number(m, prefix + "p50_us"), number(m, prefix + "p95_us"),
                number(m, prefix + "p99_us"), number(m, prefix + "p999_us"));
    }

    private static Double number(JsonNode m, String field) {
        JsonNode n = m.path(field);
        return n.isNumber() ? n.asDouble() : null;
    }

    /**
     * One figure by the report's name — {@code min}, {@code mean}, {@code median} (= {@code p50}), {@code p95},
     * {@code p99}, {@code p999}, {@code max} — in µs; NaN for one not recorded or not among these.
     */
    public double us(String figure) {
        Double v = switch (figure) {
            case "min" -> minUs;
            case "max" -> maxUs;
            case "mean" -> meanUs;
            case "median", "p50" -> p50Us;
            case "p95" -> p95Us;
            case "p99" -> p99Us;
            case "p999" -> p999Us;
            default -> null;
        };
        return v == null ? Double.NaN : v;
    }
}
