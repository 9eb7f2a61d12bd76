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
 */
public final class HistogramWriter {

    /** Conventional file name in the run folder. */
    public static final String FILE_NAME = "latency-histogram.dat";

    /** Default number of bins. */
    public static final int DEFAULT_BINS = 100;

    private final int bins;
    private final double binWidthUs;

    private HistogramWriter(int bins, double binWidthUs) {
        this.bins = bins;
        this.binWidthUs = binWidthUs;
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
        return new HistogramWriter(bins, Double.NaN);
    }

    /** A writer with bins of {@code widthUs} µs from the minimum until p99.9 is covered. */
    public static HistogramWriter withBinWidthUs(double widthUs) {
        if (!(widthUs > 0) || Double.isInfinite(widthUs)) {
            throw new IllegalArgumentException("bin width must be a positive number of µs, was " + widthUs);
        }
        return new HistogramWriter(0, widthUs);
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
        line.ascii("# overflow: ").number(overflow).ascii(" values above ")
                .fixed(rangeHigh / 1_000d, 3).ascii(" us (of ").number(total).ascii(")").newline();
        line.flush();
    }
}
