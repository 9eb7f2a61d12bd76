package io.msgscope.coordinator.trace;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A trace run's progress while it measures (issue 18), from the counts the sender and receiver report with
 * their heartbeat answers: {@code measuring ━━━━━━━━──────────── 450,000/1,000,000 sent  448,900 received
 * 92,300 msg/s  4.9 s, ~5.5 s left}. Rewritten in place once a second on a terminal; otherwise a plain line
 * every 5 s, so a log or CI output stays short. The rate is the sender's over the last update; the time left is
 * what the remaining messages take at the rate so far (rate mode: at the planned rate).
 */
public final class RunProgress implements AutoCloseable {
    static final int BAR = 20;

    private final PrintStream out;
    private final boolean terminal;
    private final long total;
    private final double plannedRate;
    private final LongSupplier sent;
    private final LongSupplier received;
    private final Thread thread;
    private final long t0 = System.nanoTime();
    private volatile boolean stop;
    private int lastLength;

    /**
     * Starts printing. {@code plannedRate} is the run's rate, 0 at full speed.
     */
    public static RunProgress start(PrintStream out, boolean terminal, long total, double plannedRate,
                                    LongSupplier sent, LongSupplier received) {
        RunProgress p = new RunProgress(out, terminal, total, plannedRate, sent, received);
        p.thread.start();
        return p;
    }

    private RunProgress(PrintStream out, boolean terminal, long total, double plannedRate, LongSupplier sent,
                        LongSupplier received) {
        this.out = out;
        this.terminal = terminal;
        this.total = total;
        this.plannedRate = plannedRate;
        this.sent = sent;
        this.received = received;
        this.thread = new Thread(this::loop, "msgscope-progress");
        this.thread.setDaemon(true);
    }

    private void loop() {
        long lastReceived = 0;
        long lastNs = t0;
        try {
            while (!stop) {
                Thread.sleep(1_000);
                long now = System.nanoTime();
                if (stop || !terminal && now - lastNs < 5_000_000_000L) {
                    continue; // a plain line every 5 s; its rate is over those 5 s
                }
                long s = sent.getAsLong();
                long r = received.getAsLong();
                double rate = (r - lastReceived) * 1e9 / Math.max(1, now - lastNs);
                lastReceived = r;
                lastNs = now;
                String line = line(s, r, total, rate, (now - t0) / 1e9, plannedRate);
                if (terminal) {
                    out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
                    lastLength = line.length();
                    out.flush();
                } else {
                    out.println(line);
                }
            }
        } catch (InterruptedException e) {
            // stopping
        }
    }

    /**
     * One progress line; {@code rate} the receive rate since the last line, {@code plannedRate} 0 at full speed.
     * The time left is the rest of the messages at the planned rate, or at the average receive rate so far.
     */
    static String line(long sent, long received, long total, double rate, double elapsedS, double plannedRate) {
        int filled = total <= 0 ? BAR : (int) Math.min(BAR, received * BAR / total);
        double pace = plannedRate > 0 ? plannedRate : elapsedS > 0 ? received / elapsedS : 0;
        String left = received >= total ? "done" : pace > 0
                ? String.format(Locale.ROOT, "~%.1f s left", (total - received) / pace) : "? s left";
        // the two counts come from each agent's last heartbeat answer, read ~0.3 s apart: a sent count older than the
        // received one is below it, but what arrived was sent, so the sender is at least there (issue 27)
        String sentShown = sent >= received ? String.format(Locale.ROOT, "%,d", sent)
                : String.format(Locale.ROOT, "≥%,d", received);
        return String.format(Locale.ROOT, "measuring %s%s %,d/%,d received  %s sent  %,d msg/s  %.1f s, %s",
                "━".repeat(filled), "─".repeat(BAR - filled), received, total, sentShown, Math.round(rate), elapsedS,
                left);
    }

    /** Stops printing; on a terminal the in-place line is ended so what follows starts on its own line. */
    @Override
    public void close() {
        stop = true;
        thread.interrupt();
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (terminal && lastLength > 0) {
            out.println();
            out.flush();
        }
    }
}
