package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.Golden;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import com.google.protobuf.ByteString;
import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.core.LatencyRange;
import io.msgscope.core.RunSpec;
import io.msgscope.proto.FlowResult;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Throughput mode's summary.json on a fixed search, byte for byte in every locale (issue 15; see {@link Golden}). */
public class ThroughputGoldenTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("io.msgscope.coordinator.Golden#locales")
    void throughputSummaryMatchesItsGoldenFile(String locale) throws IOException {
        Golden.inLocale(locale, () -> {
            ThroughputRun.Outcome o = searchedOutcome();
            RunSpec spec = RunSpec.builder().count(2).window(1).size(64).pin(false).driver("amqp")
                    .uri("amqp://guest:secret@127.0.0.1:5672/%2f").driverOptions(Map.of("prefetch", "100")).build();
            ThroughputResults.Given g = new ThroughputResults.Given(64, "zeros", 0, 20, "auto", 10, 2, 200, 3000, 20000, 3,
                    "knee", 2, 12);
            Map<String, Object> s = ThroughputResults.summary(spec, g, o, Golden.ENV, "throughput-golden", "2026-01-02T03:04:05Z",
                    List.of("search.dat", "search.gp", ResultFiles.SUMMARY));
            Golden.assertGolden(dir, "throughput-summary.json", s);
        });
    }

    /**
     * A search on a simulated client whose samples are fixed by a formula (no randomness): throughput rises to a
     * plateau of 50,000 msg/s from F = 100 on, latency F / throughput.
     */
    public static ThroughputRun.Outcome searchedOutcome() throws Exception {
        ThroughputCollector o = new ThroughputCollector();
        o.destination = "queue amq.gen-golden";
        o.warmup = flow(100, 40_000, 0).toBuilder().setWarmupReceived(120_000).setWarmupElapsedNs(3_000_000_000L)
                .build();
        long[] clock = {1_700_000_000_000L};
        FSearch.Measure measure = (f, phase) -> {
            FlowResult r = flow(f, 50_000.0 * f / (f + 10), o.probes.size());
            ThroughputStats st = ThroughputStats.of(r);
            o.probed(st, phase, clock[0] += 1_000);
            return st.probe(phase);
        };
        FSearch search = new FSearch(measure, p -> { }, 2, 12);
        o.searchMethod = search.method(3);
        o.search = search.run(3);
        long f = o.search.knee().inFlight();
        o.finalResult = flow(f, 50_000.0 * f / (f + 10), 99);
        o.finalAnsweredEpochMs = clock[0] + 1_000;
        o.finalStats = ThroughputStats.of(o.finalResult);
        o.notes.add("a note");
        o.warnings.add("a warning");
        return o.outcome();
    }

    /** One probe's answer: 20 samples around {@code rate} (a fixed zig-zag of ±1 %, shifted by {@code seed}). */
    static FlowResult flow(long f, double rate, int seed) {
        FlowResult.Builder b = FlowResult.newBuilder().setInFlight(f);
        for (int i = 0; i < 20; i++) {
            b.addSamples(rate * (1 + 0.01 * (((i + seed) % 5) - 2) / 2.0)).addSampleNs(10_000_000L); // 20 x 10 ms
        }
        Histogram h = LatencyRange.histogram();
        long latencyNs = Math.max(1_000, (long) (f / rate * 1e9));
        h.recordValueWithCount(latencyNs, 900);
        h.recordValueWithCount(latencyNs * 3, 100);
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        h.encodeIntoCompressedByteBuffer(buf);
        buf.flip();
        long sampled = (long) (rate * 0.2);
        return b.setSent(sampled + 1_000).setReceived(sampled + 1_000 - f).setElapsedNs(400_000_000L)
                .putCounters("errors", 0).setHotThreadAllocatedBytes(4_096).setLatencyHistogram(ByteString.copyFrom(buf))
                .setProcessCpuNs(150_000_000L).setWarmupReceived(1_000).setWarmupElapsedNs(200_000_000L)
                .setSampledMessages(sampled).setSamplingNs(200_000_000L).setSamplingProcessCpuNs(80_000_000L)
                .setSamplingProducerCpuNs(30_000_000L).setSamplingConsumerCpuNs(20_000_000L)
                .setMeanInFlight(f * 0.75).build();
    }
}
