package io.msgscope.analysis.output;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.HandTraces;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seals trace.dat and latency-histogram.dat byte for byte, under several default Locales (the
 * numbers must not change with the Locale). The golden files were checked by hand against the
 * hand trace of TraceAnalysisTest.
 */
class GoldenFilesTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"ROOT", "GERMANY", "FRANCE", "US"})
    void writersMatchGoldenFilesInEveryLocale(String localeName) throws IOException {
        Locale saved = Locale.getDefault();
        try {
            Locale.setDefault(locale(localeName));

            Trace lossy = HandTraces.withLossAndNegative();
            TraceDatWriter.write(dir.resolve("trace.dat"), lossy, 2);
            assertGolden("trace.dat", dir.resolve("trace.dat"));

            TraceDatWriter.write(dir.resolve("trace-rate.dat"), HandTraces.rateMode(), 2);
            assertGolden("trace-rate.dat", dir.resolve("trace-rate.dat"));

            // ST/RT over windows of >= 2 messages and >= 500 ns, hand-walked in RateWindowTest
            TraceDatWriter.write(dir.resolve("trace-spanned.dat"), HandTraces.plain(), 2, 500, java.util.List.of());
            assertGolden("trace-spanned.dat", dir.resolve("trace-spanned.dat"));

            AnalysisResult result = TraceAnalysis.analyse(lossy, 2);
            HistogramWriter.withBins(4).write(dir.resolve("h.dat"), lossy, result);
            assertGolden("latency-histogram.dat", dir.resolve("h.dat"));

            HistogramWriter.withBinWidthUs(0.3).write(dir.resolve("hw.dat"), lossy, result);
            assertGolden("latency-histogram-width.dat", dir.resolve("hw.dat"));
        } finally {
            Locale.setDefault(saved);
        }
    }

    private static Locale locale(String name) {
        switch (name) {
            case "GERMANY":
                return Locale.GERMANY;
            case "FRANCE":
                return Locale.FRANCE;
            case "US":
                return Locale.US;
            default:
                return Locale.ROOT;
        }
    }

    private static void assertGolden(String golden, Path actual) throws IOException {
        try (InputStream in = GoldenFilesTest.class.getResourceAsStream("/golden/" + golden)) {
            assertNotNull(in, "missing golden file " + golden);
            byte[] expected = in.readAllBytes();
            byte[] got = Files.readAllBytes(actual);
            assertArrayEquals(expected, got, () -> golden + " differs; got:\n" + new String(got));
        }
    }
}
