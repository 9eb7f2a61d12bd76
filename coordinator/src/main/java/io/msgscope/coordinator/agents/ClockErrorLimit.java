package io.msgscope.coordinator.agents;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code --max-clock-error} (issue 33): how wide the clock's error bound on cross-host latencies may be before the run
 * warns — a duration ({@code 2ms}, {@code 500us}, {@code 1s}, {@code 800ns}) or a percentage of the corrected p50
 * ({@code 10%}).
 *
 * @param ns       the duration, or null
 * @param percent  the percentage of p50, or null
 */
public record ClockErrorLimit(Long ns, Double percent) {
    public static final String OPTION = "--max-clock-error";
    public static final ClockErrorLimit DEFAULT = new ClockErrorLimit(null, 10.0);
    private static final Pattern FORM = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*(ns|us|µs|ms|s|%)");

    /** Parses the option's value; anything else is refused, saying what it accepts (the caller names the option). */
    public static ClockErrorLimit parse(String v) {
        Matcher m = FORM.matcher(v == null ? "" : v.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + v + "' is neither a duration (e.g. 2ms, 500us) nor a "
                    + "percentage of p50 (e.g. 10%)");
        }
        double x = Double.parseDouble(m.group(1));
        return switch (m.group(2)) {
            case "%" -> new ClockErrorLimit(null, x);
            case "ns" -> new ClockErrorLimit(Math.round(x), null);
            case "us", "µs" -> new ClockErrorLimit(Math.round(x * 1e3), null);
            case "ms" -> new ClockErrorLimit(Math.round(x * 1e6), null);
            default -> new ClockErrorLimit(Math.round(x * 1e9), null);
        };
    }

    /** The limit in ns for a run whose corrected p50 is {@code p50Ns} (null when a percentage has no p50). */
    public Double limitNs(Double p50Ns) {
        if (ns != null) {
            return ns.doubleValue();
        }
        return p50Ns == null ? null : p50Ns * percent / 100;
    }

    /**
     * The warning when the clock's bound {@code boundNs} on cross-host latency is wider than this limit
     * ({@code limitNs}, from {@link #limitNs}), saying what would tighten it; null when it is not or no limit applies.
     */
    public String warning(double boundNs, Double limitNs) {
        if (limitNs == null || boundNs <= limitNs) {
            return null;
        }
        return String.format(Locale.ROOT, "the clock error bound on the corrected cross-host latency (%.1f us) is wider "
                + "than %s %s (%.1f us): clocks disciplined by PTP, the agents on one host, or a round-trip "
                + "measurement would tighten it", boundNs / 1e3, OPTION, this, limitNs / 1e3);
    }

    @Override
    public String toString() {
        return ns != null ? String.format(Locale.ROOT, "%.3f ms", ns / 1e6)
                : String.format(Locale.ROOT, "%s%% of p50", percent % 1 == 0 ? String.valueOf(percent.longValue()) : percent);
    }
}
