package io.msgscope.analysis;

/**
 * The window of an ST_n or RT_n value (M2, issue 17): the M messages ending at n as the seed defines
 * it, or — with a minimum span T &gt; 0 — the fewest messages k ≥ M ending at n whose times span at
 * least T: {@code rate_n = k·10⁹ / (t_n − t_{n−k})}, with {@code n − k} the largest index ≤ n − M whose
 * time is present and at least T before t_n. A receiver that reads a thousand messages in one
 * system call stamps them microseconds apart, so over M = 100 of them RT is the rate at which it
 * parsed the read (tens of millions per second), not a receive rate; a window that also spans
 * several reads (seed 000 takes ≥ 10 ms for the same reason) is a throughput again.
 *
 * <p>Walk n upwards ({@link #lengthAt} with non-decreasing n): the window's start only moves forward,
 * so a whole series costs O(count). Times are assumed to be non-decreasing in n (send times always
 * are; receive times are unless messages were reordered): an n whose time is earlier than a later
 * start allows is left undefined rather than searched backwards. With T = 0 the window is exactly M2's.
 */
public final class RateWindow {
    private final long[] times;
    private final int window;
    private final long minSpanNs;
    private int start = -1;
    private int last = -1;

    public RateWindow(long[] times, int window, long minSpanNs) {
        if (window < 1) {
            throw new IllegalArgumentException("window M must be >= 1, was " + window);
        }
        if (minSpanNs < 0) {
            throw new IllegalArgumentException("minimum span must be >= 0, was " + minSpanNs);
        }
        this.times = times;
        this.window = window;
        this.minSpanNs = minSpanNs;
    }

    /**
     * Messages in the window ending at n (k ≥ M, M exactly when the minimum span is 0), or 0 when
     * the value is undefined: n &lt; M, t_n or the start absent, or no start far enough back yet.
     * Calls must come with non-decreasing n.
     */
    public int lengthAt(int n) {
        if (n < last) {
            throw new IllegalArgumentException("n must not decrease: " + n + " after " + last);
        }
        last = n;
        final long absent = Trace.ABSENT;
        if (n < window || times[n] == absent) {
            return 0;
        }
        if (minSpanNs == 0) {
            return times[n - window] == absent ? 0 : window;
        }
        final int limit = n - window;
        final long t = times[n];
        while (true) {
            int q = start + 1;
            while (q <= limit && times[q] == absent) {
                q++;
            }
            if (q > limit || t - times[q] < minSpanNs) {
                break;
            }
            start = q;
        }
        if (start < 0 || times[start] == absent || t - times[start] < minSpanNs) {
            return 0;
        }
        return n - start;
    }

    /** The rate of the window ending at n in msg/s (NaN when undefined or the span is 0); same order rule. */
    public double rateAt(int n) {
        int k = lengthAt(n);
        if (k == 0) {
            return Double.NaN;
        }
        return TraceAnalysis.throughputMsgPerSec(times[n] - times[n - k], k);
    }

    /** How the windows were chosen, for labels: "M = 100 messages" or "≥ 100 messages and ≥ 10 ms". */
    public static String describe(int window, long minSpanNs) {
        if (minSpanNs == 0) {
            return "M = " + window + " messages";
        }
        String t = minSpanNs % 1_000_000 == 0 ? minSpanNs / 1_000_000 + " ms"
                : minSpanNs % 1_000 == 0 ? minSpanNs / 1_000 + " us" : minSpanNs + " ns";
        return ">= " + window + " messages and >= " + t;
    }
}
