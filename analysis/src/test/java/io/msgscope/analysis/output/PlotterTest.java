package io.msgscope.analysis.output;

import io.msgscope.core.test.Ci;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.HandTraces;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlotterTest {

    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @TempDir
    Path dir;

    @BeforeEach
    void requireGnuplot() {
        if (Plotter.gnuplotAvailable()) {
            return;
        }
        if (Ci.on()) {
            fail("gnuplot-nox must be installed under CI");
        }
        Assumptions.abort("gnuplot is not on PATH: plot rendering not tested (install gnuplot-nox)");
    }

    @Test
    void rendersAllThreeScripts() throws IOException {
        Trace trace = HandTraces.rateMode();
        AnalysisResult result = TraceAnalysis.analyse(trace, 2);
        TraceDatWriter.write(dir.resolve(TraceDatWriter.FILE_NAME), trace, 2);
        HistogramWriter.withDefaultBins().write(dir.resolve(HistogramWriter.FILE_NAME), trace, result);
        GnuplotScripts.writeAll(dir, trace.hasIntended());

        List<Path> pngs = Plotter.render(dir);

        Set<String> names = pngs.stream().map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        assertEquals(Set.of("latency.png", "latency-histogram.png", "throughput.png"), names);
        for (Path png : pngs) {
            byte[] bytes = Files.readAllBytes(png);
            assertTrue(bytes.length > PNG_MAGIC.length, png + " is empty");
            assertArrayEquals(PNG_MAGIC, Arrays.copyOf(bytes, PNG_MAGIC.length), png + " is not a PNG");
        }
    }

    @Test
    void rendersTheEnvelopeScriptsWithoutTraceDat() throws IOException {
        Trace trace = HandTraces.rateMode();
        AnalysisResult result = TraceAnalysis.analyse(trace, 2);
        TraceEnvelope.write(dir.resolve(TraceEnvelope.FILE_NAME), trace, 2, List.of(), 4);
        HistogramWriter.withDefaultBins().write(dir.resolve(HistogramWriter.FILE_NAME), trace, result);
        GnuplotScripts.writeAll(dir, trace.hasIntended(), true);
        assertTrue(Files.readString(dir.resolve("latency.gp")).contains(TraceEnvelope.FILE_NAME));

        List<Path> pngs = Plotter.render(dir); // no trace.dat in the folder: the scripts must not need it

        assertEquals(Set.of("latency.png", "latency-histogram.png", "throughput.png"),
                pngs.stream().map(p -> p.getFileName().toString()).collect(Collectors.toSet()));
        for (Path png : pngs) {
            assertArrayEquals(PNG_MAGIC, Arrays.copyOf(Files.readAllBytes(png), PNG_MAGIC.length), png + " is not a PNG");
        }
    }

    @Test
    void failingScriptIsNamedWithGnuplotsError() throws IOException {
        Files.writeString(dir.resolve("broken.gp"), "set output \"broken.png\"\nplot \"no-such-file.dat\" using 1:2\n");
        Files.writeString(dir.resolve("good.gp"), "set terminal png\nset output \"good.png\"\nplot x\n");
        PlotException e = assertThrows(PlotException.class, () -> Plotter.render(dir));
        assertTrue(e.getMessage().contains("broken.gp"), e.getMessage());
        assertTrue(Files.size(dir.resolve("good.png")) > 0, "a failing script does not stop the others");
        assertTrue(e.getMessage().contains("the other 1 scripts were rendered"), e.getMessage());
        assertTrue(e.getMessage().contains("no-such-file.dat") || e.getMessage().contains("line 2"), e.getMessage());
    }
}
