package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.Golden;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import io.msgscope.coordinator.results.ResultFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Trace mode's summary.json on fixed inputs, byte for byte in every locale (issue 15; see {@link Golden}). */
class TraceGoldenTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("io.msgscope.coordinator.Golden#locales")
    void traceSummaryMatchesItsGoldenFile(String locale) throws IOException {
        Golden.inLocale(locale, () -> {
            TraceCollector out = SummaryJsonTest.handTrace();
            out.failedDuring = "measurement";
            AnalysisResult a = TraceAnalysis.analyse(new Trace(10, out.sendNs, out.intendedNs, out.recvNs), 1);
            Map<String, Object> s = SummaryJsonTest.summary(out.result(), a, Golden.ENV, "2026-01-02T03:04:05Z",
                    List.of("trace.dat", ResultFiles.SUMMARY));
            Golden.assertGolden(dir, "trace-summary.json", s);
        });
    }
}
