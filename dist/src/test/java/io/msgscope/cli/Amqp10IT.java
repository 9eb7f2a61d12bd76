package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.core.test.Await;
import io.msgscope.driver.amqp10.EmbeddedBrokerJ;
import io.msgscope.driver.amqp10.RabbitAmqp10;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The AMQP 1.0 driver (issue 19) through the real jar: trace runs, rate mode, the throughput search and the four
 * scenarios against RabbitMQ's AMQP 1.0 plugin (enabled by the set-up when off; skipped when RabbitMQ is absent, a
 * failure under CI=true), bad options refused with exit 2, a port without AMQP 1.0 (exit 1, one line naming the
 * plugin), and an embedded Qpid Broker-J stopped in the middle of a run: exit 1, results written, the run marked
 * failed with one line.
 */
class Amqp10IT {
    @TempDir
    Path tmp;

    private MsgscopeProcess start(String name, String... args) throws Exception {
        return MsgscopeProcess.start(tmp.resolve(name + "-cwd"), args);
    }

    private static List<String> args(String... a) {
        return new ArrayList<>(List.of(a));
    }

    @ParameterizedTest
    @CsvSource({"unsettled, max_inflight=100", "settled, settled=true", "durable, durable=true"})
    void aTraceRunThroughRabbitMqsAmqp10AccountsForEveryMessage(String name, String opt) throws Exception {
        String uri = RabbitAmqp10.require();
        Path out = tmp.resolve(name);
        MsgscopeProcess p = start(name, "run", "--driver", "amqp10", "--uri", uri, "--count", "10000", "--warmup",
                "1000", "--rate", "2000", "--opt", opt, "--out", out.toString());
        int rc = p.waitFor(180);
        assertEquals(0, rc, () -> "stdout: " + TraceRunIT.safe(p::out) + " stderr: " + TraceRunIT.safe(p::err));
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText());
        assertEquals("amqp10", s.get("driver").asText());
        assertFalse(Files.readString(out.resolve("summary.json")).contains("guest:guest"), "password leaked");
        JsonNode c = s.get("counters");
        assertEquals(10_000, c.get("messages_received").asLong(), c::toString);
        assertEquals(0, c.get("messages_lost").asLong());
        assertEquals(0, c.get("duplicates").asLong());
        if (!name.equals("settled")) {
            assertEquals(10_000, c.get("accepted").asLong(), c::toString);
            assertEquals(0, c.get("rejected").asLong() + c.get("released").asLong() + c.get("modified").asLong());
        }
    }

    @Test
    void theThroughputSearchConvergesOnRabbitMqsAmqp10() throws Exception {
        String uri = RabbitAmqp10.require();
        Path out = tmp.resolve("throughput");
        MsgscopeProcess p = start("throughput", "throughput", "--driver", "amqp10", "--uri", uri, "--samples", "20",
                "--max-exponent", "3", "--size", "64", "--out", out.toString());
        assertEquals(0, p.waitFor(300), () -> TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText());
        JsonNode r = s.get("result");
        assertEquals(200, r.get("samples").asInt(), "after a search: ten probes' worth (--final-samples auto)");
        assertEquals(r.get("messages_sent").asLong(), r.get("messages_received").asLong(), "drained");
        assertTrue(s.get("destination").asText().startsWith("/queue/msgscope-amqp10-"), s.get("destination").asText());
    }

    @ParameterizedTest
    @CsvSource({"fan-in, 4, 1", "fan-out, 1, 4", "straight-run, 2, 2", "round-robin, 2, 3"})
    void everyScenarioDeliversEveryMessage(String scenario, int pubs, int subs) throws Exception {
        RabbitAmqp10.require();
        Path out = tmp.resolve(scenario);
        MsgscopeProcess p = start(scenario, "scenario", "--driver", "amqp10", "--uri", RabbitAmqp10.URI,
                "--scenario", scenario, "--publishers", "" + pubs, "--subscribers", "" + subs, "--rate", "200",
                "--duration", "2", "--warmup", "1", "--out", out.toString());
        JsonNode j = p.awaitOkSummary(out, 120);
        long sent = ScenarioResults.assertEveryMessageDelivered(j, scenario, pubs, subs, 200, 2);
        assertEquals(sent, j.get("results").get("messages_acked").asLong(), j::toString);
        if (scenario.equals("round-robin")) { // the shared /queue/ queue is deleted by the last subscriber to leave
            Process list = new ProcessBuilder("rabbitmqctl", "list_queues", "name").redirectErrorStream(true).start();
            String queues = new String(list.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            list.waitFor();
            String runId = j.get("run_id").asText();
            assertFalse(queues.contains(runId), "a queue of run " + runId + " left behind: " + queues);
        }
    }

    @Test
    void badOptionsAreUsageErrors() throws Exception {
        Usage.assertUsageError(start("b1", "run", "--driver", "amqp10", "--opt", "credit=0", "--count", "1000"),
                "--opt credit");
        Usage.assertUsageError(start("b2", "run", "--driver", "amqp10", "--opt", "settled=true", "--opt",
                "max_inflight=5", "--count", "1000"), "--opt max_inflight");
        Usage.assertUsageError(start("b3", "run", "--driver", "amqp10", "--uri", "amqp://u:pw@h:5672/a/b", "--count",
                "1000"), "--uri");
        Usage.assertUsageError(start("b4", "scenario", "--driver", "amqp10", "--scenario", "fan-out", "--opt",
                "topic=x"), "--opt topic");
    }

    /**
     * A port that answers AMQP 1.0's header with 0-9-1's and closes, as RabbitMQ does without rabbitmq_amqp1_0: the run
     * fails at connect (exit 1) with one line naming the plugin, results written.
     */
    @Test
    void aBrokerWithoutAmqp10FailsWithOneLineNamingThePlugin() throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                while (!server.isClosed()) {
                    try (java.net.Socket s = server.accept()) {
                        s.getInputStream().readNBytes(8);
                        s.getOutputStream().write(new byte[] {'A', 'M', 'Q', 'P', 0, 0, 9, 1});
                        s.getOutputStream().flush();
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            t.setDaemon(true);
            t.start();
            Path out = tmp.resolve("no-amqp10");
            MsgscopeProcess p = start("no-amqp10", "run", "--driver", "amqp10", "--uri",
                    "amqp://guest:guest@127.0.0.1:" + server.getLocalPort(), "--count", "1000", "--out", out.toString());
            String reason = p.awaitFailedSummary(out, 180).get("failure_reason").asText();
            assertTrue(reason.contains("rabbitmq_amqp1_0"), reason);
        }
    }

    /** Broker-J stopped mid-run: the run fails with one line and writes what it measured. */
    @Test
    void aBrokerStoppedMidRunFailsTheRunWithResultsWritten() throws Exception {
        try (EmbeddedBrokerJ broker = EmbeddedBrokerJ.start()) {
            Path out = tmp.resolve("fault");
            MsgscopeProcess p = start("fault", "run", "--driver", "amqp10", "--uri", broker.uri(), "--count",
                    "200000", "--warmup", "100", "--rate", "2000", "--out", out.toString());
            // the agents start slowly on a busy box
            Await.until(() -> (TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err)).contains("measuring"), 120,
                    "the run to start measuring");
            Thread.sleep(3_000); // some messages through, most still to come
            broker.stop();
            JsonNode s = p.awaitFailedSummary(out, 180);
            String reason = s.get("failure_reason").asText();
            assertTrue(reason.contains("amqp10"), reason);
            assertTrue(s.get("counters").get("messages_received").asLong() > 0, s::toString);
        }
    }

    /** A kill on the timeline needs clients that reconnect: refused without --opt reconnect=true (issue 32 item 3). */
    @Test
    void withoutReconnectAKillIsRefusedNamingTheOption() throws Exception {
        Usage.assertKillRefusedWithoutReconnect(tmp, "amqp10");
    }
}
