package io.msgscope.analysis.output;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.SeriesStats;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code latency-histogram.dat} (M8, M9): equal-width bins of the exact (clamped)
 * latencies over [min, p99.9], in µs with three decimals.
 *
 * <pre>
 * # bin_low_us bin_high_us bin_center_us count
 * ...
 * # overflow: N values above X us (of T)
 * </pre>
 *
 * Either a bin count (default 100) or an explicit bin width in µs is configured; with a width
 * the bins start at the minimum and extend until they cover p99.9. The last bin includes its
 * upper edge. When the range is empty (all latencies equal) it is widened to 1 µs.
 *
 * <p>With {@link #withLogBins} (issue 29, what {@code msgscope run} writes by default) the bins are log-spaced instead:
 * each edge is the one before times the same ratio, from the minimum (at least 1 ns) to p99.9, so a run whose bulk sits
 * at tens of µs with a tail to tens of ms is drawn in every bin rather than in the first two of a hundred equal ones.
 * The ratio is on a second comment line; {@code bin_center_us} is still the midpoint of the bin's edges, so that a
 * box from {@code bin_low_us} to {@code bin_high_us} is drawn on a log axis too.
 */
public final class HistogramWriter {

    /** Conventional file name in the run folder. */
    public static final String FILE_NAME = "latency-histogram.dat";

    /** Default number of bins. */
    public static final int DEFAULT_BINS = 100;

    private final int bins;
    private final double binWidthUs;
    private final boolean log;

    private HistogramWriter(int bins, double binWidthUs, boolean log) {
        this.bins = bins;
        this.binWidthUs = binWidthUs;
        this.log = log;
    }

    /** A writer with {@link #DEFAULT_BINS} bins. */
    public static HistogramWriter withDefaultBins() {
        return withBins(DEFAULT_BINS);
    }

    /** A writer with {@code bins} equal-width bins over [min, p99.9]. */
    public static HistogramWriter withBins(int bins) {
        if (bins < 1) {
            throw new IllegalArgumentException("bins must be >= 1, was " + bins);
        }
        return new HistogramWriter(bins, Double.NaN, false);
    }

    /** A writer with {@code bins} log-spaced bins over [max(min, 1 ns), p99.9]. */
    public static HistogramWriter withLogBins(int bins) {
        if (bins < 1) {
            throw new IllegalArgumentException("bins must be >= 1, was " + bins);
        }
        return new HistogramWriter(bins, Double.NaN, true);
    }

    /** A writer with bins of {@code widthUs} µs from the minimum until p99.9 is covered. */
    public static HistogramWriter withBinWidthUs(double widthUs) {
        if (!(widthUs > 0) || Double.isInfinite(widthUs)) {
            throw new IllegalArgumentException("bin width must be a positive number of µs, was " + widthUs);
        }
        return new HistogramWriter(0, widthUs, false);
    }

    /**
     * Writes {@code latency-histogram.gp} for the bins {@link HistogramWriter} wrote: equal-width ones on a linear
     * axis, or log-spaced ones ({@code log}) on a log axis, where each bin is equally wide.
     */
    public static Path writeScript(Path dir, boolean log) throws IOException {
        return GnuplotScripts.write(dir.resolve(GnuplotScripts.LATENCY_HISTOGRAM), script(log));
    }

    static String script(boolean log) {
        return GnuplotScripts.preamble("latency histogram (from latency-histogram.dat)", "latency-histogram.png")
                + (log ? "set title \"Latency histogram, log-spaced bins (min to p99.9; overflow count in the data file)\"\n"
                        + "set logscale x 10\n"
                        + "set autoscale xfix\n" // the axis ends where the bins do, not at the next decade
                        + "set format x \"%g\"\n"
                        : "set title \"Latency histogram (min to p99.9; overflow count in the data file)\"\n")
                + "set xlabel \"latency [µs]" + (log ? " (log scale)" : "") + "\"\n"
                + "set ylabel \"messages per bin\"\n"
                + "set yrange [0:*]\n"
                + "set style fill solid 0.6 border -1\n"
                + "set key top right\n"
                + "plot \"latency-histogram.dat\" using 3:4:($2-$1) with boxes title \"messages\"\n";
    }

    /** Writes the histogram of {@code trace}'s latencies, ranged by {@code result}'s latency stats. */
    public void write(Path file, Trace trace, AnalysisResult result) throws IOException {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 14)) {
            write(out, trace, result);
        }
    }

    /** Writes the histogram to {@code out} (not closed). */
    public void write(OutputStream out, Trace trace, AnalysisResult result) throws IOException {
        AsciiLineBuffer line = new AsciiLineBuffer(out, 1 << 14);
        line.ascii("# bin_low_us bin_high_us bin_center_us count").newline();
        SeriesStats stats = result.latencyNs();
        if (stats.isEmpty()) {
            line.ascii("# no latency values").newline();
            line.flush();
            return;
        }
        if (log) {
            writeLog(line, trace, (long) stats.min(), (long) stats.p999());
            return;
        }
        long low = (long) stats.min();
        long span = (long) stats.p999() - low;
        if (span <= 0) {
            span = 1_000;
        }
        int binCount;
        double width;
        double rangeHigh;
        if (Double.isNaN(binWidthUs)) {
            binCount = bins;
            width = (double) span / bins;
            rangeHigh = low + span;
        } else {
            width = binWidthUs * 1_000d;
            double needed = Math.ceil(span / width);
            if (needed > 10_000_000) {
                throw new IllegalArgumentException("bin width " + binWidthUs
                        + " us would need " + (long) needed + " bins to cover [min, p99.9]");
            }
            binCount = Math.max(1, (int) needed);
            rangeHigh = low + binCount * width;
        }

        long[] counts = new long[binCount];
        long overflow = 0;
        long total = 0;
        final long[] send = trace.sendNs();
        final long[] recv = trace.recvNs();
        final int n = trace.size();
        for (int i = 0; i < n; i++) {
            long s = send[i];
            long r = recv[i];
            if (s == Trace.ABSENT || r == Trace.ABSENT) {
                continue;
            }
            long x = TraceAnalysis.clampLatency(r - s);
            total++;
            if (x > rangeHigh) {
                overflow++;
                continue;
            }
            int bin = (int) ((x - low) / width);
            if (bin >= binCount) {
                bin = binCount - 1;
            } else if (bin < 0) {
                bin = 0;
            }
            counts[bin]++;
        }

        for (int b = 0; b < binCount; b++) {
            double binLow = low + b * width;
            double binHigh = b == binCount - 1 ? rangeHigh : low + (b + 1) * width;
            line.fixed(binLow / 1_000d, 3).ch(' ')
                    .fixed(binHigh / 1_000d, 3).ch(' ')
                    .fixed((binLow + binHigh) / 2_000d, 3).ch(' ')
                    .number(counts[b]).newline();
        }
        overflowLine(line, overflow, rangeHigh, total);
    }

    /** The log-spaced bins over [max(min, 1 ns), p99.9]: edge k is low x ratio^k, a value in the bin of its edges. */
    private void writeLog(AsciiLineBuffer line, Trace trace, long min, long p999) throws IOException {
        double low = Math.max(min, 1);
        double high = p999 > low ? p999 : low + 1_000; // all equal: 1 µs wide, as the linear bins
        double[] edges = new double[bins + 1];
        double logRatio = Math.log(high / low) / bins;
        for (int k = 0; k < bins; k++) {
            edges[k] = low * Math.exp(k * logRatio);
        }
        edges[bins] = high;
        line.ascii("# log-spaced bins: each edge is ").fixed(Math.exp(logRatio), 6).ascii(" times the one before")
                .newline();
        long[] counts = new long[bins];
        long overflow = 0;
        long total = 0;
        final long[] send = trace.sendNs();
        final long[] recv = trace.recvNs();
        for (int i = 0; i < trace.size(); i++) {
            if (send[i] == Trace.ABSENT || recv[i] == Trace.ABSENT) {
                continue;
            }
            long x = TraceAnalysis.clampLatency(recv[i] - send[i]);
            total++;
            if (x > high) {
                overflow++;
                continue;
            }
            // the last edge at or below x (a latency under 1 ns, i.e. 0, counts in the first bin)
            int at = java.util.Arrays.binarySearch(edges, x);
            int bin = at >= 0 ? at : -at - 2;
            counts[Math.max(0, Math.min(bins - 1, bin))]++;
        }
        for (int b = 0; b < bins; b++) {
            line.fixed(edges[b] / 1_000d, 3).ch(' ')
                    .fixed(edges[b + 1] / 1_000d, 3).ch(' ')
                    .fixed((edges[b] + edges[b + 1]) / 2_000d, 3).ch(' ')
                    .number(counts[b]).newline();
        }
        overflowLine(line, overflow, high, total);
    }

    private static void overflowLine(AsciiLineBuffer line, long overflow, double rangeHigh, long total)
            throws IOException {
        line.ascii("# overflow: ").number(overflow).ascii(" values above ")
                .fixed(rangeHigh / 1_000d, 3).ascii(" us (of ").number(total).ascii(")").newline();
        line.flush();
    }
}
