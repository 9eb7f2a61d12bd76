package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.Golden;
import io.msgscope.core.LatencyRange;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Every file scenario mode writes for the golden scenario (issue 30): summary.json, summary.csv, summary.md, the time
 * series and its script, latency.hlog, through the same write path a run takes, byte for byte in every locale (see
 * {@link Golden}).
 */
class ScenarioFolderGoldenTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @MethodSource("io.msgscope.coordinator.Golden#locales")
    void everyFileMatchesItsGoldenFile(String locale) throws IOException {
        Golden.assertModeFolder(tmp, "scenario", locale, (dir, folder) -> {
            ScenarioCollector o = ScenarioGoldenTest.goldenOutcome();
            o.intervals.add(interval(1_767_323_046_000L, 1_767_323_047_000L, null, 1));
            o.intervals.add(interval(1_767_323_047_000L, 1_767_323_048_000L, null, 2));
            o.intervals.add(interval(1_767_323_048_000L, 1_767_323_048_012L, "drain", 3));
            ScenarioResult r = ScenarioSummary.build(ScenarioGoldenTest.goldenConfig(), o.outcome(), "QoS 1", true);
            ScenarioWriters.write(r, dir, List.of("json", "csv", "md"), folder);
        });
    }

    /** One second's latencies: 100 values from {@code 50 µs · k}, compressed as the agents send them. */
    private static ScenarioResult.Interval interval(long start, long end, String tag, int k) {
        Histogram h = LatencyRange.histogram();
        for (int i = 0; i < 100; i++) {
            h.recordValue(50_000L * k + 1_000L * (i % 13));
        }
        ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        h.encodeIntoCompressedByteBuffer(b);
        return new ScenarioResult.Interval(start, end, tag, Arrays.copyOf(b.array(), b.position()));
    }
}
