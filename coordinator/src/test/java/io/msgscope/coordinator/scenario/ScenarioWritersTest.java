package io.msgscope.coordinator.scenario;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Golden files for the CSV, Markdown and time-series writers; the numbers ignore the default locale. */
@ExtendWith(GermanLocale.class)
class ScenarioWritersTest {
    /** A hand-made row (header, then results): the formats' rules, whatever the result holds. */
    static Map<String, Object> header() {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("scenario", "fan-in");
        h.put("driver", "mqtt");
        h.put("status", "ok");
        h.put("failure_reason", null);
        return h;
    }

    static Map<String, Object> results() {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("latency_p99_us", 1234.5678);
        f.put("messages_sent", 1600L);
        f.put("delivery_rate", 1.0);
        return f;
    }

    static Map<String, Object> row() {
        return ScenarioWriters.row(header(), results());
    }

    /** A typed result with the given latency intervals, from a minimal outcome. */
    static ScenarioResult result(ScenarioResult.Interval... intervals) {
        ScenarioCollector o = new ScenarioCollector();
        o.seconds.add(new ScenarioResult.Second(1, 799.5, 12.25, 1000.0));
        o.intervals.addAll(List.of(intervals));
        return ScenarioSummary.build(ScenarioSummaryTest.config("", Map.of(), 1), o.outcome(), "QoS 1", true);
    }

    @Test
    void csvGolden() {
        assertEquals("scenario,driver,status,failure_reason,latency_p99_us,messages_sent,delivery_rate\n"
                + "fan-in,mqtt,ok,,1234.568,1600,1.000\n", ScenarioWriters.csv(row()));
    }

    @Test
    void markdownGolden() {
        assertEquals("| metric | value |\n|---|---:|\n"
                + "| scenario | fan-in |\n| driver | mqtt |\n| status | ok |\n| failure_reason |  |\n"
                + "| latency_p99_us | 1234.568 |\n| messages_sent | 1600 |\n| delivery_rate | 1.000 |\n"
                + "\n- a note\n", ScenarioWriters.markdown(row(), List.of("a note")));
    }

    /** Issue 16: a fraction never rounds to a whole number next to a verdict (0.99973 is not 1.000). */
    @Test
    void roundingNeverTurnsAFractionIntoAWholeNumber() {
        assertEquals("0.999730", ScenarioWriters.number(0.99973));
        assertEquals("0.9999999", ScenarioWriters.number(0.9999999));
        assertEquals("1.000", ScenarioWriters.number(1.0));
        assertEquals("0.998", ScenarioWriters.number(0.99763));
        assertEquals("0.000200", ScenarioWriters.number(0.0002)); // 0.000 would hide it
        assertEquals("12.346", ScenarioWriters.number(12.3456));
    }

    @Test
    void timeseriesGolden() {
        assertEquals("# msgscope scenario time series, one row per second of the measurement\n"
                + "# second rate_msg_s p50_us p99_us\n1 799.500 12.250 1000.000\n", 
                ScenarioPlot.data(result()).replace(System.lineSeparator(), "\n"));
    }

    @Test
    void jsonGolden() throws Exception {
        Map<String, Object> root = header();
        root.put("spec", new LinkedHashMap<>(Map.of("rate", 1000.5)));
        Map<String, Object> withSpec = new LinkedHashMap<>(root);
        root.put("results", results());
        root.put("notes", List.of("a note"));
        assertEquals("{\n"
                + "  \"scenario\" : \"fan-in\",\n"
                + "  \"driver\" : \"mqtt\",\n"
                + "  \"status\" : \"ok\",\n"
                + "  \"failure_reason\" : null,\n"
                + "  \"spec\" : {\n"
                + "    \"rate\" : 1000.5\n"
                + "  },\n"
                + "  \"results\" : {\n"
                + "    \"latency_p99_us\" : 1234.5678,\n"
                + "    \"messages_sent\" : 1600,\n"
                + "    \"delivery_rate\" : 1.0\n"
                + "  },\n"
                + "  \"notes\" : [ \"a note\" ]\n"
                + "}\n", ScenarioWriters.json(root).replace(System.lineSeparator(), "\n"));
        // nested header entries (spec, broker, environment) are JSON only: CSV and Markdown keep one flat row
        assertEquals(ScenarioWriters.csv(row()), ScenarioWriters.csv(ScenarioWriters.row(withSpec, results())));
    }

    @Test
    void jsonKeepsFieldNamesAndDots() throws Exception {
        String j = ScenarioWriters.json(result());
        assertTrue(j.contains("\"latency_p99_us\" : null"), j);
        assertTrue(j.contains("\"delivery_rate\" : 0.0"), j);
        assertTrue(j.contains("\"results\" : {"), j);
    }

    private static byte[] encoded(long... valuesNs) {
        org.HdrHistogram.Histogram h = io.msgscope.core.LatencyRange.histogram();
        for (long v : valuesNs) {
            h.recordValue(v);
        }
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int len = h.encodeIntoCompressedByteBuffer(b);
        return java.util.Arrays.copyOf(b.array(), len);
    }

    /** latency.hlog: one interval per second and the drain, tagged, read back by HdrHistogram's own reader. */
    @Test
    void latencyLogHoldsEverySecondAndTheDrain(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        ScenarioResult r = result(
                new ScenarioResult.Interval(1_700_000_000_000L, 1_700_000_001_000L, null, encoded(10_000, 20_000)),
                new ScenarioResult.Interval(1_700_000_001_000L, 1_700_000_002_010L, null, encoded()),
                new ScenarioResult.Interval(1_700_000_002_010L, 1_700_000_002_300L, "drain", encoded(5_000_000)));
        java.util.List<java.nio.file.Path> files = ScenarioWriters.write(r, dir, java.util.List.of("csv"));
        java.nio.file.Path hlog = dir.resolve("latency.hlog");
        assertTrue(files.contains(hlog), files.toString());
        org.HdrHistogram.HistogramLogReader reader = new org.HdrHistogram.HistogramLogReader(hlog.toFile());
        java.util.List<org.HdrHistogram.Histogram> back = new java.util.ArrayList<>();
        for (org.HdrHistogram.EncodableHistogram h; (h = reader.nextIntervalHistogram()) != null; ) {
            back.add((org.HdrHistogram.Histogram) h);
        }
        assertEquals(3, back.size());
        assertEquals(2, back.get(0).getTotalCount());
        assertEquals(0, back.get(1).getTotalCount());
        assertEquals("drain", back.get(2).getTag());
        assertEquals(1_700_000_002_010L, back.get(2).getStartTimeStamp());
        assertEquals(1_700_000_002_300L, back.get(2).getEndTimeStamp());
        assertEquals(5_000_000, back.get(2).getMaxValue(), 5_000);
    }

    @Test
    void noIntervalsNoLatencyLog(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        ScenarioWriters.write(result(), dir, java.util.List.of("csv"));
        assertTrue(java.nio.file.Files.notExists(dir.resolve("latency.hlog")));
    }
}
