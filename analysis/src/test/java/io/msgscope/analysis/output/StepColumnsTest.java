package io.msgscope.analysis.output;

import io.msgscope.core.test.Ci;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.msgscope.analysis.HandTraces;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.cpu.StepSeries;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** trace.dat with per-window step columns (CPU, network) and the step-plot script. */
class StepColumnsTest {

    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @TempDir
    Path dir;

    /**
     * The lossy hand trace (10 messages) with two step columns: cpu_sender_pct every 4 messages
     * (12.346 → "12.35", NaN, 7.5 → "7.50"; windows 0-3, 4-7, 8-9) and net_bytes_s every 5
     * (1234567.891 → "1234567.89", 0.25; windows 0-4, 5-9). The fixed columns are those of
     * golden/trace.dat.
     */
    static List<StepSeries> extras() {
        return List.of(
                new StepSeries("cpu_sender_pct", 4, 10, new double[] {12.346, Double.NaN, 7.5}),
                new StepSeries("net_bytes_s", 5, 10, new double[] {1234567.891, 0.25}));
    }

    @ParameterizedTest
    @ValueSource(strings = {"ROOT", "GERMANY"})
    void stepColumnsMatchGoldenFileInEveryLocale(String localeName) throws IOException {
        Locale saved = Locale.getDefault();
        try {
            Locale.setDefault("GERMANY".equals(localeName) ? Locale.GERMANY : Locale.ROOT);
            Path file = dir.resolve("trace.dat");
            TraceDatWriter.write(file, HandTraces.withLossAndNegative(), 2, extras());
            assertGolden("trace-steps.dat", Files.readAllBytes(file));

            // Without extras the output is the old trace.dat, byte for byte.
            ByteArrayOutputStream plain = new ByteArrayOutputStream();
            TraceDatWriter.write(plain, HandTraces.withLossAndNegative(), 2, List.of());
            assertGolden("trace.dat", plain.toByteArray());
        } finally {
            Locale.setDefault(saved);
        }
    }

    @Test
    void columnNumbersFollowTheHeader() {
        Trace plain = HandTraces.plain();
        assertEquals(1, TraceDatWriter.columnOf(plain, extras(), "seq"));
        assertEquals(4, TraceDatWriter.columnOf(plain, extras(), "latency_ns"));
        assertEquals(7, TraceDatWriter.columnOf(plain, extras(), "cpu_sender_pct"));
        assertEquals(8, TraceDatWriter.columnOf(plain, extras(), "net_bytes_s"));
        // Rate mode adds intended_ns and latency_corrected_ns before the extras.
        Trace rate = HandTraces.rateMode();
        assertEquals(8, TraceDatWriter.columnOf(rate, extras(), "latency_corrected_ns"));
        assertEquals(9, TraceDatWriter.columnOf(rate, extras(), "cpu_sender_pct"));
        assertThrows(IllegalArgumentException.class, () -> TraceDatWriter.columnOf(plain, extras(), "nope"));
        assertThrows(IllegalArgumentException.class, () -> TraceDatWriter.columnOf(plain, extras(), "intended_ns"));
    }

    @Test
    void extrasMustMatchTheTraceAndHaveDistinctNames() {
        Trace trace = HandTraces.plain();
        StepSeries shorter = new StepSeries("cpu", 4, 8, new double[2]);
        assertThrows(IllegalArgumentException.class,
                () -> TraceDatWriter.write(new ByteArrayOutputStream(), trace, 2, List.of(shorter)));
        StepSeries a = new StepSeries("cpu", 5, 10, new double[2]);
        assertThrows(IllegalArgumentException.class,
                () -> TraceDatWriter.write(new ByteArrayOutputStream(), trace, 2, List.of(a, a)));
        StepSeries clash = new StepSeries("latency_ns", 5, 10, new double[2]);
        assertThrows(IllegalArgumentException.class,
                () -> TraceDatWriter.write(new ByteArrayOutputStream(), trace, 2, List.of(clash)));
    }

    @Test
    void stepScriptPlotsTheNamedColumns() throws IOException {
        LinkedHashMap<String, Integer> columns = new LinkedHashMap<>();
        columns.put("sender \"S\"", 7);
        columns.put("broker", 9);
        Path script = GnuplotScripts.writeSteps(dir, "cpu.gp", "cpu.png", "CPU usage per window", "CPU [% of one core]",
                columns);
        assertEquals(dir.resolve("cpu.gp"), script);
        String text = Files.readString(script, StandardCharsets.UTF_8);
        assertTrue(text.contains("# Run from the run folder: gnuplot cpu.gp\n"), text);
        assertTrue(text.contains("set terminal pngcairo size 1200,700"), text);
        assertTrue(text.contains("set output \"cpu.png\"\n"), text);
        assertFalse(text.contains("set datafile missing"), "NaN windows must break the line, not be bridged");
        assertTrue(text.contains("plot \"trace.dat\" using 1:7 with steps lw 1 title \"sender \\\"S\\\"\", \\\n"
                + "     \"trace.dat\" using 1:9 with steps lw 1 title \"broker\"\n"), text);
        assertThrows(IllegalArgumentException.class,
                () -> GnuplotScripts.writeSteps(dir, "cpu.txt", "cpu.png", "t", "y", columns));
        assertThrows(IllegalArgumentException.class,
                () -> GnuplotScripts.writeSteps(dir, "cpu.gp", "../cpu.png", "t", "y", columns));
        assertThrows(IllegalArgumentException.class,
                () -> GnuplotScripts.writeSteps(dir, "cpu.gp", "cpu.png", "t", "y", new LinkedHashMap<>()));
        // The existing scripts are unchanged by the shared preamble.
        assertTrue(GnuplotScripts.latencyScript(false).contains("# Run from the run folder: gnuplot latency.gp\n"));
    }

    @Test
    void stepScriptRendersWithGnuplot() throws IOException {
        if (!Plotter.gnuplotAvailable()) {
            if (Ci.on()) {
                fail("gnuplot-nox must be installed under CI");
            }
            Assumptions.abort("gnuplot is not on PATH: plot rendering not tested (install gnuplot-nox)");
        }
        Trace trace = HandTraces.withLossAndNegative();
        List<StepSeries> extra = extras();
        TraceDatWriter.write(dir.resolve(TraceDatWriter.FILE_NAME), trace, 2, extra);
        LinkedHashMap<String, Integer> columns = new LinkedHashMap<>();
        columns.put("sender CPU", TraceDatWriter.columnOf(trace, extra, "cpu_sender_pct"));
        columns.put("network", TraceDatWriter.columnOf(trace, extra, "net_bytes_s"));
        GnuplotScripts.writeSteps(dir, "cpu.gp", "cpu.png", "Sender CPU and network", "value", columns);

        List<Path> pngs = Plotter.render(dir);

        assertEquals(List.of(dir.resolve("cpu.png")), pngs);
        byte[] bytes = Files.readAllBytes(pngs.get(0));
        assertTrue(bytes.length > PNG_MAGIC.length);
        assertArrayEquals(PNG_MAGIC, Arrays.copyOf(bytes, PNG_MAGIC.length));
    }

    private static void assertGolden(String golden, byte[] got) throws IOException {
        try (InputStream in = StepColumnsTest.class.getResourceAsStream("/golden/" + golden)) {
            assertNotNull(in, "missing golden file " + golden);
            byte[] expected = in.readAllBytes();
            assertArrayEquals(expected, got, () -> golden + " differs; got:\n" + new String(got, StandardCharsets.US_ASCII));
        }
    }

    /**
     * Issue 31: with phases the last column is the message's phase (here messages 0-3 in phase 0, 4-9 in phase 1),
     * after st_window/rt_window; every other column is as without it.
     */
    @Test
    void thePhaseColumnComesLastAndLeavesTheOthersAsTheyWere() throws IOException {
        Trace trace = HandTraces.withLossAndNegative();
        ByteArrayOutputStream with = new ByteArrayOutputStream();
        ByteArrayOutputStream without = new ByteArrayOutputStream();
        TraceDatWriter.write(with, trace, 2, 1_000, extras(), i -> i < 4 ? 0 : 1);
        TraceDatWriter.write(without, trace, 2, 1_000, extras());
        String[] a = with.toString(StandardCharsets.US_ASCII).split("\n");
        String[] b = without.toString(StandardCharsets.US_ASCII).split("\n");
        assertEquals(b.length, a.length);
        assertEquals(b[0] + " phase", a[0]);
        int column = TraceDatWriter.phaseColumn(trace, 1_000, extras());
        for (int r = 0; r < a.length; r++) {
            if (a[r].startsWith("#")) {
                continue;
            }
            String[] cells = a[r].split(" ");
            assertEquals(column, cells.length, "the phase column is the last, number " + column);
            long seq = Long.parseLong(cells[0]);
            assertEquals(seq < 4 ? "0" : "1", cells[column - 1], "message " + seq);
            assertEquals(b[r], a[r].substring(0, a[r].lastIndexOf(' ')), "the other columns as without phases");
        }
    }
}
