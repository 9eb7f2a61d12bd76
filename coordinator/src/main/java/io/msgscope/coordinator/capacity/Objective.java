package io.msgscope.coordinator.capacity;

import io.msgscope.core.SpecException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A latency objective (issue 31 item 4): one or more percentiles of the latency from the intended send time, each
 * with its bound, e.g. {@code p99=5ms,p999=20ms}. Immutable.
 *
 * @param bounds the percentiles in the order given
 */
public record Objective(List<Bound> bounds) {
    /** The percentiles an objective may name, and the key of each in a trace summary's {@code series} statistics. */
    static final Map<String, String> SERIES_KEYS = Map.of("p50", "p50", "p90", "p90", "p95", "p95", "p99", "p99",
            "p999", "p99_9", "p9999", "p99_99");
    private static final Pattern ONE = Pattern.compile("\\s*(p[0-9.]+)\\s*=\\s*([0-9]+(?:\\.[0-9]+)?)\\s*([a-zµ]*)\\s*");

    /**
     * One percentile's bound.
     *
     * @param name      the percentile as summary.json spells it ({@code p99}, {@code p999})
     * @param seriesKey its key in a trace summary's {@code series.latency_corrected_ns}
     * @param boundUs   the bound, µs
     */
    public record Bound(String name, String seriesKey, double boundUs) {
        /** {@code p99 ≤ 5 ms}. */
        public String text() {
            return name + " ≤ " + io.msgscope.analysis.output.HumanFormat.duration(boundUs * 1e3);
        }
    }

    public Objective {
        bounds = List.copyOf(bounds);
    }

    /** Parses {@code --objective}; anything wrong is one line naming {@code option}. */
    public static Objective parse(String option, String text) {
        if (text == null || text.isBlank()) {
            throw new SpecException(option, "give one or more percentiles with bounds, e.g. p99=5ms or p99=5ms,p999=20ms");
        }
        List<Bound> out = new ArrayList<>();
        for (String part : text.split(",")) {
            Matcher m = ONE.matcher(part.toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new SpecException(option, "'" + part.strip() + "' is not PERCENTILE=BOUND with a unit, e.g. "
                        + "p99=5ms (percentiles " + names() + "; units ns, us, ms, s)");
            }
            String name = m.group(1).replace(".", "");
            String key = SERIES_KEYS.get(name);
            if (key == null) {
                throw new SpecException(option, "'" + m.group(1) + "' is not a percentile msgscope reports; use one of "
                        + names());
            }
            double us = Double.parseDouble(m.group(2)) * unitUs(option, m.group(3), part.strip());
            if (!(us > 0)) {
                throw new SpecException(option, "the bound of " + name + " must be above 0, got " + part.strip());
            }
            for (Bound b : out) {
                if (b.name().equals(name)) {
                    throw new SpecException(option, name + " is given twice");
                }
            }
            out.add(new Bound(name, key, us));
        }
        return new Objective(out);
    }

    private static double unitUs(String option, String unit, String part) {
        return switch (unit) {
            case "ns" -> 1e-3;
            case "us", "µs" -> 1;
            case "ms" -> 1e3;
            case "s" -> 1e6;
            default -> throw new SpecException(option, "'" + part + "' needs a unit: ns, us, ms or s (e.g. p99=5ms)");
        };
    }

    private static String names() {
        return "p50, p90, p95, p99, p999 (= p99.9), p9999";
    }

    /** The tightest bound, µs: the stationarity test's tolerance is a tenth of it. */
    public double tightestUs() {
        return bounds.stream().mapToDouble(Bound::boundUs).min().orElseThrow();
    }

    /** {@code p99 ≤ 5 ms, p999 ≤ 20 ms}. */
    public String text() {
        return String.join(", ", bounds.stream().map(Bound::text).toList());
    }

    /** summary.json's {@code objective}: each percentile's bound in µs, in the order given. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Bound b : bounds) {
            m.put(b.name() + "_us", b.boundUs());
        }
        return m;
    }
}
