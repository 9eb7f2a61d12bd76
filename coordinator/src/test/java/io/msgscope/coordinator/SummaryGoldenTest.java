package io.msgscope.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.google.protobuf.ByteString;
import io.msgscope.analysis.AnalysisResult;
import io.msgscope.coordinator.scenario.ScenarioConfig;
import io.msgscope.coordinator.scenario.ScenarioOutcome;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import io.msgscope.core.EnvironmentInfo;
import io.msgscope.core.LatencyRange;
import io.msgscope.core.RunSpec;
import io.msgscope.core.Version;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.coordinator.scenario.ScenarioResult;
import io.msgscope.coordinator.scenario.ScenarioRun;
import io.msgscope.coordinator.scenario.ScenarioSummary;
import io.msgscope.coordinator.scenario.ScenarioWriters;
import io.msgscope.proto.FlowResult;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Golden files for summary.json of trace, throughput and scenario mode on fixed inputs (issue 15): the result pipeline may be
 * reorganised, but every field, its order and its number formatting stay as they are, whatever the default locale.
 * Regenerate after an intended change with {@code -Dmsgscope.golden.update=true} and read the diff.
 */
class SummaryGoldenTest {
    /** A fixed environment: the golden files do not depend on the machine that runs the test. */
    static final EnvironmentInfo ENV = new EnvironmentInfo("OpenJDK 64-Bit Server VM 17.0.15", "Linux 6.1 amd64",
            "Test CPU @ 2.0GHz", 2, 1, "golden-host", "00000000-0000-0000-0000-000000000000");

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"ROOT", "de-DE", "fr-FR", "tr-TR", "ar-EG", "hi-IN"})
    void traceSummaryMatchesItsGoldenFile(String locale) throws IOException {
        inLocale(locale, () -> {
            TraceCollector out = SummaryJsonTest.handTrace();
            out.failedDuring = "measurement";
            AnalysisResult a = TraceAnalysis.analyse(new Trace(10, out.sendNs, out.intendedNs, out.recvNs), 1);
            Map<String, Object> s = SummaryJson.build(out.result(), a, ENV, "2026-01-02T03:04:05Z",
                    List.of("trace.dat", SummaryJson.FILE_NAME));
            assertGolden("trace-summary.json", s);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"ROOT", "de-DE", "fr-FR", "tr-TR", "ar-EG", "hi-IN"})
    void throughputSummaryMatchesItsGoldenFile(String locale) throws IOException {
        inLocale(locale, () -> {
            ThroughputRun.Outcome o = searchedOutcome();
            RunSpec spec = RunSpec.builder().count(2).window(1).size(64).pin(false).driver("amqp")
                    .uri("amqp://guest:secret@127.0.0.1:5672/%2f").driverOptions(Map.of("prefetch", "100")).build();
            ThroughputResults.Given g = new ThroughputResults.Given(64, "zeros", 0, 20, "auto", 10, 2, 200, 3000, 20000, 3,
                    "knee", 2, 12);
            Map<String, Object> s = ThroughputResults.summary(spec, g, o, ENV, "throughput-golden", "2026-01-02T03:04:05Z",
                    List.of("search.dat", "search.gp", SummaryJson.FILE_NAME));
            assertGolden("throughput-summary.json", s);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"ROOT", "de-DE", "fr-FR", "tr-TR", "ar-EG", "hi-IN"})
    void scenarioSummaryMatchesItsGoldenFile(String locale) throws IOException {
        inLocale(locale, () -> {
            ScenarioResult r = goldenScenario();
            Path file = dir.resolve("scenario-summary.json");
            Files.writeString(file, ScenarioWriters.json(r), StandardCharsets.UTF_8);
            assertGolden("scenario-summary.json", file);
        });
    }

    /** The golden scenario's messages received: 399 of 400. */
    static final int SCENARIO_RECEIVED = 399;

    /** The golden scenario's latency of the i-th received message (1-based), ns. */
    static long scenarioLatencyNs(int i) {
        return 50_000L + 1_000L * (i % 37);
    }

    /** The golden scenario's latency from the intended send time of the i-th received message, ns. */
    static long scenarioIntendedLatencyNs(int i) {
        return 60_000L + 1_000L * (i % 41);
    }

    /** The scenario result of scenario-summary.json: fixed inputs, no run. */
    static ScenarioResult goldenScenario() {
        ScenarioConfig c = new ScenarioConfig(Scenario.FAN_IN, new io.msgscope.core.Workload("mqtt",
                "tcp://u:secret@127.0.0.1:1883", Map.of("qos", "1"), 64, io.msgscope.core.Padding.ZEROS, 0x5eedL),
                2, 1, 100, 1_000, 2_000, "msgscope/golden", ScenarioConfig.Connections.DEFAULT);
        ScenarioOutcome o = new ScenarioOutcome();
        o.sent = 400;
        o.publisherCounters.putAll(Map.of("messages_sent", 400L, "messages_acked", 400L, "bytes_sent", 25_600L,
                "warmup_sent", 200L, "connections_opened", 2L));
        o.subscriberCounters.putAll(Map.of("messages_received", 399L, "bytes_received", 25_536L,
                "warmup_received", 198L, "connections_opened", 1L));
        o.broker.put("protocol", "MQTT 5");
        o.environment.put("host", "golden-host");
        o.latency = LatencyRange.histogram();
        o.intended = LatencyRange.histogram();
        for (int i = 1; i <= SCENARIO_RECEIVED; i++) {
            o.latency.recordValue(scenarioLatencyNs(i));
            o.intended.recordValue(scenarioIntendedLatencyNs(i));
        }
        o.connect = LatencyRange.histogram();
        o.connect.recordValue(2_500_000L);
        o.connect.recordValue(3_100_000L);
        o.connect.recordValue(4_700_000L);
        o.setupSeconds = 0.25;
        o.drainMs = 12;
        o.publishersAgents = 1;
        o.subscribersAgents = 1;
        o.startedAt = "2026-01-02T03:04:05Z";
        o.seconds.add(new ScenarioResult.Second(1, 199.5, 61.25, 85.5));
        o.seconds.add(new ScenarioResult.Second(2, 200.0, 60.75, 84.0));
        return ScenarioSummary.build(c, o, "QoS 1", true);
    }

    /**
     * A search on a simulated client whose samples are fixed by a formula (no randomness): throughput rises to a
     * plateau of 50,000 msg/s from F = 100 on, latency F / throughput.
     */
    static ThroughputRun.Outcome searchedOutcome() throws Exception {
        ThroughputRun.Outcome o = new ThroughputRun.Outcome();
        o.destination = "queue amq.gen-golden";
        o.warmup = flow(100, 40_000, 0).toBuilder().setWarmupReceived(120_000).setWarmupElapsedNs(3_000_000_000L)
                .build();
        long[] clock = {1_700_000_000_000L};
        FSearch.Measure measure = (f, phase) -> {
            FlowResult r = flow(f, 50_000.0 * f / (f + 10), o.probes.size());
            ThroughputStats st = ThroughputStats.of(r);
            o.probes.add(st);
            o.phases.add(phase);
            o.answeredEpochMs.add(clock[0] += 1_000);
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
        return o;
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

    interface Body {
        void run() throws Exception;
    }

    static void inLocale(String tag, Body body) throws IOException {
        Locale saved = Locale.getDefault();
        try {
            Locale.setDefault(tag.equals("ROOT") ? Locale.ROOT : Locale.forLanguageTag(tag));
            body.run();
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            Locale.setDefault(saved);
        }
    }

    /** summary.json as written, the tool's version replaced by {@code VERSION} so a release does not break it. */
    void assertGolden(String golden, Map<String, Object> summary) throws IOException {
        Path file = dir.resolve(golden);
        SummaryJson.write(file, summary);
        assertGolden(golden, file);
    }

    static void assertGolden(String golden, Path file) throws IOException {
        String got = Files.readString(file, StandardCharsets.UTF_8)
                .replace("\"version\" : \"" + Version.TOOL + "\"", "\"version\" : \"VERSION\"")
                .replace("\"msgscope " + Version.TOOL + "\"", "\"msgscope VERSION\"");
        if (Boolean.getBoolean("msgscope.golden.update")) {
            Path src = Path.of("src/test/resources/io/msgscope/coordinator/golden", golden);
            Files.writeString(src, got, StandardCharsets.UTF_8);
        }
        try (InputStream in = SummaryGoldenTest.class.getResourceAsStream("golden/" + golden)) {
            assertNotNull(in, "missing golden file " + golden + " (run with -Dmsgscope.golden.update=true)");
            assertEquals(new String(in.readAllBytes(), StandardCharsets.UTF_8), got, golden + " differs");
        }
    }
}
