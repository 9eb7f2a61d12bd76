package io.msgscope.analysis.output;

import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * Writes the latency HdrHistogram (Q3) as {@code latency.hlog}, an interval log (one histogram per
 * second of the measurement in trace and scenario modes, one per probe in throughput mode) that
 * HdrHistogram's {@code HistogramLogReader} and {@code HistogramLogProcessor} read, and as
 * {@code latency.hgrm} (the whole measurement's percentile distribution, values scaled to µs).
 */
public final class HdrOutput {

    public static final String HLOG_FILE_NAME = "latency.hlog";
    public static final String HGRM_FILE_NAME = "latency.hgrm";

    /** Histogram values are ns; dividing by this gives µs. */
    public static final double NS_PER_US = 1_000.0;

    /** The interval of the trace and scenario logs. */
    public static final long SECOND_NS = 1_000_000_000L;

    private HdrOutput() {
    }

    /**
     * An hlog written interval by interval, so a long run never holds more than one interval's histogram.
     * Times are ms since the epoch; the log's base time is the first interval's start.
     */
    public static final class IntervalLog implements Closeable {
        private final Path file;
        private final PrintStream out;
        private final HistogramLogWriter log;
        private int intervals;

        /** Opens {@code file} and writes the header: a comment, the format version, base and start time, legend. */
        public IntervalLog(Path file, String comment, long startEpochMs) throws IOException {
            this.file = file;
            OutputStream raw = Files.newOutputStream(file);
            this.out = new PrintStream(raw, false, StandardCharsets.US_ASCII);
            this.log = new HistogramLogWriter(out);
            log.outputComment(comment);
            log.outputLogFormatVersion();
            log.setBaseTime(startEpochMs); // interval timestamps are written relative to it
            log.outputBaseTime(startEpochMs);
            log.outputStartTime(startEpochMs);
            log.outputLegend();
        }

        /**
         * Appends one interval; {@code tag} (no whitespace or commas, or null) names it, e.g. a probe's F.
         * The histogram's own time stamps and tag are set to the ones given.
         */
        public void append(Histogram interval, long startEpochMs, long endEpochMs, String tag) {
            if (endEpochMs < startEpochMs) {
                throw new IllegalArgumentException("interval end " + endEpochMs + " before its start " + startEpochMs);
            }
            interval.setStartTimeStamp(startEpochMs);
            interval.setEndTimeStamp(endEpochMs);
            interval.setTag(tag);
            log.outputIntervalHistogram(interval);
            intervals++;
        }

        /** Intervals appended so far. */
        public int intervals() {
            return intervals;
        }

        @Override
        public void close() throws IOException {
            out.flush();
            boolean error = out.checkError();
            out.close();
            if (error) {
                throw new IOException("failed writing " + file);
            }
        }
    }

    /**
     * Writes {@code trace}'s latencies as an interval log, one interval per {@code intervalNs} of send time from
     * the first measured message's send, which happened at {@code measureEpochMs}. Each message counts in the
     * interval it was sent in, with the latency the analysis uses (negative ones as 0, those above the Q3 range
     * at its top), so the intervals add up to the whole run's histogram. Intervals with no message are written
     * empty: a stall shows as a gap. Returns the number of intervals written.
     */
    public static int writeTraceIntervals(Path file, Trace trace, long measureEpochMs, long intervalNs)
            throws IOException {
        return writeTraceIntervals(file, trace, measureEpochMs, intervalNs, null, null);
    }

    /**
     * As {@link #writeTraceIntervals(Path, Trace, long, long)} for a run on load phases (issue 31): each interval is
     * written once per phase whose messages were sent in it, tagged {@code phaseK-NAME}, so that a reader of the log
     * (HdrHistogram's {@code HistogramLogReader}, a plotter filtering by tag) sees where each phase begins and ends and
     * takes one phase's latencies alone; untagged, the intervals still add up to the whole run.
     *
     * @param phaseOf the phase of message {@code i}, or null (one untagged histogram per interval)
     * @param names   each phase's name, by index
     */
    public static int writeTraceIntervals(Path file, Trace trace, long measureEpochMs, long intervalNs,
                                          java.util.function.LongToIntFunction phaseOf, List<String> names)
            throws IOException {
        if (intervalNs <= 0) {
            throw new IllegalArgumentException("interval must be > 0 ns, was " + intervalNs);
        }
        final int n = trace.size();
        final long[] send = trace.sendNs();
        final long[] recv = trace.recvNs();
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        int matched = 0;
        for (int i = 0; i < n; i++) {
            if (send[i] != Trace.ABSENT && recv[i] != Trace.ABSENT) {
                first = Math.min(first, send[i]);
                last = Math.max(last, send[i]);
                matched++;
            }
        }
        String comment = "msgscope latency histogram, values in ns, one interval per "
                + intervalNs / 1e9 + " s of send time";
        try (IntervalLog log = new IntervalLog(file, comment, measureEpochMs)) {
            if (matched == 0) {
                return 0;
            }
            long spanNs = last - first;
            long counted = spanNs / intervalNs + 1;
            if (counted > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("send times span " + spanNs + " ns: too many intervals");
            }
            int k = (int) counted;
            // Messages grouped by interval (a counting sort of indices), so each interval is recorded in one pass.
            int[] start = new int[k + 1];
            for (int i = 0; i < n; i++) {
                if (send[i] != Trace.ABSENT && recv[i] != Trace.ABSENT) {
                    start[(int) ((send[i] - first) / intervalNs) + 1]++;
                }
            }
            for (int j = 0; j < k; j++) {
                start[j + 1] += start[j];
            }
            int[] next = start.clone();
            int[] order = new int[matched];
            for (int i = 0; i < n; i++) {
                if (send[i] != Trace.ABSENT && recv[i] != Trace.ABSENT) {
                    order[next[(int) ((send[i] - first) / intervalNs)]++] = i;
                }
            }
            Histogram h = TraceAnalysis.newLatencyHistogram();
            long intervalMs = Math.max(1, intervalNs / 1_000_000L);
            java.util.TreeMap<Integer, Histogram> byPhase = new java.util.TreeMap<>();
            for (int j = 0; j < k; j++) {
                h.reset();
                byPhase.values().forEach(Histogram::reset);
                for (int x = start[j]; x < start[j + 1]; x++) {
                    int i = order[x];
                    long latency = Math.min(Math.max(0, recv[i] - send[i]), TraceAnalysis.HISTOGRAM_HIGHEST_NS);
                    (phaseOf == null ? h : byPhase.computeIfAbsent(phaseOf.applyAsInt(i),
                            p -> TraceAnalysis.newLatencyHistogram())).recordValue(latency);
                }
                long from = measureEpochMs + j * intervalMs;
                long to = j == k - 1 ? from + Math.max(1, (spanNs - j * intervalNs) / 1_000_000L) : from + intervalMs;
                if (phaseOf == null) {
                    log.append(h, from, to, null);
                    continue;
                }
                boolean any = false;
                for (Map.Entry<Integer, Histogram> e : byPhase.entrySet()) {
                    if (e.getValue().getTotalCount() > 0) {
                        log.append(e.getValue(), from, to, phaseTag(e.getKey(), names.get(e.getKey())));
                        any = true;
                    }
                }
                if (!any) { // a stall (or a pause): the gap stays visible, as without phases
                    log.append(h, from, to, null);
                }
            }
            return k;
        }
    }

    /** The tag of phase {@code k}'s intervals: {@code phaseK-NAME}, the name kept to what a tag may hold. */
    public static String phaseTag(int k, String name) {
        return "phase" + k + "-" + name.replaceAll("[^A-Za-z0-9_-]", "_");
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
