package io.msgscope.coordinator.compare;

import java.util.Locale;
import java.util.Optional;

/**
 * The figures {@code compare} gives a verdict on (issue 34), with which way is better: throughput [msg/s] from the
 * throughput samples, higher is better; latency [µs] from latency.hlog's intervals, lower is better.
 */
public enum Figure {
    THROUGHPUT("throughput", "msg/s", Double.NaN),
    MEAN("mean", "µs", Double.NaN),
    P50("p50", "µs", 0.50),
    P90("p90", "µs", 0.90),
    P95("p95", "µs", 0.95),
    P99("p99", "µs", 0.99),
    P999("p99.9", "µs", 0.999);

    private final String label;
    private final String unit;
    private final double quantile;

    Figure(String label, String unit, double quantile) {
        this.label = label;
        this.unit = unit;
        this.quantile = quantile;
    }

    /** The name written in tables, compare.json and {@code --fail-if}. */
    public String label() {
        return label;
    }

    public String unit() {
        return unit;
    }

    /** The latency quantile (0.99 for p99), NaN for throughput and the mean. */
    double quantile() {
        return quantile;
    }

    public boolean isLatency() {
        return this != THROUGHPUT;
    }

    /** Higher is better for throughput, lower for latency. */
    public boolean higherIsBetter() {
        return this == THROUGHPUT;
    }

    /** The figure a {@code --fail-if} names: its label, or p999 for p99.9; case does not matter. */
    public static Optional<Figure> named(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        for (Figure f : values()) {
            if (f.label.equals(n) || f.label.replace(".", "").equals(n)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    /** The names {@link #named} knows, for a message. */
    public static String names() {
        StringBuilder sb = new StringBuilder();
        for (Figure f : values()) {
            sb.append(sb.length() > 0 ? ", " : "").append(f.label);
        }
        return sb.toString();
    }
}
