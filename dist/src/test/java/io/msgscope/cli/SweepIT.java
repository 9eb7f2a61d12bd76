package io.msgscope.cli;

import io.msgscope.core.test.Ci;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** msgscope sweep through the real jar: 2 sizes × 2 repeats, tables, scripts, then compare on its points. */
class SweepIT {
    @TempDir
    Path tmp;

    @Test
    void twoSizesTwoRepeatsGiveFourRowsAndRenderedScripts() throws Exception {
        boolean gnuplot = TraceRunIT.gnuplotOnPath();
        if (!gnuplot && Ci.on()) {
            fail("gnuplot-nox must be installed under CI (.ci/run installs it)");
        }
        Path out = tmp.resolve("sweep");
        List<String> args = new java.util.ArrayList<>(List.of("sweep", "--sizes", "64,1k", "--repeat", "2",
                "--count", "20000", "--rate", "20000", "--warmup", "10000", "--out", out.toString()));
        if (gnuplot) {
            args.add("--plot");
        }
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("work"), args.toArray(String[]::new));
        int code = p.waitFor(600);
        assertEquals(0, code, () -> TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        assertTrue(p.out().contains("time: measuring "), p.out());

        List<String> rows = Files.readAllLines(out.resolve("sweep.dat"), StandardCharsets.UTF_8).stream()
                .filter(l -> !l.startsWith("#")).toList();
        assertEquals(4, rows.size(), rows::toString);
        assertTrue(rows.get(0).startsWith("64 1 ok "), rows.get(0));
        assertTrue(rows.get(1).startsWith("64 2 ok "), rows.get(1));
        assertTrue(rows.get(2).startsWith("1024 1 ok "), rows.get(2));
        assertTrue(rows.get(3).startsWith("1024 2 ok "), rows.get(3));
        for (String r : rows) {
            String[] f = r.split(" ");
            assertEquals(17, f.length, r);
            for (int i = 3; i < f.length; i++) {
                assertTrue(f[i].matches("[0-9]+\\.[0-9]{3}"), "column " + (i + 1) + " of " + r);
            }
        }
        List<String> spread = Files.readAllLines(out.resolve("sweep-spread.dat")).stream()
                .filter(l -> !l.startsWith("#")).toList();
        assertEquals(2, spread.size());
        assertTrue(spread.get(1).startsWith("1024 2 "), spread.get(1));
        JsonNode j = new ObjectMapper().readTree(out.resolve("sweep.json").toFile());
        assertEquals(4, j.path("points").size());
        ResultsDoc.assertFilesWritten("sweep.dat", out); // issue 29: every file docs/results.md names for a sweep
        List<String> csv = Files.readAllLines(out.resolve("sweep.csv"), StandardCharsets.UTF_8);
        assertEquals(5, csv.size(), csv::toString);
        assertTrue(csv.get(0).startsWith("size,repeat,status,lat_mean_us,"), csv.get(0));
        assertEquals(rows.get(2).replace(' ', ','), csv.get(3));
        assertTrue(j.path("timing").path("measuring_s").asDouble() > 0.5, j.path("timing").toString());
        for (String d : List.of("point-64-1", "point-64-2", "point-1024-1", "point-1024-2")) {
            assertTrue(Files.isRegularFile(out.resolve(d).resolve("summary.json")), d);
        }
        if (gnuplot) {
            for (String png : List.of("sweep-throughput.png", "sweep-latency.png")) {
                byte[] b = Files.readAllBytes(out.resolve(png));
                assertTrue(b.length > 1000 && (b[1] == 'P' && b[2] == 'N' && b[3] == 'G'), png);
            }
        } else {
            Assumptions.abort("gnuplot not installed: the sweep scripts were not rendered");
        }

        // report on the sweep folder: one page for the sweep, one per point, point plots rendered on the way
        MsgscopeProcess rep = MsgscopeProcess.start(tmp.resolve("rep"), "report", out.toString());
        assertEquals(0, rep.waitFor(300), () -> TraceRunIT.safe(rep::err));
        String html = Files.readString(out.resolve("index.html"), StandardCharsets.UTF_8);
        assertTrue(html.contains("<img src=\"sweep-throughput.png\"") && html.contains("<img src=\"sweep-latency.png\""));
        for (String d : List.of("point-64-1", "point-64-2", "point-1024-1", "point-1024-2")) {
            assertTrue(html.contains("<a href=\"" + d + "/index.html\">"), d);
            assertTrue(Files.isRegularFile(out.resolve(d).resolve("latency.png")), d + "/latency.png");
        }

        // compare: the two repeats of one size compare; different sizes are refused unless forced
        MsgscopeProcess same = MsgscopeProcess.start(tmp.resolve("c1"), "compare",
                out.resolve("point-64-1").toString(), out.resolve("point-64-2").toString());
        assertEquals(0, same.waitFor(60), () -> TraceRunIT.safe(same::err));
        assertTrue(same.out().contains("| field | point-64-1 | point-64-2 |"), same.out());
        MsgscopeProcess diff = MsgscopeProcess.start(tmp.resolve("c2"), "compare",
                out.resolve("point-64-1").toString(), out.resolve("point-1024-1").toString());
        assertEquals(2, diff.waitFor(60));
        assertEquals(1, diff.err().strip().lines().count(), diff.err());
        assertTrue(diff.err().startsWith("msgscope compare: size: differs between the runs (point-64-1=64 point-1024-1=1024)"), diff.err());
        MsgscopeProcess forced = MsgscopeProcess.start(tmp.resolve("c3"), "compare", "--force", "--plot",
                "--out", tmp.resolve("cmp").toString(),
                out.resolve("point-64-1").toString(), out.resolve("point-1024-1").toString());
        assertEquals(0, forced.waitFor(60), () -> TraceRunIT.safe(forced::err));
        assertTrue(Files.size(tmp.resolve("cmp").resolve("compare.png")) > 1000);
    }

    @Test
    void badSizeIsAUsageErrorNamingTheOption() throws Exception {
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("bad"), "sweep", "--sizes", "64,12q",
                "--out", tmp.resolve("s").toString());
        assertEquals(2, p.waitFor(60));
        assertTrue(p.err().startsWith("msgscope sweep: --sizes: '12q' is not a size"), p.err());

        MsgscopeProcess q = MsgscopeProcess.start(tmp.resolve("bad2"), "sweep", "--sizes", "64", "--nonsense", "3",
                "--out", tmp.resolve("s2").toString());
        assertEquals(2, q.waitFor(120));
        assertEquals(1, q.err().strip().lines().count(), q.err());
        assertTrue(q.err().startsWith("msgscope sweep: run: ") && q.err().contains("--nonsense"), q.err());
        assertFalse(Files.exists(tmp.resolve("s2")), "refused before any point ran");

        MsgscopeProcess r = MsgscopeProcess.start(tmp.resolve("bad3"), "sweep", "--sizes", "64", "--size", "3",
                "--out", tmp.resolve("s3").toString());
        assertEquals(2, r.waitFor(60));
        assertTrue(r.err().startsWith("msgscope sweep: --size: is set by --sizes"), r.err());
    }
}
