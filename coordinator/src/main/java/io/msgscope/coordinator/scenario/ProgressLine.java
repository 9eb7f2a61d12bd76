package io.msgscope.coordinator.scenario;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The live progress line of Q8 on stderr, e.g.
 * {@code fan-in @ QoS 1 ━━━━━━━━━━━━━━━━━━━━ 45s/60s  12,450 msg/s  P99: 23ms}. On a terminal the
 * line is rewritten in place with a carriage return; otherwise (a file, a pipe, a CI log) each
 * update is a plain line of its own.
 */
public final class ProgressLine {
    static final int BAR = 20;

    private final PrintWriter out;
    private final boolean terminal;
    private final String label;
    private int lastLength;
    private boolean open;

    public ProgressLine(PrintWriter out, boolean terminal, String label) {
        this.out = out;
        this.terminal = terminal;
        this.label = label;
    }

    /** The line for {@code elapsed} of {@code total} seconds, a rate and a p99 (ns; negative = none yet). */
    public static String format(String label, long elapsed, long total, double rate, long p99Ns) {
        int filled = total <= 0 ? BAR : (int) Math.min(BAR, elapsed * BAR / total);
        StringBuilder b = new StringBuilder(label).append(' ');
        b.append("━".repeat(filled)).append("─".repeat(BAR - filled));
        b.append(' ').append(elapsed).append("s/").append(total).append('s');
        b.append("  ").append(String.format(Locale.ROOT, "%,d", Math.round(rate))).append(" msg/s");
        b.append("  P99: ").append(p99Ns < 0 ? "-" : duration(p99Ns));
        return b.toString();
    }

    /** 850µs, 1.5ms, 23ms, 2.1s. */
    public static String duration(long ns) {
        if (ns < 1_000_000) {
            return (ns / 1_000) + "µs";
        }
        if (ns < 10_000_000) {
            return String.format(Locale.ROOT, "%.1fms", ns / 1e6);
        }
        if (ns < 1_000_000_000) {
            return (ns / 1_000_000) + "ms";
        }
        return String.format(Locale.ROOT, "%.1fs", ns / 1e9);
    }

    public void update(String phase, long elapsed, long total, double rate, long p99Ns) {
        update(phase, elapsed, total, rate, p99Ns, 0);
    }

    /** As {@link #update(String, long, long, double, long)}, with {@code errors: N} appended once there are errors. */
    public void update(String phase, long elapsed, long total, double rate, long p99Ns, long errors) {
        String line = format(label, elapsed, total, rate, p99Ns) + (errors > 0 ? "  errors: " + errors : "")
                + (phase.isEmpty() ? "" : "  (" + phase + ")");
        if (terminal) {
            rewrite(line);
        } else {
            out.println(line);
        }
        out.flush();
    }

    /** The set-up line while the connections ramp up (issue 13): {@code fan-in @ QoS 1 connecting 4,500/10,000 (2.3 s)}. */
    public static String connectingLine(String label, long opened, long target, long failed, double seconds) {
        return String.format(Locale.ROOT, "%s connecting %,d/%,d%s (%.1f s)", label, opened, target,
                failed > 0 ? String.format(Locale.ROOT, ", %,d failed", failed) : "", seconds);
    }

    /** Shows the ramp: rewritten in place on a terminal; otherwise a plain line at most every 5 s and at the end. */
    public void connecting(long opened, long target, long failed, double seconds) {
        String line = connectingLine(label, opened, target, failed, seconds);
        boolean end = opened + failed >= target;
        if (terminal) {
            rewrite(line);
        } else if (end || seconds - lastPlainConnecting >= 5) {
            out.println(line);
            lastPlainConnecting = seconds;
        }
        out.flush();
    }

    private double lastPlainConnecting = -5;

    /**
     * The in-flight wait's line (issue 31 item 1), e.g. {@code fan-in @ QoS 1 draining 45,000 of 60,000 (75.0 %)
     * 8.2 s  12,450 msg/s  last delivery 0.3 s ago (gives up after 5.0 s)}; the rate over the time since the
     * previous line.
     */
    public static String drainingLine(String label, long received, long expected, double waitedS, double rate,
                                      double quietS, double timeoutS) {
        return String.format(Locale.ROOT, "%s draining %,d of %,d (%.1f %%) %.1f s  %,d msg/s  last delivery %.1f s "
                        + "ago (gives up after %.1f s)", label, received, expected,
                expected <= 0 ? 100.0 : 100.0 * received / expected, waitedS, Math.round(rate), quietS, timeoutS);
    }

    /**
     * Shows the in-flight wait once it has lasted a second: rewritten in place on a terminal at most twice a second;
     * otherwise a plain line at most every 5 s. Called at every poll of the wait, from its first; {@code last} (the
     * wait's end) shows a final line if any was shown, or if the wait lasted a second.
     */
    public void draining(long received, long expected, double waitedS, double quietS, double timeoutS, boolean last) {
        if (!drainStarted) {
            drainStarted = true;
            lastDrainReceived = received; // the rate of the first line is over the wait so far
        }
        if (waitedS < 1 || !last && drainShown && waitedS - lastDrainS < (terminal ? 0.5 : 5)) {
            return;
        }
        double rate = waitedS > lastDrainS ? (received - lastDrainReceived) / (waitedS - lastDrainS) : 0;
        String line = drainingLine(label, received, expected, waitedS, rate, quietS, timeoutS);
        if (terminal) {
            rewrite(line);
        } else {
            out.println(line);
        }
        out.flush();
        drainShown = true;
        lastDrainS = waitedS;
        lastDrainReceived = received;
    }

    private boolean drainStarted;
    private boolean drainShown;
    private double lastDrainS;
    private long lastDrainReceived;

    /** On a terminal: the line in place of the last one, blanking out what a longer one left behind. */
    private void rewrite(String line) {
        out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        lastLength = line.length();
        open = true;
    }

    /** Ends an in-place line so what follows starts on a line of its own. */
    public void finish() {
        if (open) {
            out.println();
            out.flush();
            open = false;
        }
    }
}
