package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.Golden;
import io.msgscope.core.RunSpec;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Every file throughput mode writes for the golden search (issue 30): search.dat, search.gp, latency.hlog, the sample
 * files and summary.json, through the same write path a run takes, byte for byte in every locale (see {@link Golden}).
 */
class ThroughputFolderGoldenTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @MethodSource("io.msgscope.coordinator.Golden#locales")
    void everyFileMatchesItsGoldenFile(String locale) throws IOException {
        Golden.assertModeFolder(tmp, "throughput", locale, (dir, folder) -> {
            RunSpec spec = RunSpec.builder().count(2).window(1).size(64).pin(false).driver("amqp")
                    .uri("amqp://guest:secret@127.0.0.1:5672/%2f").driverOptions(Map.of("prefetch", "100")).build();
            ThroughputResults.Given g = new ThroughputResults.Given(64, "zeros", 0, 20, "auto", 10, 2, 200, 3000, 20000,
                    3, "knee", 2, 12);
            ThroughputResults.write(dir, folder, spec, g, ThroughputGoldenTest.searchedOutcome(), Golden.ENV,
                    "throughput-golden", "2026-01-02T03:04:05Z");
        });
    }
}
