package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 5, "Bad input and faults", through the real CLI: each case on a PRIVATE mosquitto this test
 * starts on a free port (the shared one on 1883 is never touched) with small numbers. A fault is
 * counted in {@code errors} by kind, named in {@code failure_reason}, the results are written and
 * marked failed (exit 1), and nothing hangs; bad usage exits 2 naming the option.
 */
class FaultIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** Runs a small fan-in scenario (2 publishers x 100 msg/s, 2 s) against {@code uri} (nats:// or MQTT); extra args appended. */
    private MsgscopeProcess scenario(String name, String uri, String... extra) throws Exception {
        return scenario(name, uri, 2, extra);
    }

    private MsgscopeProcess scenario(String name, String uri, int seconds, String... extra) throws Exception {
        String driver = uri.startsWith("nats:") ? "nats" : "mqtt";
        List<String> args = new ArrayList<>(List.of("scenario", "--driver", driver, "--uri", uri, "--scenario", "fan-in",
                "--publishers", "2", "--rate", "100", "--duration", "" + seconds, "--out", tmp.resolve(name).toString()));
        if (!List.of(extra).contains("--warmup")) {
            args.addAll(List.of("--warmup", "1"));
        }
        args.addAll(List.of(extra));
        return MsgscopeProcess.start(tmp.resolve("wd-" + name), args.toArray(String[]::new));
    }

    private JsonNode failed(MsgscopeProcess p, String name) throws Exception {
        JsonNode j = p.awaitFailedSummary(tmp.resolve(name), 120);
        assertTrue(Files.exists(tmp.resolve(name).resolve("summary.csv")));
        assertTrue(Files.exists(tmp.resolve(name).resolve("summary.md")));
        assertTrue(j.get("results").get("errors").asLong() >= 1, j::toString);
        return j;
    }

    @ParameterizedTest(name = "MQTT {0}: max_qos 1 refuses QoS 2")
    @CsvSource({"version=5", "version=3", "engine=hivemq"})
    void aBrokerThatRefusesTheQosFailsTheRunNamingIt(String opt) throws Exception {
        try (PrivateBroker m = PrivateBroker.start(tmp.resolve("broker"), "max_qos 1")) {
            JsonNode j = failed(scenario("qos", m.uri(), "--opt", "qos=2", "--opt", opt), "qos");
            String why = j.get("failure_reason").asText();
            assertTrue(why.contains("QoS 1") && why.contains("SUBACK") && why.contains("--opt qos=2"), why);
            // the subscription is refused; at MQTT 5 the two publishers are too (the CONNACK's Maximum QoS 1):
            // the ramps open both roles' connections at once, so each refusal is counted
            long refused = j.get("results").get("errors_refused").asLong();
            assertTrue(refused == (opt.equals("version=3") ? 1 : 3), refused + " refused: " + j);
            assertEquals("set-up", j.get("failed_during").asText());
        }
    }

    @ParameterizedTest(name = "MQTT {0}: SUBACK {1}")
    @CsvSource({"version=5, 0x87 NOT_AUTHORIZED", "version=3, 0x80 FAILURE", "engine=hivemq, 0x87 NOT_AUTHORIZED"})
    void aRefusedSubscriptionFailsTheRunWithItsReasonCode(String opt, String code) throws Exception {
        Path b = tmp.resolve("broker");
        try (PrivateBroker m = PrivateBroker.start(b, PrivateBroker.dynsec(b, false, true))) {
            JsonNode j = failed(scenario("suback", m.uri(), "--opt", opt), "suback");
            String why = j.get("failure_reason").asText();
            assertTrue(why.contains("refused the subscription") && why.contains(code), why);
            assertEquals(1, j.get("results").get("errors_refused").asLong(), j::toString);
        }
    }

    @Test
    void refusedPublishesAreCountedWithTheirPubackReasonCode() throws Exception {
        Path b = tmp.resolve("broker");
        try (PrivateBroker m = PrivateBroker.start(b, PrivateBroker.dynsec(b, true, false))) {
            JsonNode j = failed(scenario("puback", m.uri()), "puback");
            JsonNode r = j.get("results");
            // every publish refused, warm-up included: 2 publishers x 100 msg/s x (1 + 2) s
            assertEquals(600, r.get("errors_refused").asLong(), j::toString);
            assertEquals(0, r.get("messages_received").asLong(), j::toString);
            assertTrue(j.get("failure_reason").asText().contains("PUBACK reason code 0x87 NOT_AUTHORIZED"), j::toString);
        }
    }

    @Test
    void connectionRefusedFailsTheRunAndMasksTheUrisPassword() throws Exception {
        int port = PrivateBroker.freePort(); // nothing listens there
        JsonNode j = failed(scenario("refused", "tcp://msgscope:s3cret-pw@127.0.0.1:" + port, "--opt",
                "password=0ther-s3cret", "--opt", "username=msgscope"), "refused");
        assertTrue(j.get("failure_reason").asText().contains("Connection refused"), j::toString);
        // every connection tried and refused: the subscriber and both publishers (the ramps run side by side)
        assertEquals(3, j.get("results").get("errors_connect_failed").asLong(), j::toString);
        assertEquals(3, j.get("results").get("connect_failed_connect_failed").asLong(), j::toString);
        for (String f : new String[] {"summary.json", "summary.csv", "summary.md"}) {
            String text = Files.readString(tmp.resolve("refused").resolve(f), StandardCharsets.UTF_8);
            assertFalse(text.contains("s3cret-pw") || text.contains("0ther-s3cret"), f + ": " + text);
        }
        assertEquals("****", j.get("spec").get("driver_options").get("password").asText());
        assertTrue(j.get("spec").get("uri").asText().contains("msgscope:****@"), j::toString);
        assertEquals(64, j.get("spec_hash").asText().length());
    }

    @ParameterizedTest(name = "{0} {1}, killed in the {2}")
    @CsvSource({"mqtt, qos=1, measurement", "mqtt, engine=hivemq, measurement", "nats, jetstream=false, measurement",
            "nats, engine=jnats, measurement", "nats, consumer=pull, measurement",
            "mqtt, qos=1, warm-up", "nats, jetstream=false, warm-up"})
    void aBrokerKilledAndRestartedMidRunEndsTheRunEarlyWithResultsWritten(String driver, String opt, String phase)
            throws Exception {
        boolean js = opt.startsWith("consumer=");
        boolean warmup = phase.equals("warm-up");
        try (PrivateBroker m = driver.equals("mqtt") ? PrivateBroker.start(tmp.resolve("broker"))
                : PrivateBroker.nats(tmp.resolve("broker"), js)) {
            List<String> extra = new ArrayList<>(List.of("--opt", opt));
            if (js) {
                extra.addAll(List.of("--opt", "jetstream=true"));
            }
            if (warmup) {
                extra.addAll(List.of("--warmup", "20"));
            }
            MsgscopeProcess p = scenario("restart", m.uri(), 20, extra.toArray(String[]::new));
            TraceRunIT.awaitLine(p.stderr, warmup ? "(warm-up)" : "2s/20s", 90_000);
            m.kill();
            Thread.sleep(500);
            m.startProcess(); // back on the same port: the client does not reconnect, the run must not hang
            JsonNode j = failed(p, "restart");
            JsonNode r = j.get("results");
            assertTrue(r.get("errors_connection_lost").asLong() >= 1, j::toString);
            assertEquals(1, r.get("subscriptions_lost").asLong(), j::toString);
            assertEquals(phase, j.get("failed_during").asText(), j::toString);
            assertTrue(j.get("failure_reason").asText().contains("subscriptions lost"), j::toString);
            if (!warmup) {
                assertTrue(r.get("messages_received").asLong() > 0, j::toString);
            }
            long rows = Files.readAllLines(tmp.resolve("restart").resolve("timeseries.dat")).stream()
                    .filter(l -> !l.startsWith("#")).count();
            assertTrue(rows < 20, "the run ended early: " + rows + " seconds measured");
        }
    }

    @Test
    void aStrayShortPayloadIsCountedNotFatal() throws Exception {
        try (PrivateBroker m = PrivateBroker.start(tmp.resolve("broker"))) {
            MsgscopeProcess p = scenario("short", m.uri(), "--topic-prefix", "faults/short");
            Mqtt3BlockingClient stray = MqttClient.builder().useMqttVersion3().serverHost("127.0.0.1")
                    .serverPort(m.port).buildBlocking();
            stray.connect();
            try {
                while (p.process.isAlive()) {
                    stray.publishWith().topic("faults/short").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {1, 2, 3})
                            .send();
                    Thread.sleep(200);
                }
            } finally {
                stray.disconnect();
            }
            JsonNode j = failed(p, "short");
            JsonNode r = j.get("results");
            assertTrue(r.get("errors_short_payload").asLong() >= 1, j::toString);
            assertEquals(r.get("errors").asLong(), r.get("errors_short_payload").asLong(), j::toString);
            assertEquals(1.0, r.get("delivery_rate").asDouble(), j::toString); // the real messages all arrived
        }
    }

    /**
     * Issue 16's fault matrix for scenarios: either agent killed in the warm-up or the measurement ends the run with
     * exit 1, the agent and the phase named, and what the survivor measured kept.
     */
    @ParameterizedTest(name = "{0} agent killed during the {1}")
    @CsvSource({"publishers, measurement", "subscribers, measurement", "publishers, warm-up", "subscribers, warm-up",
            "publishers, set-up", "subscribers, set-up"})
    void anAgentKilledFailsTheRunNamingItAndThePhase(String role, String phase) throws Exception {
        try (PrivateBroker m = PrivateBroker.start(tmp.resolve("broker"))) {
            String name = role + "-" + phase;
            MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd-" + name), "scenario", "--driver", "mqtt",
                    "--uri", m.uri(), "--scenario", "fan-in", "--publishers", "2", "--rate", "100", "--duration", "20",
                    "--warmup", phase.equals("warm-up") ? "20" : "1", "--out", tmp.resolve(name).toString());
            ProcessHandle agent = TraceRunIT.awaitChild(p.process, role, 60_000);
            if (!phase.equals("set-up")) { // at set-up: killed as soon as it exists, before or after it reported its port
                TraceRunIT.awaitLine(p.stderr, phase.equals("warm-up") ? "(warm-up)" : "2s/20s", 90_000);
            }
            agent.destroyForcibly();
            JsonNode j = failed(p, name);
            assertTrue(j.get("failure_reason").asText().contains(role + " agent"), j::toString);
            assertEquals(phase, j.get("failed_during").asText(), j::toString);
            if (phase.equals("set-up")) {
                for (String count : new String[] {"messages_sent", "messages_received"}) {
                    JsonNode c = j.get("results").get(count);
                    assertTrue(c == null || c.isNull() || c.asLong() == 0, () -> count + ": nothing was measured, " + j);
                }
                assertEquals(1, j.get("results").get("errors_agent_lost").asLong(), j::toString);
                assertFalse(j.get("failure_reason").asText().startsWith("IOException"), j::toString);
                return;
            }
            assertTrue(j.get("missing_agents").asText().contains(role + " agent"), j::toString);
            assertEquals(1, j.get("results").get("errors_agent_lost").asLong(), j::toString);
            if (role.equals("publishers") && phase.equals("measurement")) {
                // the subscribers' figures were still collected
                assertTrue(j.get("results").get("messages_received").asLong() > 0, j::toString);
                assertTrue(j.get("results").get("latency_p50_us").isNumber(), j::toString);
            }
            if (role.equals("subscribers") && phase.equals("measurement")) {
                // the publishers' count was still collected
                assertTrue(j.get("results").get("messages_sent").asLong() > 0, j::toString);
            }
        }
    }

    @ParameterizedTest(name = "{0} --topic-prefix {1}")
    @CsvSource({"mqtt, a/#/b", "mqtt, $SYS/x", "nats, a.*", "nats, a..b"})
    void aTopicTheClientWouldRejectIsBadUsage(String driver, String prefix) throws Exception {
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd"), "scenario", "--driver", driver, "--topic-prefix",
                prefix, "--out", tmp.resolve("bad").toString());
        assertEquals(2, p.waitFor(60), () -> TraceRunIT.safe(p::err));
        assertTrue(p.err().contains("--topic-prefix"), p.err());
        assertEquals(1, p.err().lines().filter(l -> !l.startsWith("Try ")).count(), p.err());
    }
}
