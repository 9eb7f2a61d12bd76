package io.msgscope.analysis.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

    @Test
    void hlogReadsBackToAnEqualHistogram() throws IOException {
        Locale saved = Locale.getDefault();
        try {
            Locale.setDefault(Locale.GERMANY);
            AnalysisResult result = result();
            HdrOutput.writeAll(dir, result, 1_700_000_000_000L, 1_700_000_001_000L);
            Path hlog = dir.resolve(HdrOutput.HLOG_FILE_NAME);
            String text = Files.readString(hlog, StandardCharsets.US_ASCII);
            assertTrue(text.contains("#[BaseTime: 1700000000.000"), text);
            assertTrue(text.contains("#[StartTime: 1700000000.000"), text);
            assertTrue(text.contains("\"StartTimestamp\",\"Interval_Length\""), text);

            HistogramLogReader reader = new HistogramLogReader(hlog.toFile());
            EncodableHistogram read = reader.nextIntervalHistogram();
            assertNotNull(read);
            assertNull(reader.nextIntervalHistogram());
            Histogram original = result.latencyHistogram();
            Histogram back = (Histogram) read;
            assertEquals(original, back);
            assertEquals(1000, back.getTotalCount());
            assertEquals(original.getValueAtPercentile(99), back.getValueAtPercentile(99));
            assertEquals(1_700_000_000_000L, back.getStartTimeStamp());
            assertEquals(1_700_000_001_000L, back.getEndTimeStamp());
        } finally {
            Locale.setDefault(saved);
        }
    }

    @Test
    void hgrmHasMicrosecondValues() throws IOException {
        AnalysisResult result = result();
        HdrOutput.writeAll(dir, result, 0, 1_000);
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
