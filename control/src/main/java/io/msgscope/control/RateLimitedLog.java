package io.msgscope.control;

import java.io.PrintStream;
import java.util.function.LongSupplier;

/**
 * Log lines about peers that are refused, at a bounded rate (issue 14: 50 connections of junk grew an
 * agent's log by 19 MB in 3 s). A token bucket: a burst of {@code burst} lines, then one line per
 * {@code periodNs}; lines over the budget are counted, and the count is written with the next line
 * that is allowed. The log therefore grows by at most about (burst + elapsed / period) lines whatever
 * the peers send.
 */
public final class RateLimitedLog {
    private final PrintStream out;
    private final String prefix;
    private final int burst;
    private final long periodNs;
    private final LongSupplier clock;
    private double tokens;
    private long last;
    private long suppressed;

    public RateLimitedLog(PrintStream out, String prefix, int burst, long periodNs, LongSupplier clock) {
        this.out = out;
        this.prefix = prefix;
        this.burst = burst;
        this.periodNs = periodNs;
        this.clock = clock;
        this.tokens = burst;
        this.last = clock.getAsLong();
    }

    /** Ten lines at once, then one a second. */
    public static RateLimitedLog standard(PrintStream out, String prefix) {
        return new RateLimitedLog(out, prefix, 10, 1_000_000_000L, System::nanoTime);
    }

    /** Logs {@code line} if the budget allows; returns whether it was written. Lines are cut at 300 characters. */
    public synchronized boolean log(String line) {
        long now = clock.getAsLong();
        tokens = Math.min(burst, tokens + (double) (now - last) / periodNs);
        last = now;
        if (tokens < 1) {
            suppressed++;
            return false;
        }
        tokens -= 1;
        String l = line.length() > 300 ? line.substring(0, 300) + "..." : line;
        if (suppressed > 0) {
            out.println(prefix + suppressed + " more refused control connection(s) not logged (rate limit)");
            suppressed = 0;
        }
        out.println(prefix + l.replace('\n', ' ').replace('\r', ' '));
        return true;
    }

    public synchronized long suppressed() {
        return suppressed;
    }
}
