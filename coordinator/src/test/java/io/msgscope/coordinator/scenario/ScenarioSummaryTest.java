package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.result.LatencyFigures;
import io.msgscope.core.scenario.Scenario;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 5's fault reporting in the result model: errors by kind summed over both agents and the
 * coordinator, failed_during and missing agents, the spec with its hash and masked secrets; under a
 * German default locale, whose decimal comma must not reach any format.
 */
@ExtendWith(GermanLocale.class)
class ScenarioSummaryTest {
    static ScenarioConfig config(String uri, Map<String, String> options, long seed) {
        return new ScenarioConfig(Scenario.FAN_IN, new io.msgscope.core.Workload("mqtt", uri, options, 64,
                io.msgscope.core.Padding.RANDOM, seed), 2, 1, 100, 1_000, 2_000, null, ScenarioConfig.Connections.DEFAULT);
    }

    /** A run whose broker went away: subscribers lost, a publisher stopped, the publishers agent gone. */
    static ScenarioOutcome brokerLost() {
        ScenarioOutcome o = new ScenarioOutcome();
        o.publisherCounters.putAll(Map.of("messages_sent", 300L, "messages_acked", 290L, "errors_connection_lost", 2L,
                "errors_publish_failed", 3L));
        o.subscriberCounters.putAll(Map.of("messages_received", 290L, "errors_connection_lost", 1L,
                "errors_short_payload", 4L, "subscriptions", 1L, "subscriptions_lost", 1L));
        o.runErrors.put("errors_agent_lost", 1L);
        o.fail("all 1 subscriptions lost: connection to MQTT broker at 127.0.0.1:1 lost", "measurement");
        o.fail("a second failure is not the cause", "drain");
        o.missingAgents.add("publishers agent (127.0.0.1:2): no heartbeat from the agent for 2000 ms");
        o.firstErrors.add("subscribers: connection to MQTT broker at 127.0.0.1:1 lost");
        return o;
    }

    @Test
    void errorsAreCountedByKindOverEveryAgent() {
        ScenarioResult r = ScenarioSummary.build(config("tcp://127.0.0.1:1", Map.of(), 7), brokerLost(), "QoS 1", true);
        assertEquals("failed", r.envelope().status());
        assertEquals("measurement", r.envelope().failedDuring());
        assertEquals("all 1 subscriptions lost: connection to MQTT broker at 127.0.0.1:1 lost", r.envelope().failureReason());
        assertTrue(r.missingAgents().startsWith("publishers agent"));
        assertEquals(3L, r.results().counts().errorsByKind().get("errors_connection_lost"));
        assertEquals(3L, r.results().counts().errorsByKind().get("errors_publish_failed"));
        assertEquals(4L, r.results().counts().errorsByKind().get("errors_short_payload"));
        assertEquals(1L, r.results().counts().errorsByKind().get("errors_agent_lost"));
        assertEquals(0L, r.results().counts().errorsByKind().get("errors_refused"));
        assertEquals(11L, r.results().counts().errors());
        assertEquals(1L, r.results().counts().subscriptionsLost());
    }

    @Test
    void errorsAloneFailTheRunNamingTheKindsAndTheFirstError() {
        ScenarioOutcome o = new ScenarioOutcome();
        o.publisherCounters.putAll(Map.of("messages_sent", 400L));
        o.subscriberCounters.putAll(Map.of("messages_received", 400L, "errors_short_payload", 2L));
        o.firstErrors.add("subscribers: a subscriber received payloads shorter than the 32-byte header");
        ScenarioResult r = ScenarioSummary.build(config("", Map.of(), 1), o, "QoS 1", true);
        assertEquals("failed", r.envelope().status());
        assertEquals("2 errors (short_payload 2); first: subscribers: a subscriber received payloads shorter than "
                + "the 32-byte header", r.envelope().failureReason());
        assertEquals("measurement", r.envelope().failedDuring());
        assertEquals(1.0, r.results().delivery().deliveryRate());
    }

    /** Issue 29: the time series' rate (left) and latency (right) axes start at 0, not at the rate's own minimum. */
    @Test
    void theTimeSeriesAxesStartAtZero() {
        ScenarioResult r = ScenarioSummary.build(config("", Map.of(), 1), new ScenarioOutcome(), "QoS 1", true);
        String gp = ScenarioWriters.gnuplot(r);
        assertTrue(gp.contains("set yrange [0:*]\nset y2range [0:*]\n") && gp.indexOf("set yrange") < gp.indexOf("\nplot "), gp);
    }

    @Test
    void theSpecIsRecordedWithSecretsMaskedAndAStableHash() throws Exception {
        ScenarioConfig a = config("tcp://me:hunter2@127.0.0.1:1883", Map.of("password", "hunter3", "qos", "1"), 1);
        ScenarioConfig b = config("tcp://me:hunter2@127.0.0.1:1883", Map.of("password", "hunter3", "qos", "1"), 2);
        ScenarioConfig c = config("tcp://me:hunter2@127.0.0.1:1883", Map.of("password", "hunter3", "qos", "2"), 1);
        ScenarioResult r = ScenarioSummary.build(a, new ScenarioOutcome(), "QoS 1", true);
        String everything = ScenarioWriters.json(r) + ScenarioWriters.csv(r) + ScenarioWriters.markdown(r);
        assertFalse(everything.contains("hunter"), everything);
        assertTrue(everything.contains("tcp://me:****@127.0.0.1:1883"), everything);
        String hash = r.envelope().specHash();
        assertEquals(64, hash.length());
        // the run id differs, the spec does not: same hash; another QoS: another hash
        assertEquals(hash, ScenarioSummary.build(b, new ScenarioOutcome(), "QoS 1", true).envelope().specHash());
        assertNotEquals(hash, ScenarioSummary.build(c, new ScenarioOutcome(), "QoS 2", true).envelope().specHash());
    }

    /** Issue 16's one rule: more deliveries than expected fail a scenario as duplicates fail a trace run, unless allowed. */
    @Test
    void duplicatesFailUnlessAllowedAndAreReportedEitherWay() {
        ScenarioOutcome o = new ScenarioOutcome();
        o.publisherCounters.putAll(Map.of("messages_sent", 400L));
        o.subscriberCounters.putAll(Map.of("messages_received", 403L));
        ScenarioResult failed = ScenarioSummary.build(config("", Map.of(), 1), o, "QoS 1", true);
        assertEquals("failed", failed.envelope().status());
        assertEquals("received 403 deliveries, more than the 400 the scenario allows; --allow-duplicates accepts that "
                + "at an at-least-once QoS", failed.envelope().failureReason());
        ScenarioConfig c = config("", Map.of(), 1);
        ScenarioConfig allowed = c.allowingDuplicates(true);
        ScenarioResult ok = ScenarioSummary.build(allowed, o, "QoS 1", true);
        assertEquals("ok", ok.envelope().status());
        assertTrue(ok.notes().contains("3 deliveries beyond the 400 expected (duplicates or a message to more than one "
                + "group member), accepted by --allow-duplicates"), ok.notes().toString());
        assertEquals(403L, ok.results().counts().messagesReceived());
        assertNotEquals(failed.envelope().specHash(), ok.envelope().specHash(), "the allowance is part of the spec");
    }

    /**
     * Issue 27: publishers that fell behind (deferred sends, intended-time p50 348 ms against 2 ms from the actual
     * send) finish with every message sent, but a warning says so; on schedule (a 5 ms gap) or without deferrals no
     * warning.
     */
    @Test
    void publishersThatFellBehindAreWarnedOf() {
        ScenarioOutcome o = new ScenarioOutcome();
        o.publisherCounters.putAll(Map.of("messages_sent", 400L, "sends_deferred", 286_317L));
        o.subscriberCounters.putAll(Map.of("messages_received", 400L));
        o.latency = io.msgscope.core.LatencyRange.histogram();
        o.intended = io.msgscope.core.LatencyRange.histogram();
        for (int i = 0; i < 400; i++) {
            o.latency.recordValue(2_000_000L);
            o.intended.recordValue(348_000_000L);
        }
        ScenarioResult r = ScenarioSummary.build(config("", Map.of(), 1), o, "QoS 2", true);
        assertEquals("ok", r.envelope().status());
        assertEquals(1, r.envelope().warnings().size(), r.envelope().warnings().toString());
        String w = r.envelope().warnings().get(0);
        assertTrue(w.startsWith("the publishers fell behind their schedule: 286,317 sends deferred"), w);
        assertTrue(w.contains("intended_latency p50 348.") && w.contains("latency p50 2.0 ms"), w);
        assertTrue(r.notes().contains("warning: " + w));

        LatencyFigures twoMs = new LatencyFigures(2e3, 2e3, 2e3, 2e3, 2e3, 2e3, 2e3);
        LatencyFigures sevenMs = new LatencyFigures(7e3, 7e3, 7e3, 7e3, 7e3, 7e3, 7e3);
        assertNull(ScenarioCaveats.fellBehind(10, twoMs, sevenMs), "5 ms behind is within the 10 ms allowed");
        assertNull(ScenarioCaveats.fellBehind(0, twoMs, new LatencyFigures(1e6, 1e6, 1e6, 1e6, 1e6, 1e6, 1e6)),
                "nothing deferred");
    }

    /** Issue 27: a JetStream pull consumer's latency is its fetch batch's fill time, and a note says so. */
    @Test
    void aJetStreamPullConsumerNotesItsFetchBatch() {
        ScenarioConfig c = new ScenarioConfig(Scenario.ROUND_ROBIN, new io.msgscope.core.Workload("nats", "",
                Map.of("jetstream", "true", "consumer", "pull"), 64, io.msgscope.core.Padding.ZEROS, 1), 4, 2, 100,
                1_000, 2_000, null, ScenarioConfig.Connections.DEFAULT);
        // 400 msg/s over 2 subscribers: 200 each, a batch of 256 fills in 1.28 s, so the fetch's 1 s wait ends it
        String note = ScenarioCaveats.pullBatch(c, 800, 2.0);
        assertTrue(note.contains("at 200 msg/s per subscriber a batch takes 1000 ms"), note);
        // 2,000 msg/s each: 128 ms
        assertTrue(ScenarioCaveats.pullBatch(c, 8_000, 2.0).contains("takes 128 ms"));
        assertNull(ScenarioCaveats.pullBatch(config("", Map.of(), 1), 800, 2.0), "not JetStream pull: no note");
    }

    /** Issue 27: connect_time says what it times, and that a handful of connections is mostly the cold start. */
    @Test
    void connectTimeSaysWhatItTimes() {
        String few = ScenarioCaveats.connectTime(5);
        assertTrue(few.startsWith("connect_time_*: each connection's open call") && few.contains("over 5 connections")
                && few.contains("weighs heavily in every percentile"), few);
        assertTrue(ScenarioCaveats.connectTime(2_000).endsWith("in the top percentiles and the max"));
        assertNull(ScenarioCaveats.connectTime(0));
    }
}
