package io.msgscope.analysis.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GnuplotScriptsTest {

    @TempDir
    Path dir;

    @Test
    void writesThreeSelfContainedScripts() throws IOException {
        List<Path> scripts = GnuplotScripts.writeAll(dir, false);
        assertEquals(List.of(dir.resolve("latency.gp"), dir.resolve("latency-histogram.gp"),
                dir.resolve("throughput.gp")), scripts);
        String latency = Files.readString(dir.resolve("latency.gp"), StandardCharsets.UTF_8);
        assertTrue(latency.contains("strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0"));
        assertTrue(latency.contains("set terminal pngcairo size 1200,700"));
        assertTrue(latency.contains("set output \"latency.png\""));
        assertTrue(latency.contains("using 1:($4/1000.0)"));
        assertFalse(latency.contains("$8"));
        String throughput = Files.readString(dir.resolve("throughput.gp"), StandardCharsets.UTF_8);
        assertTrue(throughput.contains("using 1:5") && throughput.contains("using 1:6"));
        assertTrue(throughput.contains("set output \"throughput.png\""));
        String histogram = Files.readString(dir.resolve("latency-histogram.gp"), StandardCharsets.UTF_8);
        assertTrue(histogram.contains("\"latency-histogram.dat\" using 3:4:($2-$1) with boxes"));
        assertTrue(histogram.contains("set output \"latency-histogram.png\""));
    }

    @Test
    void rateModePlotsCorrectedLatencyToo() throws IOException {
        GnuplotScripts.writeAll(dir, true);
        String latency = Files.readString(dir.resolve("latency.gp"), StandardCharsets.UTF_8);
        assertTrue(latency.contains("using 1:($8/1000.0)"));
    }

    /** issue 17: the ST/RT plot says what its windows span and, when clipped, why. */
    @Test
    void theThroughputPlotNamesItsWindowsAndClipsWithAReason() throws IOException {
        GnuplotScripts.writeAll(dir, false, false, new GnuplotScripts.ThroughputAxis("M = 100 messages", 1_263_000,
                "y clipped at 3x the run's average rate: RT over M messages of bursts read at once"));
        String t = Files.readString(dir.resolve("throughput.gp"), StandardCharsets.UTF_8);
        assertTrue(t.contains("set title \"Sender throughput ST and receiver throughput RT per message over windows of "
                + "M = 100 messages\\ny clipped at 3x"), t);
        assertTrue(t.contains("set yrange [0:1263000.0]\nset format y"), t);
        GnuplotScripts.writeAll(dir, false, true, new GnuplotScripts.ThroughputAxis(">= 100 messages and >= 10 ms",
                Double.NaN, ""));
        t = Files.readString(dir.resolve("throughput.gp"), StandardCharsets.UTF_8);
        assertTrue(t.contains("min, median and max per bucket over windows of >= 100 messages and >= 10 ms\""), t);
        assertFalse(t.contains("yrange"), t);
    }

    /** A run without one ST/RT window: the script draws an empty frame saying why, and gnuplot renders it. */
    @Test
    void aRunWithoutThroughputWindowsPlotsAFrameThatSaysWhy() throws Exception {
        GnuplotScripts.writeAll(dir, false, false, GnuplotScripts.ThroughputAxis.none(">= 100 messages and >= 10 ms"));
        String gp = Files.readString(dir.resolve(GnuplotScripts.THROUGHPUT));
        assertTrue(gp.contains("no window of >= 100 messages and >= 10 ms in this run") && !gp.contains("trace.dat"), gp);
        if (Plotter.gnuplotAvailable()) {
            Files.writeString(dir.resolve("trace.dat"), "# nothing\n");
            Files.writeString(dir.resolve("latency-histogram.dat"), "# nothing\n");
            Files.delete(dir.resolve(GnuplotScripts.LATENCY));
            Files.delete(dir.resolve(GnuplotScripts.LATENCY_HISTOGRAM));
            assertEquals(java.util.List.of(dir.resolve("throughput.png")), Plotter.render(dir));
        }
    }
}
