package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.Golden;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import io.msgscope.core.LatencyRange;
import io.msgscope.core.scenario.Scenario;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Scenario mode's summary.json on fixed inputs, byte for byte in every locale (issue 15; see {@link Golden}). */
class ScenarioGoldenTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("io.msgscope.coordinator.Golden#locales")
    void scenarioSummaryMatchesItsGoldenFile(String locale) throws IOException {
        Golden.inLocale(locale, () -> {
            ScenarioResult r = goldenScenario();
            Path file = dir.resolve("scenario-summary.json");
            Files.writeString(file, ScenarioWriters.json(r), StandardCharsets.UTF_8);
            Golden.assertGolden("scenario-summary.json", file);
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
        return ScenarioSummary.build(goldenConfig(), goldenOutcome().outcome(), "QoS 1", true);
    }

    static ScenarioConfig goldenConfig() {
        return new ScenarioConfig(Scenario.FAN_IN, new io.msgscope.core.Workload("mqtt",
                "tcp://u:secret@127.0.0.1:1883", Map.of("qos", "1"), 64, io.msgscope.core.Padding.ZEROS, 0x5eedL),
                2, 1, 100, 1_000, 2_000, "msgscope/golden", ScenarioConfig.Connections.DEFAULT);
    }

    static ScenarioCollector goldenOutcome() {
        ScenarioCollector o = new ScenarioCollector();
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
        o.drainMs = 5_100; // the last delivery at 0.1 s, then 5 s with none
        o.inFlightTimedOut = true; // the missing delivery: none arrived for --drain-timeout
        o.publishersAgents = 1;
        o.subscribersAgents = 1;
        o.startedAt = "2026-01-02T03:04:05Z";
        o.seconds.add(new ScenarioResult.Second(1, 199.5, 61.25, 85.5));
        o.seconds.add(new ScenarioResult.Second(2, 200.0, 60.75, 84.0));
        return o;
    }
}
