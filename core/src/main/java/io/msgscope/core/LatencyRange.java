package io.msgscope.core;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Q3's latency histogram, the one definition every mode records into: HdrHistogram from 1 µs to 10 s at 3
 * significant digits. Values are nanoseconds; what lies outside is clamped into the range by the recorder
 * that knows why (a negative latency is clock error, above 10 s is counted apart).
 */
public final class LatencyRange {
    /** 1 µs, in ns. */
    public static final long LOWEST_NS = 1_000L;
    /** 10 s, in ns. */
    public static final long HIGHEST_NS = 10_000_000_000L;
    /** Significant decimal digits. */
    public static final int DIGITS = 3;

    private LatencyRange() {
    }

    /** An empty histogram of the range. */
    public static Histogram histogram() {
        return new Histogram(LOWEST_NS, HIGHEST_NS, DIGITS);
    }

    /** An empty single-writer recorder of the range. */
    public static SingleWriterRecorder recorder() {
        return new SingleWriterRecorder(LOWEST_NS, HIGHEST_NS, DIGITS);
    }

    /** A latency in ns brought into [0, HIGHEST_NS]. */
    public static long clamp(long ns) {
        return Math.min(Math.max(ns, 0), HIGHEST_NS);
    }
}
