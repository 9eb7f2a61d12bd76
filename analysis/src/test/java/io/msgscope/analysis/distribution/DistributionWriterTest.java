package io.msgscope.analysis.distribution;

import io.msgscope.core.test.Ci;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.msgscope.analysis.output.Plotter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Golden data files (checked by hand: see the comments) and gnuplot rendering. */
class DistributionWriterTest {

    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @TempDir
    Path dir;

    /**
     * overlap2.dat: bins of width 2 every 1 over [0, 10): bin b covers [b−1, b+1). Values 0.5,
     * 1.5, 2.5, 2.6, 7, 9.99 in range (cells 0, 1, 2, 2, 7, 9), −1 under, 12 over: total 8,
     * density = count / (8·2).
     *
     * <p>width.dat: width 0.1 over [0.1, 0.5) = 4 bins; 0.1, 0.15 | 0.2 | 0.35 | 0.49; density =
     * count / (5·0.1).
     */
    @ParameterizedTest
    @ValueSource(strings = {"ROOT", "GERMANY", "FRANCE", "US"})
    void goldenFilesInEveryLocale(String localeName) throws IOException {
        Locale saved = Locale.getDefault();
        try {
            Locale.setDefault(switch (localeName) {
                case "GERMANY" -> Locale.GERMANY;
                case "FRANCE" -> Locale.FRANCE;
                case "US" -> Locale.US;
                default -> Locale.ROOT;
            });
            double[] values = {0.5, 1.5, 2.5, 2.6, 7, 9.99, 12, -1};
            Histogram1D overlap = Histogram1D.withBinCount(0, 10, 5, 2).addAll(values, values.length);
            DistributionWriter.write(dir.resolve("o.dat"), overlap, "µs");
            assertGolden("overlap2.dat", dir.resolve("o.dat"));

            double[] small = {0.1, 0.15, 0.2, 0.35, 0.49};
            Histogram1D width = Histogram1D.withBinWidth(0.1, 0.5, 0.1, 1).addAll(small, small.length);
            DistributionWriter.write(dir.resolve("w.dat"), width, "ms");
            assertGolden("width.dat", dir.resolve("w.dat"));
        } finally {
            Locale.setDefault(saved);
        }
    }

    private static void assertGolden(String golden, Path actual) throws IOException {
        try (InputStream in = DistributionWriterTest.class.getResourceAsStream("/distribution/" + golden)) {
            assertNotNull(in, "missing golden file " + golden);
            byte[] expected = in.readAllBytes();
            byte[] got = Files.readAllBytes(actual);
            assertArrayEquals(expected, got, () -> golden + " differs; got:\n" + new String(got, StandardCharsets.UTF_8));
        }
    }

    @Test
    void scriptMarksTheModesWithLocaleIndependentNumbers() {
        Locale saved = Locale.getDefault();
        try {
            Locale.setDefault(Locale.GERMANY);
            String s = DistributionWriter.script("h.gp", "h.dat", "h.png", "Latency \"histogram\"", "latency [µs]",
                    List.of(150.25, 340.0));
            assertTrue(s.contains("set arrow 1 from first 150.25, graph 0.87 to first 150.25, graph 0 head"), s);
            assertTrue(s.contains("set arrow 2 from first 340, graph 0.87 to first 340, graph 0 head"), s);
            assertTrue(s.contains("set label 1 \"1\" at first 150.25"), s);
            assertTrue(s.contains("title \"1: 150 µs\"") && s.contains("title \"2: 340 µs\""), "positions in the key: " + s);
            // issue 18: neighbouring modes' labels at different heights; the y axis says what is counted
            assertTrue(s.contains("at first 150.25, graph 0.985") && s.contains("at first 340, graph 0.94"), s);
            assertTrue(s.contains("set ylabel \"messages per bin\""), s);
            assertTrue(DistributionWriter.script("c.gp", "c.dat", "c.png", "cpu", "%", List.of(),
                    DistributionWriter.WINDOWS).contains("set ylabel \"windows per bin (one value per window of messages)\""));
            assertTrue(s.contains("set title \"Latency \\\"histogram\\\"\""), s);
            assertTrue(s.contains("pngcairo") && s.contains("set terminal png size"), s);
            assertTrue(s.contains("set output \"h.png\""), s);
            assertTrue(s.contains("plot \"h.dat\" using 3:4:(step > 0 ? step : $2 - $1) with boxes"), s);
        } finally {
            Locale.setDefault(saved);
        }
    }

    /**
     * Issue 29: twenty modes in a cluster (5 % of the range) once got twenty "mode i: x" labels in a heap. Now the
     * key lists every position, and the numbers on the plot stand apart: two at one height at least 3 % of the range
     * apart, all inside the frame.
     */
    @Test
    void modeLabelsOfAClusterNeverPileUp() {
        List<Double> marks = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            marks.add(500.0 + 2.5 * i);
        }
        marks.add(900.0);
        String s = DistributionWriter.script("h.gp", "h.dat", "h.png", "t", "latency [µs]", marks,
                DistributionWriter.MESSAGES, 0, 1000);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("set label \\d+ \"(\\d+)\" at first ([0-9.]+), graph ([0-9.]+)")
                .matcher(s);
        java.util.Map<String, Double> lastAtHeight = new java.util.HashMap<>();
        int drawn = 0;
        while (m.find()) {
            double x = Double.parseDouble(m.group(2));
            assertTrue(x >= 0 && x <= 1000 && Double.parseDouble(m.group(3)) < 1, "inside the frame: " + m.group());
            Double last = lastAtHeight.put(m.group(3), x);
            assertTrue(last == null || x - last >= 30, "labels " + last + " and " + x + " at one height pile up: " + s);
            drawn++;
        }
        assertTrue(drawn >= 3 && drawn <= 8, drawn + " numbers drawn: " + s);
        assertEquals(21, s.split("set arrow ").length - 1, "every mode still has its arrow");
        for (int i = 1; i <= 21; i++) {
            assertTrue(s.contains("title \"" + i + ": "), "mode " + i + " in the key: " + s);
        }
        assertTrue(s.contains("set key outside right top"), "the key beside the plot, not over the bars");
    }

    @Test
    void rejectsPathsAsFileNames() {
        assertThrows(IllegalArgumentException.class, () -> DistributionWriter.gnuplot(dir, "../x.gp", "h.dat",
                "h.png", "t", "x", List.of()));
        assertThrows(IllegalArgumentException.class, () -> DistributionWriter.gnuplot(dir, "x.gp", "h.dat",
                "h.svg", "t", "x", List.of()));
    }

    @Test
    void scriptsRenderWithGnuplot() throws IOException {
        requireGnuplot();
        Random random = new Random(11);
        long[] ns = new long[5000];
        for (int i = 0; i < ns.length; i++) {
            ns[i] = Math.round(1000 * (i % 50 == 0 ? 340 + 12 * random.nextGaussian() : 150 + 10 * random.nextGaussian()));
        }
        HumpinessResult hump = Humpiness.ofNanos(ns, ns.length);
        List<Double> marksUs = hump.positions().stream().map(p -> p / 1000).toList();
        Histogram1D h = Histogram1D.withBinWidth(100, 400, 5, 1).addAll(ns, ns.length, 1e-3);
        DistributionWriter.write(dir.resolve("latency-dist.dat"), h, "µs");
        DistributionWriter.gnuplot(dir, "latency-dist.gp", "latency-dist.dat", "latency-dist.png",
                "Latency distribution: " + hump.verdict(), "latency [µs]", marksUs);
        Histogram1D sliding = Histogram1D.withBinWidth(100, 400, 10, 4).addAll(ns, ns.length, 1e-3);
        DistributionWriter.write(dir.resolve("sliding.dat"), sliding, "µs");
        DistributionWriter.gnuplot(dir, "sliding.gp", "sliding.dat", "sliding.png", "Sliding bins", "latency [µs]",
                List.of());

        List<Path> pngs = Plotter.render(dir);

        assertEquals(List.of("latency-dist.png", "sliding.png"),
                pngs.stream().map(p -> p.getFileName().toString()).sorted().toList());
        for (Path png : pngs) {
            byte[] bytes = Files.readAllBytes(png);
            assertTrue(bytes.length > 1000, png + " is too small");
            assertArrayEquals(PNG_MAGIC, Arrays.copyOf(bytes, PNG_MAGIC.length), png + " is not a PNG");
        }
    }

    static void requireGnuplot() {
        if (Plotter.gnuplotAvailable()) {
            return;
        }
        if (Ci.on()) {
            fail("gnuplot must be installed under CI (apt-get install gnuplot-nox)");
        }
        Assumptions.abort("gnuplot is not on PATH: plot rendering not tested (install gnuplot-nox)");
    }
}
