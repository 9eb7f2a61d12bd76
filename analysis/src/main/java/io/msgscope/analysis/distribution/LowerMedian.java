package io.msgscope.analysis.distribution;

import io.msgscope.analysis.Trace;
import java.util.Arrays;

/**
 * The lower median of a run's latencies without sorting them: introselect on a copy, O(n) expected. The median
 * {@link PeakAnalysis} measures its thresholds against when none is given.
 */
final class LowerMedian {

    private LowerMedian() {
    }

    /**
     * Lower median ({@code sorted[(m − 1)/2]}) of the present latencies of {@code latencyNs[0, n)},
     * clamped at 0; {@link Trace#ABSENT} when there are none. O(n) expected (selection on a copy;
     * the input is not modified).
     */
    static long of(long[] latencyNs, int n) {
        PeakAnalysis.checkPrefix(latencyNs.length, n);
        long[] copy = new long[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
            long v = latencyNs[i];
            if (v != Trace.ABSENT) {
                copy[m++] = Math.max(0, v);
            }
        }
        if (m == 0) {
            return Trace.ABSENT;
        }
        return select(copy, 0, m - 1, (m - 1) / 2);
    }

    /** The k-th smallest of a[lo..hi] (introselect: quickselect, sorting once it goes badly). */
    static long select(long[] a, int lo, int hi, int k) {
        int budget = 2 * (32 - Integer.numberOfLeadingZeros(hi - lo + 1)) + 8;
        while (hi > lo) {
            if (hi - lo < 16 || budget-- == 0) {
                Arrays.sort(a, lo, hi + 1);
                return a[k];
            }
            int mid = lo + (hi - lo) / 2;
            long pivot = medianOf3(a[lo], a[mid], a[hi]);
            // three-way partition: [lo, lt) < pivot, [lt, gt] == pivot, (gt, hi] > pivot
            int lt = lo;
            int gt = hi;
            int i = lo;
            while (i <= gt) {
                long v = a[i];
                if (v < pivot) {
                    a[i++] = a[lt];
                    a[lt++] = v;
                } else if (v > pivot) {
                    a[i] = a[gt];
                    a[gt--] = v;
                } else {
                    i++;
                }
            }
            if (k < lt) {
                hi = lt - 1;
            } else if (k > gt) {
                lo = gt + 1;
            } else {
                return pivot;
            }
        }
        return a[k];
    }

    private static long medianOf3(long a, long b, long c) {
        if (a > b) {
            long t = a;
            a = b;
            b = t;
        }
        if (b > c) {
            b = c;
        }
        return Math.max(a, b);
    }
}
