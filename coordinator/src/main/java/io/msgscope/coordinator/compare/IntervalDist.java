package io.msgscope.coordinator.compare;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import java.util.List;
import java.util.TreeSet;

/**
 * One latency interval of a run (a histogram of latency.hlog) as its distinct values [ns] with their cumulative
 * counts, so that the percentile of any multiset of intervals merged is read without merging histograms: the
 * smallest value whose count at or below it reaches the rank, as HdrHistogram's {@code getValueAtPercentile}
 * reads a merged histogram (each bucket at its highest equivalent value).
 */
public final class IntervalDist {
    private final long[] values;
    private final long[] cumulative;
    private final long total;
    private final double sum;

    IntervalDist(long[] values, long[] counts) {
        this.values = values.clone();
        this.cumulative = new long[counts.length];
        long c = 0;
        double s = 0;
        for (int i = 0; i < counts.length; i++) {
            c += counts[i];
            s += (double) values[i] * counts[i];
            cumulative[i] = c;
        }
        this.total = c;
        this.sum = s;
    }

    /** The histogram's recorded buckets, each at its highest equivalent value (exact below 2048 ns). */
    public static IntervalDist of(Histogram h) {
        int n = 0;
        for (HistogramIterationValue ignored : h.recordedValues()) {
            n++;
        }
        long[] v = new long[n];
        long[] c = new long[n];
        int i = 0;
        for (HistogramIterationValue x : h.recordedValues()) {
            v[i] = h.highestEquivalentValue(x.getValueIteratedTo());
            c[i++] = x.getCountAtValueIteratedTo();
        }
        return new IntervalDist(v, c);
    }

    public long total() {
        return total;
    }

    long[] values() {
        return values;
    }

    /** Messages at or below v. */
    long countAtOrBelow(long v) {
        int lo = 0;
        int hi = values.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (values[mid] <= v) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? 0 : cumulative[found];
    }

    /**
     * The q-quantile (0 < q ≤ 1) [ns] of the intervals {@code picked} (indices into {@code all}, repeats counting
     * twice) merged: the smallest of {@code grid}'s values (sorted, every value of every interval) whose count at or
     * below reaches max(1, round(q × N)) (HdrHistogram's rank); NaN when they hold no message.
     */
    static double quantile(List<IntervalDist> all, int[] picked, double q, long[] grid) {
        long n = 0;
        for (int p : picked) {
            n += all.get(p).total;
        }
        if (n == 0) {
            return Double.NaN;
        }
        long rank = Math.max(1, (long) (q * n + 0.5));
        int lo = 0;
        int hi = grid.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            long c = 0;
            for (int p : picked) {
                c += all.get(p).countAtOrBelow(grid[mid]);
            }
            if (c >= rank) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return grid[lo];
    }

    /** The mean [ns] of the intervals {@code picked} merged; NaN when they hold no message. */
    static double mean(List<IntervalDist> all, int[] picked) {
        long n = 0;
        double s = 0;
        for (int p : picked) {
            n += all.get(p).total;
            s += all.get(p).sum;
        }
        return n == 0 ? Double.NaN : s / n;
    }

    /** Every value of every interval, sorted, each once. */
    static long[] grid(List<IntervalDist> all) {
        TreeSet<Long> set = new TreeSet<>();
        for (IntervalDist d : all) {
            for (long v : d.values) {
                set.add(v);
            }
        }
        return set.stream().mapToLong(Long::longValue).toArray();
    }
}
