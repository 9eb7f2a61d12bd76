package io.msgscope.analysis.output;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HdrOutputTest {

    @TempDir
    Path dir;

    /** 1000 messages with latencies 20 µs, 21 µs, ..., 1019 µs. */
    private static AnalysisResult result() {
        int n = 1000;
        long[] send = new long[n];
        long[] recv = new long[n];
        for (int i = 0; i < n; i++) {
            send[i] = 1_000_000L * i;
            recv[i] = send[i] + 20_000L + 1_000L * i;
        }
        return TraceAnalysis.analyse(new Trace(n, send, null, recv), 10);
    }

    /** Messages every 1 ms for {@code n} ms from t = 5 s (monotonic), latency 20 µs + 1 µs per message. */
    private static Trace steady(int n) {
        long[] send = new long[n];
        long[] recv = new long[n];
        for (int i = 0; i < n; i++) {
            send[i] = 5_000_000_000L + 1_000_000L * i;
            recv[i] = send[i] + 20_000L + 1_000L * i;
        }
        return new Trace(n, send, null, recv);
    }

    private static List<Histogram> readAll(Path hlog) throws IOException {
        HistogramLogReader reader = new HistogramLogReader(hlog.toFile());
        List<Histogram> all = new ArrayList<>();
        for (EncodableHistogram h; (h = reader.nextIntervalHistogram()) != null; ) {
            all.add((Histogram) h);
        }
        return all;
    }

    @Test
    void oneIntervalPerSecondOfSendTimeAddingUpToTheWholeHistogram() throws IOException {
        Locale saved = Locale.getDefault();
        try {
            Locale.setDefault(Locale.GERMANY);
            Trace trace = steady(3_500);
            Path hlog = dir.resolve(HdrOutput.HLOG_FILE_NAME);
            assertEquals(4, HdrOutput.writeTraceIntervals(hlog, trace, 1_700_000_000_000L, HdrOutput.SECOND_NS));
            String text = Files.readString(hlog, StandardCharsets.US_ASCII);
            assertTrue(text.contains("#[BaseTime: 1700000000.000"), text);
            assertTrue(text.contains("#[StartTime: 1700000000.000"), text);
            assertTrue(text.contains("\"StartTimestamp\",\"Interval_Length\""), text);

            List<Histogram> intervals = readAll(hlog);
            assertEquals(4, intervals.size());
            long[] counts = intervals.stream().mapToLong(Histogram::getTotalCount).toArray();
            assertArrayEquals(new long[] {1000, 1000, 1000, 500}, counts);
            for (int j = 0; j < 3; j++) {
                assertEquals(1_700_000_000_000L + 1000L * j, intervals.get(j).getStartTimeStamp());
                assertEquals(1_700_000_001_000L + 1000L * j, intervals.get(j).getEndTimeStamp());
            }
            // The second interval holds messages 1000..1999: latencies 1020..2019 µs.
            assertEquals(1020.0, intervals.get(1).getMinValue() / 1000.0, 1.0);
            assertEquals(2019.0, intervals.get(1).getMaxValue() / 1000.0, 2.0);
            Histogram sum = TraceAnalysis.newLatencyHistogram();
            intervals.forEach(sum::add);
            assertEquals(TraceAnalysis.analyse(trace, 10).latencyHistogram(), sum);
        } finally {
            Locale.setDefault(saved);
        }
    }

    /**
     * Issue 31: on phases, each second is written once per phase sent in it, tagged: messages 0-1,499 are phase 0
     * ("a"), 1,500-3,499 phase 1 ("b b", its space made _), so the second second splits 500 + 500 and the tags give
     * each phase alone (1,500 and 2,000 messages); all intervals still add up to the run.
     */
    @Test
    void onPhasesEachIntervalIsSplitByPhaseAndTagged() throws IOException {
        Trace trace = steady(3_500);
        Path hlog = dir.resolve(HdrOutput.HLOG_FILE_NAME);
        HdrOutput.writeTraceIntervals(hlog, trace, 1_700_000_000_000L, HdrOutput.SECOND_NS, i -> i < 1_500 ? 0 : 1,
                List.of("a", "b b"));
        List<Histogram> intervals = readAll(hlog);
        assertEquals(List.of("phase0-a", "phase0-a", "phase1-b_b", "phase1-b_b", "phase1-b_b"),
                intervals.stream().map(Histogram::getTag).toList());
        assertArrayEquals(new long[] {1000, 500, 500, 1000, 500},
                intervals.stream().mapToLong(Histogram::getTotalCount).toArray());
        assertEquals(1_700_000_001_000L, intervals.get(1).getStartTimeStamp());
        assertEquals(1_700_000_001_000L, intervals.get(2).getStartTimeStamp(), "the same second, the other phase");
        Histogram sum = TraceAnalysis.newLatencyHistogram();
        intervals.forEach(sum::add);
        assertEquals(TraceAnalysis.analyse(trace, 10).latencyHistogram(), sum);
    }

    @Test
    void aStallIsAnEmptyIntervalAndANegativeLatencyCountsAsZero() throws IOException {
        int n = 20;
        long[] send = new long[n];
        long[] recv = new long[n];
        for (int i = 0; i < n; i++) {
            // ten messages in the first half second, ten from 2.0 s on: nothing sent in the second second
            send[i] = (i < 10 ? 0 : 2_000_000_000L) + 50_000_000L * (i % 10);
            recv[i] = send[i] + 100_000L;
        }
        recv[3] = send[3] - 5_000L;          // clocks a little off: counted as 0, as the analysis does
        recv[7] = Trace.ABSENT;              // lost: in no interval
        send[12] = Trace.ABSENT;             // received without a send: in no interval
        Trace trace = new Trace(n, send, null, recv);
        Path hlog = dir.resolve("stall.hlog");
        assertEquals(3, HdrOutput.writeTraceIntervals(hlog, trace, 0, HdrOutput.SECOND_NS));
        List<Histogram> intervals = readAll(hlog);
        assertArrayEquals(new long[] {9, 0, 9}, intervals.stream().mapToLong(Histogram::getTotalCount).toArray());
        assertEquals(0, intervals.get(0).getMinValue());
        Histogram sum = TraceAnalysis.newLatencyHistogram();
        intervals.forEach(sum::add);
        assertEquals(TraceAnalysis.analyse(trace, 1).latencyHistogram(), sum);
    }

    @Test
    void aTraceWithNothingMatchedIsAHeaderOnly() throws IOException {
        long[] send = {1, 2};
        long[] recv = {Trace.ABSENT, Trace.ABSENT};
        Path hlog = dir.resolve("none.hlog");
        assertEquals(0, HdrOutput.writeTraceIntervals(hlog, new Trace(2, send, null, recv), 0, HdrOutput.SECOND_NS));
        assertTrue(readAll(hlog).isEmpty());
        assertTrue(Files.readString(hlog).contains("\"StartTimestamp\""));
    }

    @Test
    void aTaggedIntervalReadsBackWithItsTag() throws IOException {
        Path hlog = dir.resolve("tagged.hlog");
        try (HdrOutput.IntervalLog log = new HdrOutput.IntervalLog(hlog, "probes", 1_000_000L)) {
            Histogram h = TraceAnalysis.newLatencyHistogram();
            h.recordValue(42_000);
            log.append(h, 1_000_000L, 1_002_500L, "F1000");
            assertEquals(1, log.intervals());
        }
        List<Histogram> back = readAll(hlog);
        assertEquals(1, back.size());
        assertEquals("F1000", back.get(0).getTag());
        assertEquals(2_500, back.get(0).getEndTimeStamp() - back.get(0).getStartTimeStamp());
    }

    @Test
    void hgrmHasMicrosecondValues() throws IOException {
        AnalysisResult result = result();
        HdrOutput.writeHgrm(dir.resolve(HdrOutput.HGRM_FILE_NAME), result.latencyHistogram());
        List<String> lines = Files.readAllLines(dir.resolve(HdrOutput.HGRM_FILE_NAME), StandardCharsets.US_ASCII);
        assertTrue(lines.get(0).contains("Value"), lines.get(0));
        // First data row: the minimum, 20 µs (not 20000 ns), at the histogram's resolution
        // (lowest discernible 1 µs gives 512 ns steps there).
        Histogram h = result.latencyHistogram();
        double first = Double.parseDouble(lines.get(2).trim().split("\\s+")[0]);
        assertEquals(h.highestEquivalentValue(20_000) / 1000.0, first, 0.0005);
        assertTrue(first >= 20.0 && first < 21.0, "min in µs: " + first);
        String summary = String.join("\n", lines);
        assertTrue(summary.contains("#[Max     =     1019."), summary);
        assertTrue(summary.contains("Total count    =         1000]"), summary);
    }
}
