package io.msgscope.analysis.output;

import io.msgscope.analysis.AnalysisResult;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * Writes the latency HdrHistogram (Q3) as {@code latency.hlog} (one interval covering the
 * measurement, readable by {@code HistogramLogReader} and HdrHistogram's plotting tools) and as
 * {@code latency.hgrm} (the percentile distribution, values scaled to µs).
 */
public final class HdrOutput {

    public static final String HLOG_FILE_NAME = "latency.hlog";
    public static final String HGRM_FILE_NAME = "latency.hgrm";

    /** Histogram values are ns; dividing by this gives µs. */
    public static final double NS_PER_US = 1_000.0;

    private HdrOutput() {
    }

    /**
     * Writes both files into {@code runDir}.
     *
     * @param startEpochMs wall-clock start of the measurement, ms since the epoch
     * @param endEpochMs wall-clock end of the measurement, ms since the epoch
     */
    public static void writeAll(Path runDir, AnalysisResult result, long startEpochMs, long endEpochMs)
            throws IOException {
        Histogram histogram = result.latencyHistogram();
        writeHlog(runDir.resolve(HLOG_FILE_NAME), histogram, startEpochMs, endEpochMs);
        writeHgrm(runDir.resolve(HGRM_FILE_NAME), histogram);
    }

    /** Writes an hlog with a comment, base time, start time, legend and one interval. */
    public static void writeHlog(Path file, Histogram histogram, long startEpochMs, long endEpochMs)
            throws IOException {
        if (endEpochMs < startEpochMs) {
            throw new IllegalArgumentException("end " + endEpochMs + " before start " + startEpochMs);
        }
        Histogram interval = histogram.copy();
        interval.setStartTimeStamp(startEpochMs);
        interval.setEndTimeStamp(endEpochMs);
        try (OutputStream raw = Files.newOutputStream(file);
                PrintStream out = new PrintStream(raw, false, StandardCharsets.US_ASCII)) {
            HistogramLogWriter log = new HistogramLogWriter(out);
            log.outputComment("msgscope latency histogram, values in ns, one interval covering the measurement");
            log.outputLogFormatVersion();
            log.setBaseTime(startEpochMs); // interval timestamps are written relative to it
            log.outputBaseTime(startEpochMs);
            log.outputStartTime(startEpochMs);
            log.outputLegend();
            log.outputIntervalHistogram(interval);
            out.flush();
            if (out.checkError()) {
                throw new IOException("failed writing " + file);
            }
        }
    }

    /** Writes the percentile distribution with values in µs. */
    public static void writeHgrm(Path file, Histogram histogram) throws IOException {
        try (OutputStream raw = Files.newOutputStream(file);
                PrintStream out = new PrintStream(raw, false, StandardCharsets.US_ASCII)) {
            histogram.outputPercentileDistribution(out, NS_PER_US);
            out.flush();
            if (out.checkError()) {
                throw new IOException("failed writing " + file);
            }
        }
    }
}
