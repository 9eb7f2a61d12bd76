package io.msgscope.core.scenario;

import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Messages counted per fixed slice of epoch time (issue 32: what a fault cost in scenario mode, where no per-message
 * trace is kept): bucket {@code b} holds the messages stamped in {@code [b * width, (b + 1) * width)} epoch ns. One
 * writer per instance (an I/O or pacer thread, its own), any reader: the writer publishes each count with a release
 * store, as the scenario runtime's other per-thread counters do. The buckets are absolute, so the counts of several
 * threads and agents add up bucket by bucket ({@link #sum}).
 */
public final class BucketCounts {
    /** The buckets every writer of a run shares: the first one, their width and how many. */
    public record Span(long first, long widthNs, int length) {
        public Span {
            if (widthNs <= 0 || length <= 0) {
                throw new IllegalArgumentException("a span needs a positive width and length, got " + widthNs + " ns x "
                        + length);
            }
        }

        /** Buckets of {@code widthMs} from the one holding {@code fromEpochNs}, enough to cover {@code coverMs}. */
        public static Span from(long fromEpochNs, int widthMs, long coverMs) {
            long w = widthMs * 1_000_000L;
            return new Span(Math.floorDiv(fromEpochNs, w), w, (int) Math.min(Integer.MAX_VALUE - 8, coverMs / widthMs + 1));
        }
    }

    private final Span span;
    private final AtomicLongArray counts;
    private volatile long outside;

    public BucketCounts(Span span) {
        this.span = span;
        this.counts = new AtomicLongArray(span.length());
    }

    /** Writer: one message stamped {@code epochNs}; one outside the span is counted in {@link #outside()} only. */
    public void add(long epochNs) {
        long k = Math.floorDiv(epochNs, span.widthNs()) - span.first();
        if (k >= 0 && k < span.length()) {
            counts.lazySet((int) k, counts.get((int) k) + 1);
        } else {
            outside = outside + 1; // single writer
        }
    }

    /** Messages stamped before the span's first bucket or after its last. */
    public long outside() {
        return outside;
    }

    /** {@link #outside()} summed over {@code all}. */
    public static long outside(Collection<BucketCounts> all) {
        long n = 0;
        for (BucketCounts b : all) {
            n += b.outside();
        }
        return n;
    }

    /** The counts of {@code all} (one span), bucket by bucket from the span's first, trailing empty buckets cut. */
    public static long[] sum(Collection<BucketCounts> all) {
        long[] out = null;
        for (BucketCounts b : all) {
            if (out == null) {
                out = new long[b.span.length()];
            }
            for (int k = 0; k < out.length; k++) {
                out[k] += b.counts.get(k);
            }
        }
        if (out == null) {
            return new long[0];
        }
        int n = out.length;
        while (n > 0 && out[n - 1] == 0) {
            n--;
        }
        return Arrays.copyOf(out, n);
    }
}
