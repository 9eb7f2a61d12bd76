package io.msgscope.analysis.output;

import io.msgscope.analysis.RateWindow;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import io.msgscope.analysis.cpu.StepSeries;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Writes {@code trace-envelope.dat}: the per-message series of a long run folded into a fixed number
 * of buckets of consecutive messages, each with the minimum, the (lower, M6) median and the maximum
 * of its defined values, so that a per-message plot of a million messages stays a plot of a few
 * thousand rows (M9, M11: every peak still shows as the bucket's maximum, every dip as its minimum).
 *
 * <pre>
 * # bucket first_seq last_seq mid_seq lat_min_us lat_median_us lat_max_us st_min st_median st_max
 * #        rt_min rt_median rt_max [latc_min_us latc_median_us latc_max_us] [step medians ...]
 * </pre>
 *
 * Bucket {@code b} of {@code B} over {@code n} messages holds messages {@code [b*n/B, (b+1)*n/B)}
 * (integer division), so buckets differ in size by at most one message; with {@code n <= B} each
 * message is its own bucket. Undefined values (lost messages, the first M of ST/RT) are skipped; a
 * bucket without a defined value is {@code NaN}. Step columns (CPU, network per window of N
 * messages, M3/M4) carry the median of the bucket's messages. Medians by quickselect on one scratch
 * array the size of a bucket: O(n) over the run, no sort. Numbers never depend on the Locale.
 */
public final class TraceEnvelope {
    /** Conventional file name in the run folder. */
    public static final String FILE_NAME = "trace-envelope.dat";
    /** Default number of buckets. */
    public static final int DEFAULT_BUCKETS = 2000;
    /** Default: runs of more messages than this are plotted through the envelope. */
    public static final long DEFAULT_ABOVE = 100_000;

    private TraceEnvelope() {
    }

    /** How many buckets {@code buckets} become over {@code n} messages (at most one per message). */
    public static int bucketCount(long n, int buckets) {
        if (buckets < 1) {
            throw new IllegalArgumentException("buckets must be >= 1, was " + buckets);
        }
        return (int) Math.min(n, buckets);
    }

    /** First message of bucket {@code b} of {@code buckets} over {@code n} messages; {@code b = buckets} gives n. */
    public static long firstOf(int b, int buckets, long n) {
        return b * n / buckets;
    }

    /** Writes the envelope of {@code trace} (ST/RT over window M) with step medians of {@code steps}. */
    public static void write(Path file, Trace trace, int window, List<StepSeries> steps, int buckets)
            throws IOException {
        write(file, trace, window, 0, steps, buckets);
    }

    /** The same with ST/RT over {@link RateWindow}s of at least {@code minSpanNs}. */
    public static void write(Path file, Trace trace, int window, long minSpanNs, List<StepSeries> steps, int buckets)
            throws IOException {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            write(out, trace, window, minSpanNs, steps, buckets);
        }
    }

    /** Writes the rows to {@code out} (not closed). */
    public static void write(OutputStream out, Trace trace, int window, List<StepSeries> steps, int buckets)
            throws IOException {
        write(out, trace, window, 0, steps, buckets);
    }

    /** Writes the rows to {@code out} (not closed), ST/RT over {@link RateWindow}s of at least {@code minSpanNs}. */
    public static void write(OutputStream out, Trace trace, int window, long minSpanNs, List<StepSeries> steps,
                             int buckets) throws IOException {
        Objects.requireNonNull(steps, "steps");
        if (window < 1) {
            throw new IllegalArgumentException("window M must be >= 1, was " + window);
        }
        final int n = trace.size();
        final int b = bucketCount(n, buckets);
        final long[] send = trace.sendNs();
        final long[] recv = trace.recvNs();
        final long[] intended = trace.intendedNs();
        AsciiLineBuffer line = new AsciiLineBuffer(out, 1 << 16);
        line.ascii("# ").ascii(String.join(" ", columns(trace, steps))).newline();
        line.ascii("# ").number(b).ascii(" buckets of consecutive messages over ").number(n)
                .ascii("; min, lower median and max of each bucket's defined values; ")
                .ascii(minSpanNs == 0 ? "M=" + window : "ST/RT over windows of " + RateWindow.describe(window, minSpanNs))
                .ascii("; latency in us; NaN = no defined value in the bucket").newline();
        RateWindow sendWindows = new RateWindow(send, window, minSpanNs);
        RateWindow recvWindows = new RateWindow(recv, window, minSpanNs);
        int maxBucket = b == 0 ? 0 : (int) (firstOf(1, b, n) + 1);
        double[] scratch = new double[maxBucket];
        double[] mmm = new double[3];
        for (int k = 0; k < b; k++) {
            int from = (int) firstOf(k, b, n);
            int to = (int) firstOf(k + 1, b, n);
            line.number(k).ch(' ').number(from).ch(' ').number(to - 1).ch(' ').number((from + to - 1) / 2);
            int m = 0;
            for (int i = from; i < to; i++) {
                if (send[i] != Trace.ABSENT && recv[i] != Trace.ABSENT) {
                    scratch[m++] = TraceAnalysis.clampLatency(recv[i] - send[i]) / 1000.0;
                }
            }
            triple(line, scratch, m, mmm, 3);
            triple(line, scratch, rates(sendWindows, from, to, scratch), mmm, 1);
            triple(line, scratch, rates(recvWindows, from, to, scratch), mmm, 1);
            if (intended != null) {
                m = 0;
                for (int i = from; i < to; i++) {
                    if (intended[i] != Trace.ABSENT && recv[i] != Trace.ABSENT && send[i] != Trace.ABSENT) {
                        scratch[m++] = TraceAnalysis.clampLatency(recv[i] - intended[i]) / 1000.0;
                    }
                }
                triple(line, scratch, m, mmm, 3);
            }
            for (StepSeries s : steps) {
                m = 0;
                for (int i = from; i < to; i++) {
                    double v = s.valueAt(i);
                    if (!Double.isNaN(v)) {
                        scratch[m++] = v;
                    }
                }
                line.ch(' ');
                if (m == 0) {
                    line.nan();
                } else {
                    line.fixed(select(scratch, 0, m - 1, (m - 1) / 2), 2);
                }
            }
            line.newline();
        }
        line.flush();
    }

    /** Fills scratch with the defined windowed rates (msg/s) of messages [from, to); returns how many. */
    private static int rates(RateWindow windows, int from, int to, double[] scratch) {
        int m = 0;
        for (int i = from; i < to; i++) {
            double r = windows.rateAt(i);
            if (!Double.isNaN(r) && !Double.isInfinite(r)) {
                scratch[m++] = r;
            }
        }
        return m;
    }

    private static void triple(AsciiLineBuffer line, double[] xs, int m, double[] out, int decimals) throws IOException {
        minMedianMax(xs, m, out);
        for (double v : out) {
            line.ch(' ');
            if (Double.isNaN(v)) {
                line.nan();
            } else {
                line.fixed(v, decimals);
            }
        }
    }

    /**
     * min, lower median and max of {@code xs[0..m)} into {@code out} (NaN each when m = 0). Reorders
     * {@code xs}. The lower median is the element of rank (m−1)/2 (M6), found by quickselect.
     */
    public static void minMedianMax(double[] xs, int m, double[] out) {
        if (m == 0) {
            out[0] = Double.NaN;
            out[1] = Double.NaN;
            out[2] = Double.NaN;
            return;
        }
        double min = xs[0];
        double max = xs[0];
        for (int i = 1; i < m; i++) {
            min = Math.min(min, xs[i]);
            max = Math.max(max, xs[i]);
        }
        out[0] = min;
        out[1] = select(xs, 0, m - 1, (m - 1) / 2);
        out[2] = max;
    }

    /**
     * The element of rank {@code k} (0-based) of {@code xs[lo..hi]} (inclusive), partially reordering
     * it: Hoare-style quickselect with a median-of-three pivot, expected O(hi − lo).
     */
    public static double select(double[] xs, int lo, int hi, int k) {
        while (hi > lo) {
            int mid = (lo + hi) >>> 1;
            double a = xs[lo];
            double b = xs[mid];
            double c = xs[hi];
            double pivot = a < b ? (b < c ? b : Math.max(a, c)) : (a < c ? a : Math.max(b, c));
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (xs[i] < pivot) {
                    i++;
                }
                while (xs[j] > pivot) {
                    j--;
                }
                if (i <= j) {
                    double t = xs[i];
                    xs[i] = xs[j];
                    xs[j] = t;
                    i++;
                    j--;
                }
            }
            if (k <= j) {
                hi = j;
            } else if (k >= i) {
                lo = i;
            } else {
                return xs[k];
            }
        }
        return xs[k];
    }

    /** The column names, in order. */
    public static List<String> columns(Trace trace, List<StepSeries> steps) {
        List<String> c = new ArrayList<>(List.of("bucket", "first_seq", "last_seq", "mid_seq",
                "lat_min_us", "lat_median_us", "lat_max_us", "st_min", "st_median", "st_max",
                "rt_min", "rt_median", "rt_max"));
        if (trace.hasIntended()) {
            c.addAll(List.of("latc_min_us", "latc_median_us", "latc_max_us"));
        }
        for (StepSeries s : steps) {
            c.add(s.name());
        }
        return c;
    }

    /** 1-based gnuplot column of {@code name} in the envelope of {@code trace} with {@code steps}. */
    public static int columnOf(Trace trace, List<StepSeries> steps, String name) {
        int i = columns(trace, steps).indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("trace-envelope.dat has no column \"" + name + "\"");
        }
        return i + 1;
    }
}
