package io.msgscope.coordinator.sweep;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

class SweepTableTest {
    private static final ObjectMapper OM = new ObjectMapper();

    @TempDir
    Path dir;

    /** A hand-made summary.json: latency p50 = base µs, p99 = 10 × base, receive rate given. */
    static JsonNode summary(double baseUs, double msgS, int size, String status) throws IOException {
        double ns = baseUs * 1000;
        String json = String.format(Locale.ROOT, """
                {"status": "%s", "spec": {"count": 1000, "size": %d, "rate": 0},
                 "counters": {"messages_received": 1000, "messages_lost": 0},
                 "throughput": {"receive_msg_s": %s, "receive_bytes_s": %s},
                 "series": {
                   "latency_ns": {"n": 1000, "mean": %s, "median": %s, "robust_deviation": %s, "min": %s, "max": %s,
                                  "p50": %s, "p90": %s, "p95": %s, "p99": %s, "p99_9": %s, "p99_99": %s},
                   "st_msg_s": {"median": %s},
                   "rt_msg_s": {"median": %s}}}
                """, status, size, msgS, msgS * size, 1.5 * ns, ns, 0.25 * ns, 0.5 * ns, 40 * ns,
                ns, 3 * ns, 5 * ns, 10 * ns, 20 * ns, 30 * ns, msgS * 1.01, msgS * 0.99);
        return OM.readTree(json);
    }

    static List<SweepTable.Point> points() throws IOException {
        List<SweepTable.Point> pts = new ArrayList<>();
        pts.add(new SweepTable.Point(64, 1, "point-64-1", 0, summary(100, 20000, 64, "ok")));
        pts.add(new SweepTable.Point(64, 2, "point-64-2", 0, summary(120, 19000, 64, "ok")));
        pts.add(new SweepTable.Point(64, 3, "point-64-3", 0, summary(110, 21000, 64, "ok")));
        pts.add(new SweepTable.Point(1024, 1, "point-1024-1", 0, summary(200.5, 10000, 1024, "ok")));
        pts.add(new SweepTable.Point(1024, 2, "point-1024-2", 1, null));
        pts.add(new SweepTable.Point(1024, 3, "point-1024-3", 1, summary(300, 8000, 1024, "failed")));
        return pts;
    }

    @Test
    void spreadIsMinMedianMaxOverRepeats() throws IOException {
        SweepTable t = new SweepTable(SweepParameter.Kind.SIZE, points());
        assertArrayEquals(new double[] {19000, 20000, 21000}, t.spread(64, "recv_msg_s"), 1e-9);
        assertArrayEquals(new double[] {1000, 1100, 1200}, t.spread(64, "lat_p99_us"), 1e-9);
        // the point without summary is left out; two values: median is their mid-point
        assertArrayEquals(new double[] {8000, 9000, 10000}, t.spread(1024, "recv_msg_s"), 1e-9);
        assertArrayEquals(new double[] {200.5, 250.25, 300}, t.spread(1024, "lat_p50_us"), 1e-9);
    }

    @Test
    void tablesMatchGoldenFilesInEveryLocale() throws IOException {
        Locale saved = Locale.getDefault();
        try {
            for (Locale l : new Locale[] {Locale.ROOT, Locale.GERMANY, new Locale("ar", "EG"), Locale.FRANCE}) {
                Locale.setDefault(l);
                SweepTable t = new SweepTable(SweepParameter.Kind.SIZE, points());
                assertEquals(golden("sweep.dat"), t.sweepDat(), "locale " + l);
                assertEquals(golden("sweep-spread.dat"), t.spreadDat(), "locale " + l);
            }
        } finally {
            Locale.setDefault(saved);
        }
    }

    /** Issue 29: sweep.csv is sweep.dat's table (golden) as CSV: commas, CRLF, an unknown figure an empty cell. */
    @Test
    void csvIsTheSweepTableWithEmptyCellsForUnknowns() throws IOException {
        SweepTable t = new SweepTable(SweepParameter.Kind.SIZE, points());
        List<String> dat = golden("sweep.dat").lines().skip(1).toList();
        StringBuilder want = new StringBuilder(dat.get(0).substring(2).replace(' ', ',')).append("\r\n");
        for (String row : dat.subList(1, dat.size())) {
            want.append(String.join(",", java.util.Arrays.stream(row.split(" ")).map(c -> c.equals("NaN") ? "" : c)
                    .toList())).append("\r\n");
        }
        assertEquals(want.toString(), t.sweepCsv());
        assertTrue(t.sweepCsv().contains("\r\n1024,2,missing,,,"), t.sweepCsv());
        t.writeTables(dir);
        assertEquals(t.sweepCsv(), Files.readString(dir.resolve("sweep.csv")));
    }

    @Test
    void scriptsPointAtTheRightColumnsAndJsonHoldsEveryPoint() throws IOException {
        SweepTable t = new SweepTable(SweepParameter.Kind.SIZE, points());
        List<Path> files = t.writeTables(dir);
        assertEquals(5, files.size());
        String tp = Files.readString(dir.resolve("sweep-throughput.gp"));
        assertTrue(tp.contains("using 1:4:3:5 axes x1y1"), tp);
        assertTrue(tp.contains("using 1:7:6:8 axes x1y2"), tp);
        assertTrue(tp.contains("set logscale x 2"), tp);
        String lat = Files.readString(dir.resolve("sweep-latency.gp"));
        assertTrue(lat.contains("using 1:13:12:14"), lat); // p99 median, min, max
        JsonNode j = OM.readTree(t.json(Map.of("status", "failed")));
        assertEquals(6, j.path("points").size());
        assertEquals("missing", j.path("points").get(4).path("status").asText());
        assertTrue(j.path("points").get(4).path("lat_p50_us").isNull());
        assertEquals(20000.0, j.path("spread").get(0).path("recv_msg_s").path("median").asDouble());
        assertEquals("failed", j.path("status").asText());
    }

    /** Issue 29: a sweep stopped by SIGINT writes sweep.json over the points that finished, marked interrupted. */
    @Test
    void anInterruptedSweepSaysHowFarItGot() throws IOException {
        List<SweepTable.Point> pts = List.of(
                new SweepTable.Point(64, 1, "point-64-1", 0, summary(100, 20000, 64, "ok")),
                new SweepTable.Point(128, 1, "point-128-1", 130, summary(110, 19000, 128, "interrupted")));
        SweepTable t = new SweepTable(SweepParameter.Kind.SIZE, pts);
        t.writeJson(dir, false, new io.msgscope.coordinator.results.Unfinished("SIGINT", 2, 3, List.of("point-256-1")),
                1, "tcp", List.of(), new SweepTiming(1, false, 1, 0, 0, 3));
        JsonNode j = OM.readTree(dir.resolve("sweep.json").toFile());
        assertEquals("interrupted", j.path("status").asText());
        assertEquals(2, j.path("interrupted").path("finished").asInt());
        assertEquals("point-256-1", j.path("interrupted").path("not_finished").get(0).asText());
        assertEquals("interrupted", j.path("points").get(1).path("status").asText());
        assertEquals(19000.0, j.path("points").get(1).path("recv_msg_s").asDouble());
        t.writeJson(dir, true, null, 1, "tcp", List.of(), new SweepTiming(1, false, 1, 0, 0, 3));
        JsonNode failed = OM.readTree(dir.resolve("sweep.json").toFile());
        assertEquals("failed", failed.path("status").asText());
        assertTrue(failed.path("interrupted").isMissingNode());
    }

    @Test
    void nonNumericOptionValuesAreCategoriesOnTheXAxis() throws IOException {
        SweepParameter p = SweepParameter.parse(SweepParameter.Kind.OPT, "persistent=false,true");
        List<SweepTable.Point> pts = List.of(
                new SweepTable.Point(0, "false", 1, "point-false-1", 0, summary(100, 20000, 64, "ok")),
                new SweepTable.Point(1, "true", 1, "point-true-1", 0, summary(300, 5000, 64, "ok")));
        SweepTable t = new SweepTable(p, false, pts);
        assertTrue(t.sweepDat().contains("\n# persistent repeat status "), t.sweepDat());
        assertTrue(t.sweepDat().contains("\nfalse 1 ok ") && t.sweepDat().contains("\ntrue 1 ok "), t.sweepDat());
        assertTrue(t.spreadDat().contains("\ntrue 1 5000.000 5000.000 5000.000 "), t.spreadDat());
        String gp = t.throughputScript();
        assertTrue(gp.contains("using 0:4:3:5:xtic(1) axes x1y1"), gp);
        assertTrue(gp.contains("set xlabel \"driver option persistent\"") && !gp.contains("logscale x"), gp);
        JsonNode j = OM.readTree(t.json(Map.of()));
        assertEquals("persistent", j.path("parameter").asText());
        assertEquals("true", j.path("values").get(1).asText());
        assertEquals("true", j.path("points").get(1).path("persistent").asText());
    }

    private static String golden(String name) throws IOException {
        try (InputStream in = SweepTableTest.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("missing golden file " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
