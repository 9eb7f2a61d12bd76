package io.msgscope.analysis.distribution;

import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Latency peaks for the marketing and diagnostic questions of M11: how often latency exceeds
 * k × the median, how high those peaks go, and where in the run they occur.
 *
 * <p>Input is the per-message latency in ns indexed by sequence number ({@link #latencies}
 * builds it from a {@link Trace}); {@link Trace#ABSENT} marks a lost message, which is skipped
 * but keeps its place in the run. Negative latencies are clamped at 0 as in the analysis (Q2).
 *
 * <ul>
 *   <li>median: the lower median of the present latencies (as {@code SeriesStats}, M6), found by
 *       selection on a copy, O(n); or passed in when already known;</li>
 *   <li>a message exceeds factor k when its latency is strictly greater than k × median;</li>
 *   <li>where: the run of {@code length} messages is cut into the first 5 % (indices
 *       {@code [0, length/20)}), the last 5 % ({@code [length − length/20, length)}) and the
 *       middle (integer division, so runs under 20 messages are all middle);</li>
 *   <li>top peaks: the N highest latencies (ties: earlier message first); with a separation
 *       s &gt; 0 only local peaks count — a message higher than every message up to s before it
 *       and at least as high as every message up to s after it — so that one burst does not fill
 *       the list.</li>
 * </ul>
 *
 * <p>This class only analyses: {@link PeakPlots} writes its files, and the coordinator its summary.json section.
 */
public final class PeakAnalysis {

    /** Default factors k of the median (M11): 2, 5 and 10. */
    public static final List<Double> DEFAULT_FACTORS = List.of(2.0, 5.0, 10.0);

    /** Default number of top peaks. */
    public static final int DEFAULT_TOP = 10;

    /** The run is split into the first and last {@code 1/EDGE_DIVISOR} (5 %) and the middle. */
    public static final int EDGE_DIVISOR = 20;

    private PeakAnalysis() {
    }

    /** One peak: message index (sequence number) and latency in ns. */
    public record Peak(int index, long latencyNs) {
    }

    /**
     * Messages above k × median.
     *
     * @param factor k
     * @param thresholdNs k × median
     * @param count messages with latency &gt; threshold
     * @param maxNs highest of them ({@link Trace#ABSENT} when none)
     * @param inFirst of them in the first 5 % of the run
     * @param inMiddle of them in the middle
     * @param inLast of them in the last 5 %
     * @param firstIndex first message above the threshold, −1 when none
     * @param lastIndex last message above the threshold, −1 when none
     */
    public record Exceedance(double factor, double thresholdNs, long count, long maxNs, long inFirst,
            long inMiddle, long inLast, int firstIndex, int lastIndex) {
    }

    /**
     * @param length messages in the run (the prefix analysed, lost ones included)
     * @param present messages with a latency
     * @param medianNs lower median of the present latencies ({@link Trace#ABSENT} when none)
     * @param maxNs highest latency ({@link Trace#ABSENT} when none)
     * @param maxIndex message with the highest latency (first one on ties), −1 when none
     * @param firstEnd end (exclusive) of the first 5 %
     * @param lastStart start of the last 5 %
     * @param exceedances one per factor, in the order given
     * @param topPeaks highest first
     */
    public record Result(int length, long present, long medianNs, long maxNs, int maxIndex, int firstEnd,
            int lastStart, List<Exceedance> exceedances, List<Peak> topPeaks) {

        public Result {
            exceedances = List.copyOf(exceedances);
            topPeaks = List.copyOf(topPeaks);
        }
    }

    /**
     * Per-message latency of {@code trace} in ns, clamped at 0 (Q2), {@link Trace#ABSENT} where
     * the message was not sent or not received.
     */
    public static long[] latencies(Trace trace) {
        int n = trace.size();
        long[] send = trace.sendNs();
        long[] recv = trace.recvNs();
        long[] latency = new long[n];
        for (int i = 0; i < n; i++) {
            long s = send[i];
            long r = recv[i];
            latency[i] = s == Trace.ABSENT || r == Trace.ABSENT ? Trace.ABSENT : TraceAnalysis.clampLatency(r - s);
        }
        return latency;
    }

    /** {@link #DEFAULT_FACTORS}, {@link #DEFAULT_TOP} peaks, no separation. */
    public static Result analyse(long[] latencyNs, int n) {
        return analyse(latencyNs, n, DEFAULT_FACTORS, DEFAULT_TOP, 0);
    }

    /** Computes the median, then {@link #analyse(long[], int, long, List, int, int)}. */
    public static Result analyse(long[] latencyNs, int n, List<Double> factors, int topN, int separation) {
        checkPrefix(latencyNs.length, n);
        return analyse(latencyNs, n, LowerMedian.of(latencyNs, n), factors, topN, separation);
    }

    /**
     * Peak analysis of {@code latencyNs[0, n)} with a known median (e.g. from
     * {@code AnalysisResult.latencyNs().median()}).
     *
     * @param factors the k of "k × median", each positive
     * @param topN how many top peaks to list (0 = none)
     * @param separation minimum distance in messages between listed peaks (0 = plain top N)
     */
    public static Result analyse(long[] latencyNs, int n, long medianNs, List<Double> factors, int topN,
            int separation) {
        checkPrefix(latencyNs.length, n);
        Objects.requireNonNull(factors, "factors");
        if (topN < 0) {
            throw new IllegalArgumentException("topN must be >= 0, was " + topN);
        }
        if (separation < 0) {
            throw new IllegalArgumentException("separation must be >= 0, was " + separation);
        }
        int kCount = factors.size();
        double[] threshold = new double[kCount];
        for (int k = 0; k < kCount; k++) {
            Double factor = factors.get(k);
            if (factor == null || !(factor > 0) || factor.isInfinite()) {
                throw new IllegalArgumentException("factors must be positive numbers, was " + factor);
            }
            threshold[k] = factor * (double) medianNs;
        }
        int edge = n / EDGE_DIVISOR;
        int lastStart = n - edge;
        long[] count = new long[kCount];
        long[] max = new long[kCount];
        long[][] where = new long[kCount][3];
        int[] first = new int[kCount];
        int[] last = new int[kCount];
        Arrays.fill(max, Trace.ABSENT);
        Arrays.fill(first, -1);
        Arrays.fill(last, -1);
        long present = 0;
        long highest = Trace.ABSENT;
        int highestIndex = -1;
        final long absent = Trace.ABSENT;
        for (int i = 0; i < n; i++) {
            long v = latencyNs[i];
            if (v == absent) {
                continue;
            }
            if (v < 0) {
                v = 0;
            }
            present++;
            if (highestIndex < 0 || v > highest) {
                highest = v;
                highestIndex = i;
            }
            int region = i < edge ? 0 : (i >= lastStart ? 2 : 1);
            for (int k = 0; k < kCount; k++) {
                if (v > threshold[k]) {
                    count[k]++;
                    where[k][region]++;
                    if (max[k] == absent || v > max[k]) {
                        max[k] = v;
                    }
                    if (first[k] < 0) {
                        first[k] = i;
                    }
                    last[k] = i;
                }
            }
        }
        List<Exceedance> exceedances = new ArrayList<>(kCount);
        for (int k = 0; k < kCount; k++) {
            exceedances.add(new Exceedance(factors.get(k), threshold[k], count[k], max[k], where[k][0], where[k][1],
                    where[k][2], first[k], last[k]));
        }
        List<Peak> peaks = topPeaks(latencyNs, n, topN, separation);
        return new Result(n, present, present == 0 ? absent : medianNs, highest, highestIndex, edge, lastStart,
                exceedances, peaks);
    }

    /**
     * The {@code topN} highest latencies of {@code latencyNs[0, n)}, highest first (ties: lower
     * index first); with {@code separation > 0} only messages that are higher than all within
     * {@code separation} before and at least as high as all within {@code separation} after.
     */
    public static List<Peak> topPeaks(long[] latencyNs, int n, int topN, int separation) {
        checkPrefix(latencyNs.length, n);
        if (topN <= 0 || n == 0) {
            return List.of();
        }
        boolean[] leftOk = separation > 0 ? new boolean[n] : null;
        int[] stack = separation > 0 ? new int[n] : null;
        final long absent = Trace.ABSENT;
        if (separation > 0) {
            // previous index with a value >= v[i]: must be farther than `separation`
            int top = 0;
            for (int i = 0; i < n; i++) {
                long v = latencyNs[i];
                if (v == absent) {
                    continue;
                }
                v = Math.max(0, v);
                while (top > 0 && Math.max(0, latencyNs[stack[top - 1]]) < v) {
                    top--;
                }
                leftOk[i] = top == 0 || stack[top - 1] < i - separation;
                stack[top++] = i;
            }
        }
        // bounded min-heap of the best candidates: worst at the root
        long[] heapValue = new long[topN];
        int[] heapIndex = new int[topN];
        int heapSize = 0;
        int top = 0;
        for (int i = n - 1; i >= 0; i--) {
            long v = latencyNs[i];
            if (v == absent) {
                continue;
            }
            v = Math.max(0, v);
            if (separation > 0) {
                // next index with a value > v[i]: must be farther than `separation`
                while (top > 0 && Math.max(0, latencyNs[stack[top - 1]]) <= v) {
                    top--;
                }
                boolean rightOk = top == 0 || stack[top - 1] > i + separation;
                stack[top++] = i;
                if (!(rightOk && leftOk[i])) {
                    continue;
                }
            }
            if (heapSize < topN) {
                heapValue[heapSize] = v;
                heapIndex[heapSize] = i;
                siftUp(heapValue, heapIndex, heapSize++);
            } else if (better(v, i, heapValue[0], heapIndex[0])) {
                heapValue[0] = v;
                heapIndex[0] = i;
                siftDown(heapValue, heapIndex, heapSize);
            }
        }
        List<Peak> peaks = new ArrayList<>(heapSize);
        for (int k = 0; k < heapSize; k++) {
            peaks.add(new Peak(heapIndex[k], heapValue[k]));
        }
        peaks.sort((a, b) -> a.latencyNs() != b.latencyNs() ? Long.compare(b.latencyNs(), a.latencyNs())
                : Integer.compare(a.index(), b.index()));
        return peaks;
    }

    /** Whether (v, i) ranks above (w, j): higher value, or equal value and lower index. */
    private static boolean better(long v, int i, long w, int j) {
        return v > w || (v == w && i < j);
    }

    private static void siftUp(long[] value, int[] index, int k) {
        while (k > 0) {
            int parent = (k - 1) / 2;
            if (!better(value[parent], index[parent], value[k], index[k])) {
                break;
            }
            swap(value, index, parent, k);
            k = parent;
        }
    }

    private static void siftDown(long[] value, int[] index, int size) {
        int k = 0;
        while (true) {
            int l = 2 * k + 1;
            if (l >= size) {
                break;
            }
            int r = l + 1;
            int worst = r < size && better(value[l], index[l], value[r], index[r]) ? r : l;
            if (!better(value[k], index[k], value[worst], index[worst])) {
                break;
            }
            swap(value, index, k, worst);
            k = worst;
        }
    }

    private static void swap(long[] value, int[] index, int a, int b) {
        long v = value[a];
        value[a] = value[b];
        value[b] = v;
        int i = index[a];
        index[a] = index[b];
        index[b] = i;
    }

    static void checkPrefix(int length, int n) {
        if (n < 0 || n > length) {
            throw new IllegalArgumentException("prefix length " + n + " outside [0, " + length + "]");
        }
    }
}
