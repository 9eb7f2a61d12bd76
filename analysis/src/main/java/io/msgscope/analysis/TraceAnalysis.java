package io.msgscope.analysis;

import org.HdrHistogram.Histogram;

/**
 * After-the-run analysis of a {@link Trace}: latency (M1, Q2), overheads and throughputs (M2),
 * aggregates (M6), the M12 identity check and the latency HdrHistogram (Q3).
 *
 * <p>Footprint: besides the trace itself the analysis allocates one {@code long[count]} scratch,
 * reused for every series (fill, sort in place, aggregate, refill), one {@code double[count]}
 * scratch for the throughput series and one HdrHistogram. Nothing is boxed and no object is
 * allocated per message.
 *
 * <p>Throughput is computed as ST_n = M·10⁹ / (O_n − O_{n−M}), which equals 10⁹/SO_n. Because
 * x ↦ c/x is monotone on each sign, the sorted throughput series is read off the sorted overhead
 * series without a second sort.
 */
public final class TraceAnalysis {

    /** Default throughput window M (M2). */
    public static final int DEFAULT_WINDOW = 100;

    /** Histogram range and precision (Q3): 1 µs to 10 s in ns, 3 significant digits. */
    public static final long HISTOGRAM_LOWEST_NS = 1_000L;
    public static final long HISTOGRAM_HIGHEST_NS = 10_000_000_000L;
    public static final int HISTOGRAM_DIGITS = 3;

    private static final double NS_PER_SECOND = 1_000_000_000d;

    private TraceAnalysis() {
    }

    /** A fresh, empty latency histogram with the Q3 range and precision. */
    public static Histogram newLatencyHistogram() {
        return new Histogram(HISTOGRAM_LOWEST_NS, HISTOGRAM_HIGHEST_NS, HISTOGRAM_DIGITS);
    }

    /**
     * Throughput in msg/s over a window of {@code window} messages that took {@code spanNs}:
     * {@code window·10⁹/spanNs}, i.e. 10⁹/SO. NaN when {@code spanNs} is 0 (undefined).
     */
    public static double throughputMsgPerSec(long spanNs, int window) {
        if (spanNs == 0) {
            return Double.NaN;
        }
        return (window * NS_PER_SECOND) / spanNs;
    }

    /** Latency clamped at 0 (Q2). */
    public static long clampLatency(long latencyNs) {
        return latencyNs < 0 ? 0 : latencyNs;
    }

    /**
     * Analyses {@code trace} with throughput window {@code window} (M ≥ 1).
     *
     * @throws IllegalArgumentException if the window is not positive
     */
    public static AnalysisResult analyse(Trace trace, int window) {
        return analyse(trace, window, 0);
    }

    /**
     * Analyses {@code trace} with ST/RT (and SO/RO) over windows of at least {@code window} messages
     * that also span at least {@code minSpanNs} ({@link RateWindow}); 0 gives M2's windows exactly.
     * The M12 identity check always uses M2's fixed window M.
     */
    public static AnalysisResult analyse(Trace trace, int window, long minSpanNs) {
        if (minSpanNs < 0) {
            throw new IllegalArgumentException("minimum span must be >= 0, was " + minSpanNs);
        }
        if (window < 1) {
            throw new IllegalArgumentException("window M must be >= 1, was " + window);
        }
        final int n = trace.size();
        final long[] send = trace.sendNs();
        final long[] recv = trace.recvNs();
        final long absent = Trace.ABSENT;

        AnalysisResult.Builder b = new AnalysisResult.Builder();
        b.window = window;
        b.count = n;

        long[] scratch = new long[n];

        // Pass 1: counts, latency series, histogram, identity check.
        Histogram histogram = newLatencyHistogram();
        long sent = 0;
        long received = 0;
        long lost = 0;
        long orphan = 0;
        long clamped = 0;
        long above = 0;
        long checked = 0;
        long violations = 0;
        double maxError = 0;
        int latencies = 0;
        final double m = window;
        for (int i = 0; i < n; i++) {
            long s = send[i];
            long r = recv[i];
            boolean hasSend = s != absent;
            boolean hasRecv = r != absent;
            if (hasSend) {
                sent++;
                if (!hasRecv) {
                    lost++;
                }
            }
            if (hasRecv) {
                received++;
                if (!hasSend) {
                    orphan++;
                }
            }
            if (hasSend && hasRecv) {
                long latency = r - s;
                if (latency < 0) {
                    clamped++;
                    latency = 0;
                }
                scratch[latencies++] = latency;
                if (latency > HISTOGRAM_HIGHEST_NS) {
                    above++;
                    latency = HISTOGRAM_HIGHEST_NS;
                }
                histogram.recordValue(latency);
                if (i >= window) {
                    long s0 = send[i - window];
                    long r0 = recv[i - window];
                    if (s0 != absent && r0 != absent) {
                        checked++;
                        long dRecv = r - r0;
                        long dSend = s - s0;
                        long dLatency = (r - s) - (r0 - s0);
                        if (dRecv - dSend != dLatency) {
                            violations++;
                        }
                        double err = Math.abs(m * (dRecv / m - dSend / m) - dLatency);
                        if (err > maxError) {
                            maxError = err;
                        }
                    }
                }
            }
        }
        b.sent = sent;
        b.received = received;
        b.lost = lost;
        b.receivedWithoutSend = orphan;
        b.clampedNegative = clamped;
        b.aboveRange = above;
        b.latencyHistogram = histogram;
        b.identity = new IdentityCheck(checked, violations, maxError);
        b.latencyNs = SeriesStats.ofLongs(scratch, latencies);

        // Coordinated-omission corrected latency (rate mode).
        long[] intended = trace.intendedNs();
        if (intended != null) {
            int k = 0;
            long clampedCorrected = 0;
            for (int i = 0; i < n; i++) {
                long t = intended[i];
                long r = recv[i];
                if (t != absent && r != absent && send[i] != absent) {
                    long latency = r - t;
                    if (latency < 0) {
                        clampedCorrected++;
                        latency = 0;
                    }
                    scratch[k++] = latency;
                }
            }
            b.latencyCorrectedNs = SeriesStats.ofLongs(scratch, k);
            b.clampedNegativeCorrected = clampedCorrected;
        }

        // Overheads and throughputs (M2).
        double[] rates = new double[Math.max(0, n - window)];
        b.rateWindowMinNs = minSpanNs;
        if (minSpanNs > 0) {
            long[] se = spanned(send, n, window, minSpanNs, rates, true);
            b.soNs = SeriesStats.ofDoubles(rates, (int) se[0]);
            se = spanned(send, n, window, minSpanNs, rates, false);
            b.stMsgPerSec = SeriesStats.ofDoubles(rates, (int) se[0]);
            b.zeroSendOverhead = se[1];
            b.stExtended = se[2];
            b.stUndefined = se[3];
            long[] re = spanned(recv, n, window, minSpanNs, rates, true);
            b.roNs = SeriesStats.ofDoubles(rates, (int) re[0]);
            re = spanned(recv, n, window, minSpanNs, rates, false);
            b.rtMsgPerSec = SeriesStats.ofDoubles(rates, (int) re[0]);
            b.zeroReceiveOverhead = re[1];
            b.rtExtended = re[2];
            b.rtUndefined = re[3];
            return b.build();
        }
        int spans = windowSpans(send, n, window, scratch);
        b.soNs = SeriesStats.ofLongs(scratch, spans).dividedBy(window);
        int defined = sortedThroughputs(scratch, spans, window, rates);
        b.zeroSendOverhead = spans - defined;
        b.stMsgPerSec = SeriesStats.ofSortedDoubles(rates, defined);

        spans = windowSpans(recv, n, window, scratch);
        b.roNs = SeriesStats.ofLongs(scratch, spans).dividedBy(window);
        defined = sortedThroughputs(scratch, spans, window, rates);
        b.zeroReceiveOverhead = spans - defined;
        b.rtMsgPerSec = SeriesStats.ofSortedDoubles(rates, defined);

        return b.build();
    }

    /**
     * Fills {@code out} with the overheads (ns per message, {@code overheads}) or the rates (msg/s) of the
     * {@link RateWindow}s of {@code times}; returns {values written, zero spans, windows longer than M,
     * n ≥ M with t_n present but no window}.
     */
    private static long[] spanned(long[] times, int n, int window, long minSpanNs, double[] out, boolean overheads) {
        RateWindow w = new RateWindow(times, window, minSpanNs);
        int k = 0;
        long zero = 0;
        long extended = 0;
        long undefined = 0;
        for (int i = window; i < n; i++) {
            int len = w.lengthAt(i);
            if (len == 0) {
                if (times[i] != Trace.ABSENT) {
                    undefined++;
                }
                continue;
            }
            if (len > window) {
                extended++;
            }
            long span = times[i] - times[i - len];
            if (overheads) {
                out[k++] = (double) span / len;
            } else if (span == 0) {
                zero++;
            } else {
                out[k++] = len * NS_PER_SECOND / span;
            }
        }
        return new long[] {k, zero, extended, undefined};
    }

    /** Writes t_n − t_{n−M} for every n ≥ M with both present into {@code out}; returns how many. */
    private static int windowSpans(long[] times, int n, int window, long[] out) {
        int k = 0;
        final long absent = Trace.ABSENT;
        for (int i = window; i < n; i++) {
            long t = times[i];
            long t0 = times[i - window];
            if (t != absent && t0 != absent) {
                out[k++] = t - t0;
            }
        }
        return k;
    }

    /**
     * From ascending spans {@code sorted[0, k)} writes the defined throughputs M·10⁹/span in
     * ascending order into {@code out} and returns how many (zero spans are undefined and left
     * out). c/x decreases on each sign, so ascending throughput is the negative spans in reverse
     * followed by the positive spans in reverse.
     */
    private static int sortedThroughputs(long[] sorted, int k, int window, double[] out) {
        int firstNonNegative = 0;
        while (firstNonNegative < k && sorted[firstNonNegative] < 0) {
            firstNonNegative++;
        }
        int firstPositive = firstNonNegative;
        while (firstPositive < k && sorted[firstPositive] == 0) {
            firstPositive++;
        }
        final double c = window * NS_PER_SECOND;
        int j = 0;
        for (int i = firstNonNegative - 1; i >= 0; i--) {
            out[j++] = c / sorted[i];
        }
        for (int i = k - 1; i >= firstPositive; i--) {
            out[j++] = c / sorted[i];
        }
        return j;
    }
}
