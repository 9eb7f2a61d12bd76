package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.results.LatencyFigures;
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
    static ScenarioCollector brokerLost() {
        ScenarioCollector o = new ScenarioCollector();
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
        ScenarioResult r = ScenarioSummary.build(config("tcp://127.0.0.1:1", Map.of(), 7), brokerLost().outcome(), "QoS 1", true);
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
        ScenarioCollector o = new ScenarioCollector();
        o.publisherCounters.putAll(Map.of("messages_sent", 400L));
        o.subscriberCounters.putAll(Map.of("messages_received", 400L, "errors_short_payload", 2L));
        o.firstErrors.add("subscribers: a subscriber received payloads shorter than the 32-byte header");
        ScenarioResult r = ScenarioSummary.build(config("", Map.of(), 1), o.outcome(), "QoS 1", true);
        assertEquals("failed", r.envelope().status());
        assertEquals("2 errors (short_payload 2); first: subscribers: a subscriber received payloads shorter than "
                + "the 32-byte header", r.envelope().failureReason());
        assertEquals("measurement", r.envelope().failedDuring());
        assertEquals(1.0, r.results().delivery().deliveryRate());
    }

    /** Issue 29: the time series' rate (left) and latency (right) axes start at 0, not at the rate's own minimum. */
    @Test
    void theTimeSeriesAxesStartAtZero() {
        ScenarioResult r = ScenarioSummary.build(config("", Map.of(), 1), new ScenarioCollector().outcome(), "QoS 1", true);
        String gp = ScenarioPlot.script(r);
        assertTrue(gp.contains("set yrange [0:*]\nset y2range [0:*]\n") && gp.indexOf("set yrange") < gp.indexOf("\nplot "), gp);
    }

    @Test
    void theSpecIsRecordedWithSecretsMaskedAndAStableHash() throws Exception {
        ScenarioConfig a = config("tcp://me:hunter2@127.0.0.1:1883", Map.of("password", "hunter3", "qos", "1"), 1);
        ScenarioConfig b = config("tcp://me:hunter2@127.0.0.1:1883", Map.of("password", "hunter3", "qos", "1"), 2);
        ScenarioConfig c = config("tcp://me:hunter2@127.0.0.1:1883", Map.of("password", "hunter3", "qos", "2"), 1);
        ScenarioResult r = ScenarioSummary.build(a, new ScenarioCollector().outcome(), "QoS 1", true);
        String everything = ScenarioWriters.json(r) + ScenarioWriters.csv(r) + ScenarioWriters.markdown(r);
        assertFalse(everything.contains("hunter"), everything);
        assertTrue(everything.contains("tcp://me:****@127.0.0.1:1883"), everything);
        String hash = r.envelope().specHash();
        assertEquals(64, hash.length());
        // the run id differs, the spec does not: same hash; another QoS: another hash
        assertEquals(hash, ScenarioSummary.build(b, new ScenarioCollector().outcome(), "QoS 1", true).envelope().specHash());
        assertNotEquals(hash, ScenarioSummary.build(c, new ScenarioCollector().outcome(), "QoS 2", true).envelope().specHash());
    }

    /** Issue 16's one rule: more deliveries than expected fail a scenario as duplicates fail a trace run, unless allowed. */
    @Test
    void duplicatesFailUnlessAllowedAndAreReportedEitherWay() {
        ScenarioCollector o = new ScenarioCollector();
        o.publisherCounters.putAll(Map.of("messages_sent", 400L));
        o.subscriberCounters.putAll(Map.of("messages_received", 403L));
        ScenarioResult failed = ScenarioSummary.build(config("", Map.of(), 1), o.outcome(), "QoS 1", true);
        assertEquals("failed", failed.envelope().status());
        assertEquals("received 403 deliveries, more than the 400 the scenario allows; --allow-duplicates accepts that "
                + "at an at-least-once QoS", failed.envelope().failureReason());
        ScenarioConfig c = config("", Map.of(), 1);
        ScenarioConfig allowed = c.allowingDuplicates(true);
        ScenarioResult ok = ScenarioSummary.build(allowed, o.outcome(), "QoS 1", true);
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
        ScenarioCollector o = new ScenarioCollector();
        o.publisherCounters.putAll(Map.of("messages_sent", 400L, "sends_deferred", 286_317L));
        o.subscriberCounters.putAll(Map.of("messages_received", 400L));
        o.latency = io.msgscope.core.LatencyRange.histogram();
        o.intended = io.msgscope.core.LatencyRange.histogram();
        for (int i = 0; i < 400; i++) {
            o.latency.recordValue(2_000_000L);
            o.intended.recordValue(348_000_000L);
        }
        ScenarioResult r = ScenarioSummary.build(config("", Map.of(), 1), o.outcome(), "QoS 2", true);
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

    /**
     * Issues 27, 30: the driver's latency caveat (given each subscriber's rate) and, for a failed run, its failure
     * note reach the notes; the coordinator names no driver itself.
     */
    @Test
    void theDriversCaveatAndFailureNoteReachTheNotes() {
        io.msgscope.core.driver.Driver driver = new io.msgscope.core.driver.Driver() {
            @Override
            public String name() {
                return "fake";
            }

            @Override
            public String failureNote(Map<String, String> options) {
                return "left behind: " + options.get("k");
            }

            @Override
            public String latencyCaveat(Map<String, String> options, double perSubscriberRate) {
                return String.format(java.util.Locale.ROOT, "caveat at %.1f msg/s", perSubscriberRate);
            }

            @Override
            public io.msgscope.core.driver.Subscriber openSubscriber(io.msgscope.core.driver.DriverSpec spec,
                                                                     io.msgscope.core.driver.ClientContext context) {
                throw new UnsupportedOperationException();
            }

            @Override
            public io.msgscope.core.driver.Publisher openPublisher(io.msgscope.core.driver.DriverSpec spec,
                                                                   io.msgscope.core.driver.ClientContext context) {
                throw new UnsupportedOperationException();
            }
        };
        ScenarioConfig c = config("", Map.of("k", "v"), 1); // one subscriber, 2 s
        ScenarioResult failed = ScenarioSummary.build(c, brokerLost().outcome(), "QoS 1", true, driver, null);
        assertTrue(failed.notes().contains("caveat at 145.0 msg/s"), failed.notes().toString()); // 290 over 2 s
        assertTrue(failed.notes().contains("left behind: v"), failed.notes().toString());
        ScenarioCollector fine = new ScenarioCollector();
        fine.publisherCounters.put("messages_sent", 400L);
        fine.subscriberCounters.put("messages_received", 400L);
        ScenarioResult ok = ScenarioSummary.build(c, fine.outcome(), "QoS 1", true, driver, null);
        assertEquals("ok", ok.envelope().status(), ok.envelope().failureReason());
        assertFalse(ok.notes().contains("left behind: v"), "a run that did not fail has no failure note");
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

    /**
     * Issue 31 item 1: {@code --drain-timeout} is in the spec when it is not the default 5000 ms (which keeps the hash
     * of every earlier spec), and the deliveries missing when none arrived for it say so.
     */
    @Test
    void theDrainTimeoutIsInTheSpecAndInTheMessageOfWhatIsMissing() {
        ScenarioCollector o = timedOut(400, 397);
        o.drainMs = 12_345;
        ScenarioConfig byDefault = config("", Map.of(), 1);
        ScenarioResult d = ScenarioSummary.build(byDefault, o.outcome(), "QoS 1", true);
        assertFalse(d.envelope().spec().containsKey("drain_timeout_ms"), d.envelope().spec().toString());
        assertEquals("delivery_rate 0.992500 < 1.0 at QoS 1: 3 deliveries missing after no delivery for 5000 ms "
                + "(--drain-timeout)", d.envelope().failureReason());
        assertEquals(12_345L, d.results().inFlightWaitMs());
        ScenarioResult longer = ScenarioSummary.build(byDefault.drainingFor(30_000), o.outcome(), "QoS 1", true);
        assertEquals(30_000L, longer.envelope().spec().get("drain_timeout_ms"));
        assertTrue(longer.envelope().failureReason().contains("3 deliveries missing after no delivery for 30000 ms"),
                longer.envelope().failureReason());
        assertNotEquals(d.envelope().specHash(), longer.envelope().specHash(), "the timeout is part of the spec");
        o.inFlightTimedOut = false; // the wait ended otherwise (an interruption, the subscriptions lost)
        assertTrue(ScenarioSummary.build(byDefault, o.outcome(), "QoS 1", true).envelope().failureReason()
                .endsWith("3 deliveries missing at the end of the in-flight wait"));
    }

    /**
     * Issue 31 item 3 (a loss seen on a quorum queue, status ok): without publisher confirms a scenario's loss is only
     * noted, yet on backlog phases a broker count still above 0 after the in-flight wait means the broker kept messages
     * and never delivered them — failed at any QoS. 22,000 sent, 1,999 received, expected 22,000 (fan-in, one
     * subscriber): 20,001 missing, delivery_rate 1,999 / 22,000 = 0.0908636 → "0.090864". The broker's last reads:
     * 19,000 and 901 (two subscribers agents), 19,901 in all; a last read of 0 leaves it a note.
     */
    @Test
    void aLossTheBrokerStillHeldFailsTheRunAtAnyQos() {
        ScenarioCollector o = timedOut(22_000, 1_999);
        o.backlogReads = brokerReads(19_000, 901);
        ScenarioConfig c = config("", Map.of(), 1);
        ScenarioResult held = ScenarioSummary.build(c, o.outcome(), "AMQP no confirms, acks", false);
        assertEquals("failed", held.envelope().status());
        String missing = "delivery_rate 0.090864 < 1.0 at AMQP no confirms, acks: 20001 deliveries missing after no "
                + "delivery for 5000 ms (--drain-timeout); the broker still held 19901 messages for the subscriptions at "
                + "its last read, after the wait: it had them and never delivered them";
        assertEquals(missing + " (failed at any QoS)", held.envelope().failureReason());
        assertFalse(held.notes().toString().contains("reported, not failed"), held.notes().toString());
        assertEquals(missing.replace("AMQP no confirms", "AMQP confirms"), ScenarioSummary.build(c, o.outcome(),
                "AMQP confirms, acks", true).envelope().failureReason());

        o.backlogReads = brokerReads(0, 0); // the broker held nothing: lost on the way in, which no confirm promised
        ScenarioResult noted = ScenarioSummary.build(c, o.outcome(), "AMQP no confirms, acks", false);
        assertEquals("ok", noted.envelope().status(), noted.envelope().failureReason());
        assertTrue(noted.notes().contains("delivery_rate < 1.0 at AMQP no confirms, acks (no delivery guarantee): 20001 "
                + "deliveries missing after no delivery for 5000 ms (--drain-timeout), reported, not failed"),
                noted.notes().toString());
        o.backlogReads = ScenarioBacklog.Reads.add(brokerReads(19_000, 901),
                io.msgscope.proto.ScenarioReport.newBuilder().setBacklogNote("the broker's backlog reads stopped").build());
        assertEquals("ok", ScenarioSummary.build(c, o.outcome(), "AMQP no confirms, acks", false).envelope().status(),
                "an agent that could not read: the broker's count is unknown, so the QoS decides");
    }

    /** A run whose in-flight wait ended after --drain-timeout without a delivery, {@code received} of {@code sent}. */
    private static ScenarioCollector timedOut(long sent, long received) {
        ScenarioCollector o = new ScenarioCollector();
        o.publisherCounters.put("messages_sent", sent);
        o.subscriberCounters.put("messages_received", received);
        o.inFlightTimedOut = true;
        return o;
    }

    /** Two subscribers agents' reads of the broker's count: 10,000 each in the pause, then {@code lastA}, {@code lastB}. */
    private static ScenarioBacklog.Reads brokerReads(long lastA, long lastB) {
        ScenarioBacklog.Reads r = null;
        for (long last : new long[] {lastA, lastB}) {
            r = ScenarioBacklog.Reads.add(r, io.msgscope.proto.ScenarioReport.newBuilder()
                    .addBacklogEpochNs(1_000_000_000L).addBacklogDepth(10_000)
                    .addBacklogEpochNs(2_000_000_000L).addBacklogDepth(last).setBacklogHeldMax(100).build());
        }
        return r;
    }

    /** issue 32 item 5: with --opt reconnect=true the agents' summed reconnect counts; null where none was counted. */
    @org.junit.jupiter.api.Test
    void reconnectCountsAreSummedOrUnknown() {
        java.util.Map<String, Long> counters = java.util.Map.of("publisher_reconnects", 3L, "messages_republished", 0L,
                "messages_sent", 10L);
        java.util.Map<String, Long> on = ScenarioSummary.reconnects(counters, java.util.Map.of("reconnect", "true"));
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of("publisher_reconnects", "subscriber_reconnects",
                "messages_republished"), java.util.List.copyOf(on.keySet()));
        org.junit.jupiter.api.Assertions.assertEquals(3L, on.get("publisher_reconnects"));
        org.junit.jupiter.api.Assertions.assertNull(on.get("subscriber_reconnects")); // not counted: unknown, not 0
        org.junit.jupiter.api.Assertions.assertEquals(0L, on.get("messages_republished"));
        org.junit.jupiter.api.Assertions.assertTrue(ScenarioSummary.reconnects(counters, java.util.Map.of()).isEmpty());
    }
}
