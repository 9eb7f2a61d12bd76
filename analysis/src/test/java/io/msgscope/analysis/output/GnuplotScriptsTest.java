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

    /** gnuplot is on PATH; under CI=true a missing one fails the test instead of skipping it (issue 29). */
    static void assumeGnuplot() {
        io.msgscope.core.test.Ci.require(Plotter.gnuplotAvailable(), "gnuplot-nox must be installed (.ci/run installs it)",
                "the gnuplot rendering check skipped");
    }

    /**
     * Issue 29: where ST and RT agree (the usual case) the second curve drawn used to hide the first. Now RT is drawn
     * first, wide and see-through, and ST over it, thin; the script renders.
     */
    @Test
    void stIsNotHiddenUnderRt() throws Exception {
        for (boolean envelope : new boolean[] {false, true}) {
            GnuplotScripts.writeAll(dir, false, envelope);
            String gp = Files.readString(dir.resolve(GnuplotScripts.THROUGHPUT));
            assertTrue(gp.indexOf("RT (received)") < gp.indexOf("ST (sent)"), gp);
            assertFalse(gp.contains("fs solid"), "bands see-through: " + gp);
        }
        String plain = GnuplotScripts.throughputScript();
        java.util.regex.Matcher rt = java.util.regex.Pattern.compile("using 1:6 with lines lw (\\d+) lc rgb \"#([0-9a-f]{8})\"")
                .matcher(plain);
        java.util.regex.Matcher st = java.util.regex.Pattern.compile("using 1:5 with lines lw (\\d+) lc rgb \"#[0-9a-f]{6}\"")
                .matcher(plain);
        assertTrue(rt.find() && st.find(), plain);
        assertTrue(Integer.parseInt(rt.group(1)) > Integer.parseInt(st.group(1)), "RT wider than ST: " + plain);
        assertTrue(Integer.parseInt(rt.group(2).substring(0, 2), 16) > 0x20, "RT see-through (ARGB alpha): " + plain);
        assumeGnuplot();
        StringBuilder trace = new StringBuilder("# seq send_ns recv_ns latency_ns st_msg_s rt_msg_s\n");
        for (int i = 0; i < 2000; i++) {
            double rate = 100_000 + 20_000 * Math.sin(i / 50.0);
            trace.append(i).append(' ').append(i * 10_000L).append(' ').append(i * 10_000L + 5_000).append(" 5000 ")
                    .append(rate).append(' ').append(rate).append('\n');
        }
        Files.writeString(dir.resolve("trace.dat"), trace);
        Files.writeString(dir.resolve("latency-histogram.dat"), "1 2 1.5 10\n2 3 2.5 5\n");
        GnuplotScripts.writeAll(dir, false, false);
        Files.delete(dir.resolve(GnuplotScripts.LATENCY));
        Files.delete(dir.resolve(GnuplotScripts.LATENCY_HISTOGRAM));
        assertEquals(List.of(dir.resolve("throughput.png")), Plotter.render(dir));
    }

    /**
     * Issue 31: the load phases drawn behind the latency and ST/RT plots, set before the plot line: a (messages 0-3)
     * shaded, b (4-5) plain, a pause at 6 dashed, c (6-9) shaded; each named. The scripts render with gnuplot over a trace.dat of ten messages.
     */
    @Test
    void loadPhasesAreBandsBehindTheLatencyAndThroughputPlots() throws Exception {
        List<GnuplotScripts.PhaseBand> phases = List.of(new GnuplotScripts.PhaseBand("a", 0, 4),
                new GnuplotScripts.PhaseBand("b", 4, 6), new GnuplotScripts.PhaseBand("pause", 6, 6),
                new GnuplotScripts.PhaseBand("c", 6, 10));
        GnuplotScripts.writeAll(dir, true, false, GnuplotScripts.ThroughputAxis.PLAIN, phases);
        for (String script : List.of(GnuplotScripts.LATENCY, GnuplotScripts.THROUGHPUT)) {
            String gp = Files.readString(dir.resolve(script));
            int plot = gp.indexOf("\nplot ");
            int band = gp.indexOf("set object rect from first 0, graph 0 to first 4, graph 1");
            assertTrue(band > 0 && band < plot, script + ": the first band before the plot\n" + gp);
            assertFalse(gp.contains("from first 4, graph 0 to first 6"), "every other phase shaded: " + gp);
            assertTrue(gp.contains("set object rect from first 6, graph 0 to first 10, graph 1"), gp);
            assertTrue(gp.contains("set arrow from first 6, graph 0 to first 6, graph 1 nohead dt 2"), gp);
            for (String name : List.of("\"a\" at first 0", "\"b\" at first 4", "\"pause\" at first 6",
                    "\"c\" at first 6")) {
                assertTrue(gp.contains("set label " + name), name + " in " + gp);
            }
        }
        assertFalse(Files.readString(dir.resolve(GnuplotScripts.LATENCY_HISTOGRAM)).contains("set object"));
        if (Plotter.gnuplotAvailable()) {
            TraceDatWriter.write(dir.resolve("trace.dat"), io.msgscope.analysis.HandTraces.withLossAndNegative(), 2);
            Files.delete(dir.resolve(GnuplotScripts.LATENCY_HISTOGRAM));
            assertEquals(List.of(dir.resolve("latency.png"), dir.resolve("throughput.png")), Plotter.render(dir));
        }
    }

    @Test
    void faultsAreLabelledLinesSetBeforeThePlot() {
        String script = "set title \"x\"\nplot 'trace.dat' using 1:4\n";
        String with = GnuplotScripts.withFaults(script, java.util.List.of(
                new GnuplotScripts.FaultLine("1.5s:pause:node1", 3000)));
        assertEquals("set title \"x\"\n# faults (issue 32): a line at the message due when each was applied\n"
                + "set arrow from first 3000, graph 0 to first 3000, graph 1 nohead lw 2 lc rgb \"#cb181d\" front\n"
                + "set label \"1.5s:pause:node1\" at first 3000, graph 0.90 right rotate by 90 offset -0.4,0 "
                + "font \",9\" tc rgb \"#cb181d\" front\nplot 'trace.dat' using 1:4\n", with);
    }
}
