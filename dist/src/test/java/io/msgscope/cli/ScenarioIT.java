package io.msgscope.cli;

import io.msgscope.core.test.Ci;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Seed 002's scenarios through the real CLI against Mosquitto (127.0.0.1:1883) and nats-server
 * (127.0.0.1:4222), small numbers: 200 msg/s per publisher, 2 s after a 1 s warm-up. Under CI=true a
 * missing broker fails the test; otherwise it is skipped with a message.
 */
class ScenarioIT {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0} {1} P={2} S={3} {4}")
    @CsvSource({
            "mqtt, fan-in,       4, 1, qos=1",
            "mqtt, fan-out,      1, 4, qos=1",
            "mqtt, straight-run, 4, 4, qos=1",
            "mqtt, round-robin,  4, 4, qos=1",
            "nats, fan-in,       4, 1, jetstream=false",
            "nats, fan-out,      1, 4, jetstream=false",
            "nats, straight-run, 4, 4, jetstream=false",
            "nats, round-robin,  4, 4, jetstream=false",
            // JetStream (issue 5): one stream per subject made and removed by the run; push and pull consumers
            "nats, fan-in,       4, 1, consumer=push",
            "nats, fan-out,      1, 4, consumer=pull",
            "nats, straight-run, 4, 4, consumer=push",
            "nats, round-robin,  4, 4, consumer=push",
            "nats, round-robin,  4, 4, consumer=pull",
            // issue 13: AMQP scenarios through amq.topic, confirms and manual acks, so a loss fails the run
            "amqp, fan-in,       4, 1, confirm=100",
            "amqp, fan-out,      1, 4, confirm=100",
            "amqp, straight-run, 4, 4, confirm=100",
            "amqp, round-robin,  4, 4, confirm=100",
            // issue 19: RabbitMQ's durable queue types (several options separated by ';')
            "amqp, fan-out,      1, 4, confirm=100;queue_type=stream",
            "amqp, round-robin,  4, 4, confirm=100;queue_type=quorum"})
    void everyMessageIsDeliveredAsTheScenarioSays(String driver, String scenario, int p, int s, String opt)
            throws Exception {
        boolean js = opt.startsWith("consumer=");
        requireBroker(driver.equals("mqtt") ? 1883 : driver.equals("amqp") ? 5672 : 4222,
                driver.equals("mqtt") ? "Mosquitto" : driver.equals("amqp") ? "RabbitMQ" : "nats-server");
        Path out = tmp.resolve(driver + "-" + scenario + "-" + opt.replaceAll("[^a-z0-9]+", "_"));
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("scenario",
                "--driver", driver, "--scenario", scenario, "--publishers", "" + p, "--subscribers", "" + s,
                "--rate", "200", "--duration", "2", "--warmup", "1", "--out", out.toString()));
        for (String o : opt.split(";")) {
            args.addAll(java.util.List.of("--opt", o));
        }
        if (js) {
            args.addAll(java.util.List.of("--opt", "jetstream=true", "--opt", "storage=memory"));
        }
        MsgscopeProcess proc = MsgscopeProcess.start(tmp.resolve("wd-" + out.getFileName()),
                args.toArray(String[]::new));
        JsonNode j = proc.awaitOkSummary(out, 120);
        long sent = ScenarioResults.assertEveryMessageDelivered(j, scenario, p, s, 200, 2);
        JsonNode r = j.get("results");
        if (!driver.equals("nats") || js) {
            assertEquals(sent, r.get("messages_acked").asLong(), j::toString);
        }
        if (js) {
            assertTrue(j.get("delivery").asText().startsWith("JetStream"), j::toString);
            assertEquals("true", j.get("broker").get("jetstream_available").asText(), j::toString);
            assertTrue(j.get("broker").get("version").asText().matches("\\d+\\.\\d+.*"), j::toString); // NATS INFO
            assertStreamsRemoved(j.get("run_id").asText());
        }
        for (String f : new String[] {"latency_min_us", "latency_max_us", "latency_mean_us", "latency_p50_us",
                "latency_p95_us", "latency_p99_us", "latency_p999_us"}) {
            assertTrue(r.get(f).isNumber(), f + " in " + j);
        }
        String csv = Files.readString(out.resolve("summary.csv"), StandardCharsets.UTF_8);
        assertEquals(2, csv.lines().count(), csv);
        assertTrue(Files.readString(out.resolve("summary.md"), StandardCharsets.UTF_8).startsWith("| metric | value |"));
        long rows = Files.readAllLines(out.resolve("timeseries.dat")).stream().filter(l -> !l.startsWith("#")).count();
        assertEquals(2, rows);
        assertTrue(Files.exists(out.resolve("timeseries.gp")));
        // issue 18: latency.hlog, one interval per second of the measurement (and the drain), every delivery in one
        java.util.List<org.HdrHistogram.Histogram> intervals = Hlog.intervals(out.resolve("latency.hlog"));
        assertTrue(intervals.size() >= 2, intervals::toString);
        assertEquals(r.get("messages_received").asLong(), Hlog.total(out.resolve("latency.hlog")), j::toString);
        // not a terminal: plain progress lines on stderr
        String err = proc.err();
        assertTrue(err.contains(scenario + " @ ") && err.contains("2s/2s") && !err.contains("\r"), err);
    }

    /** The run removes the streams it made (named after its subjects, which carry the run id). */
    private static void assertStreamsRemoved(String runId) throws Exception {
        try (io.nats.client.Connection c = io.nats.client.Nats.connect("nats://127.0.0.1:4222")) {
            for (String name : c.jetStreamManagement().getStreamNames()) {
                assertTrue(!name.contains(runId), "stream " + name + " left behind by run " + runId);
            }
        }
    }

    @Test
    void roundRobinOnMqtt311IsAUsageError() throws Exception {
        MsgscopeProcess proc = MsgscopeProcess.start(tmp.resolve("wd"), "scenario", "--driver", "mqtt",
                "--opt", "version=3", "--scenario", "round-robin", "--out", tmp.resolve("rr").toString());
        Usage.assertUsageError(proc, "round-robin needs MQTT 5");
    }

    static void requireBroker(int port, String name) {
        boolean up;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            up = true;
        } catch (IOException e) {
            up = false;
        }
        if (!up && Ci.on()) {
            fail(name + " must listen on 127.0.0.1:" + port + " under CI=true");
        }
        assumeTrue(up, name + " is not listening on 127.0.0.1:" + port + ": scenario run skipped");
    }
}
