package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults in scenario mode (issue 32 item 5), through the real CLI: a PRIVATE nats-server (its own port; the shared one
 * on 4222 is never touched) is paused by the broker-probe agent 2 s into a fan-in of 2 publishers x 500 msg/s and
 * resumed 2 s later. Every figure of the pause is computed again here from fault-buckets.dat, the counts it comes from:
 * the outage is the run of empty buckets around it, the window's sends, deliveries, duplicates and late ones are the
 * buckets' sums (its loss by sequence: sent less the distinct deliveries), and the outage lies within 100 ms of the 2 s
 * the server was stopped (the last delivery before it and the first after it are
 * somewhere in the buckets around the run). A kill and a restart with --opt reconnect=true cost the kill's outage
 * alone, the clients coming back; without the option a kill is refused, naming --faults and the option, and so is
 * --faults without a broker for the probe to sample.
 */
class ScenarioFaultIT {
    @TempDir
    Path tmp;

    @Test
    void aPausedServerCostsTheRunOfEmptyBucketsAroundIt() throws Exception {
        try (PrivateBroker nats = PrivateBroker.nats(tmp.resolve("nats"), false)) {
            Path pidFile = tmp.resolve("nats.pid");
            Files.writeString(pidFile, nats.pid() + "\n");
            Path out = tmp.resolve("run");
            MsgscopeProcess p = MsgscopeProcess.start(tmp, "scenario", "--driver", "nats", "--uri", nats.uri(),
                    "--scenario", "fan-in", "--publishers", "2", "--rate", "500", "--duration", "8", "--warmup", "1",
                    "--broker-pid", "" + nats.pid(), "--fault-target", "node1=" + pidFile,
                    "--faults", "2s:pause:node1, 4s:resume:node1", "--out", out.toString());
            int rc = p.waitFor(180);
            JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
            String console = TraceRunIT.safe(p::out);
            System.out.println("scenario fault run: rc " + rc + ", faults " + s.get("faults") + "\nstdout: " + console);
            assertEquals(0, rc, console);
            JsonNode pause = s.get("faults").get(0);
            JsonNode resume = s.get("faults").get(1);
            assertTrue(pause.get("error").isNull() && resume.get("error").isNull(), s.get("faults")::toString);
            assertTrue(Math.abs(pause.get("lag_ms").asDouble()) < 50, pause::toString); // the issue's 50 ms
            double stoppedMs = (resume.get("applied_s").asDouble() - pause.get("applied_s").asDouble()) * 1e3;

            List<double[]> rows = rows(out);
            double width = pause.get("bucket_ms").asDouble() / 1e3;
            assertEquals(0.1, width, 1e-9);
            // by hand: the longest run of empty arrival buckets that ends after the pause's bucket, before the resume's
            double at = pause.get("applied_s").asDouble();
            double next = resume.get("applied_s").asDouble();
            int bestStart = -1;
            int bestEnd = -1;
            for (int k = 0; k < rows.size(); k++) {
                if (rows.get(k)[1] != 0 || k > 0 && rows.get(k - 1)[1] == 0) {
                    continue;
                }
                int e = k;
                while (e < rows.size() && rows.get(e)[1] == 0) {
                    e++;
                }
                boolean afterFault = rows.get(e - 1)[0] + width > at - 1e-9 && e > 0;
                boolean beforeNext = rows.get(k)[0] + width <= next + 1e-9; // before the resume's bucket
                if (afterFault && beforeNext && e < rows.size() && (bestStart < 0 || e - k > bestEnd - bestStart)) {
                    bestStart = k;
                    bestEnd = e;
                }
            }
            assertTrue(bestStart >= 0, "no empty bucket after the pause in " + rows);
            assertEquals(rows.get(bestStart)[0], pause.get("unavailable_from_s").asDouble(), 1e-3);
            assertEquals(rows.get(bestEnd)[0], pause.get("unavailable_to_s").asDouble(), 1e-3);
            double unavailableMs = (bestEnd - bestStart) * 100.0;
            assertEquals(unavailableMs, pause.get("unavailable_ms").asDouble(), 1e-6);
            assertEquals(unavailableMs + 200, pause.get("unavailable_ms_at_most").asDouble(), 1e-6);
            // the server was stopped for stoppedMs: the outage the buckets can see lies around it
            assertTrue(unavailableMs <= stoppedMs + 100 && unavailableMs + 200 >= stoppedMs - 100,
                    () -> unavailableMs + " ms of empty buckets for a pause of " + stoppedMs + " ms");
            // the pause's window: the buckets from its own to the resume's, by intended time
            long[] window = sums(rows, at, next, width);
            long sent = window[0];
            long got = window[1];
            long dup = window[2]; // fan-in tells every delivery apart: never NaN here
            long late = window[3];
            assertEquals(sent, pause.get("messages_sent_in_window").asLong(), pause::toString);
            assertEquals(got, pause.get("messages_received_in_window").asLong(), pause::toString);
            assertEquals(sent - got, pause.get("messages_missing_net").asLong(), pause::toString);
            // by sequence: lost = expected - distinct deliveries (a core NATS pause loses nothing here)
            assertEquals(sent - (got - dup), pause.get("messages_lost").asLong(), pause::toString);
            assertEquals(dup, pause.get("messages_duplicated").asLong(), pause::toString);
            assertEquals(late, pause.get("messages_reordered").asLong(), pause::toString);
            assertEquals(0, pause.get("messages_lost").asLong(), pause::toString);
            long inWindow = sent;
            assertTrue(inWindow >= 1_800 && inWindow <= 2_200, () -> inWindow + " sent in a 2 s window at 1000 msg/s");
            assertTrue(pause.get("guarantee_violations").isNull(), pause::toString); // core NATS confirms nothing
            assertTrue(resume.get("unavailable_ms").isNull(), resume::toString);
            // every measured message counted once by its intended time, as the summary counts them
            long sentAll = rows.stream().mapToLong(r -> (long) r[2]).sum();
            long gotAll = rows.stream().mapToLong(r -> (long) r[3]).sum();
            long arrivedAll = rows.stream().mapToLong(r -> (long) r[1]).sum();
            assertEquals(s.get("results").get("messages_sent").asLong(), sentAll);
            assertEquals(s.get("results").get("messages_received").asLong(), gotAll);
            assertEquals(gotAll, arrivedAll);
            assertTrue(console.contains("fault 2s:pause:node1"), console);
            assertTrue(Files.readString(out.resolve("timeseries.gp")).contains("'pause:node1'"));
        }
    }

    /**
     * A kill and a restart (issue 32 item 5 with item 3's reconnecting clients): the netty engine's publishers and
     * subscriber come back to the restarted server; the kill's outage is the run of empty buckets across the restart,
     * the restart ends it (no outage of its own, the kill's baseline), and each window's loss by sequence is sent less
     * the distinct deliveries in fault-buckets.dat.
     */
    @Test
    void aKilledAndRestartedServerCostsItsOutageAndTheClientsComeBack() throws Exception {
        Path dir = tmp.resolve("nats");
        Path restartedPid = tmp.resolve("nats-restarted.pid");
        try (PrivateBroker nats = PrivateBroker.nats(dir, false)) {
            Path pidFile = tmp.resolve("nats.pid");
            Files.writeString(pidFile, nats.pid() + "\n");
            Path out = tmp.resolve("run");
            MsgscopeProcess p = MsgscopeProcess.start(tmp, "scenario", "--driver", "nats", "--uri", nats.uri(),
                    "--opt", "reconnect=true", "--scenario", "fan-in", "--publishers", "2", "--rate", "500",
                    "--duration", "8", "--warmup", "1", "--broker-pid", "" + nats.pid(),
                    "--fault-target", "node1=" + pidFile, "--fault-target", "node1=restart:"
                            + ReconnectFaultIT.restartCommand(nats, dir, false, restartedPid),
                    "--faults", "2s:kill:node1, 3s:restart:node1", "--out", out.toString());
            try {
                int rc = p.waitFor(180);
                JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
                String console = TraceRunIT.safe(p::out);
                System.out.println("scenario kill run: rc " + rc + ", faults " + s.get("faults") + "\nresults: "
                        + s.get("results") + "\nstdout: " + console);
                assertEquals(0, rc, console); // core NATS promises nothing: its loss is reported, not failed
                JsonNode r = s.get("results");
                assertTrue(r.get("publisher_reconnects").asLong() >= 2, r::toString); // both publishers came back
                assertTrue(r.get("subscriber_reconnects").asLong() >= 1, r::toString);
                assertTrue(r.get("messages_republished").isNull(), r::toString); // core NATS counts none: unknown
                JsonNode kill = s.get("faults").get(0);
                JsonNode restart = s.get("faults").get(1);
                assertTrue(kill.get("error").isNull() && restart.get("error").isNull(), s.get("faults")::toString);
                assertTrue(Math.abs(kill.get("lag_ms").asDouble()) < 50, kill::toString);
                List<double[]> rows = rows(out);
                double width = kill.get("bucket_ms").asDouble() / 1e3;
                double at = kill.get("applied_s").asDouble();
                double next = restart.get("applied_s").asDouble();
                // the kill's outage: empty buckets from its bucket on, across the restart (the server was gone
                // next - at s and the clients dialled again after it)
                double unavailableMs = kill.get("unavailable_ms").asDouble();
                double downMs = (next - at) * 1e3;
                assertTrue(unavailableMs + 200 >= downMs - 100, () -> unavailableMs + " ms for " + downMs + " ms down");
                int from = (int) Math.round((kill.get("unavailable_from_s").asDouble() - rows.get(0)[0]) / width);
                int to = (int) Math.round((kill.get("unavailable_to_s").asDouble() - rows.get(0)[0]) / width);
                for (int k = from; k < to; k++) {
                    assertEquals(0, rows.get(k)[1], "bucket " + k + " lies in the outage");
                }
                assertTrue(rows.get(from - 1)[1] > 0 && rows.get(to)[1] > 0, "the outage's ends carry deliveries");
                assertEquals(unavailableMs, (to - from) * width * 1e3, 1e-6);
                // the restart ends it: no outage of its own, the second before the kill as its baseline
                assertTrue(restart.get("unavailable_ms").isNull(), restart::toString);
                assertEquals(kill.get("baseline_msg_s").asDouble(), restart.get("baseline_msg_s").asDouble(), 1e-9);
                // each window by hand: lost = sent - (received - duplicated)
                long[] killWindow = sums(rows, at, next, width);
                long[] restartWindow = sums(rows, next, Double.MAX_VALUE, width);
                for (Object[] w : new Object[][] {{kill, killWindow}, {restart, restartWindow}}) {
                    JsonNode f = (JsonNode) w[0];
                    long[] c = (long[]) w[1];
                    assertEquals(c[0], f.get("messages_sent_in_window").asLong(), f::toString);
                    assertEquals(c[1], f.get("messages_received_in_window").asLong(), f::toString);
                    assertEquals(c[0] - (c[1] - c[2]), f.get("messages_lost").asLong(), f::toString);
                    assertEquals(c[2], f.get("messages_duplicated").asLong(), f::toString);
                    assertEquals(c[3], f.get("messages_reordered").asLong(), f::toString);
                }
                assertTrue(killWindow[0] - killWindow[1] > 0, "core NATS loses what is sent to a dead server");
                // delivery resumed after the restart: most of what was due from then on arrived
                assertTrue(restartWindow[1] * 2 > restartWindow[0], () -> Arrays.toString(restartWindow));
                assertEquals(r.get("messages_sent").asLong(), rows.stream().mapToLong(x -> (long) x[2]).sum());
                assertEquals(r.get("messages_received").asLong(), rows.stream().mapToLong(x -> (long) x[3]).sum());
                assertTrue(console.contains("fault 2s:kill:node1") && console.contains("fault 3s:restart:node1"),
                        console);
            } finally {
                ReconnectFaultIT.stopRestarted(restartedPid, nats.pid());
            }
        }
    }

    /**
     * AMQP 0-9-1 in scenario mode with --opt reconnect=true (issue 32 item 3): a PRIVATE one-node RabbitMQ
     * ({@link PrivateRabbitNode}; the shared broker on 5672 is never touched) is killed 1 s into a fan-in on a quorum
     * queue with publisher confirms and manual acks and started again at 1.5 s (the restart returns once it booted,
     * 9-20 s here). The subscriber's msgscope-named queue survives the restart, both sides come back on their own
     * (one reconnect each), what the kill left unconfirmed is published again, and nothing is lost: each window's loss
     * by sequence is 0 and every message sent arrived (duplicates allowed: a redelivery whose ack died with the node).
     * Then {@code msgscope clean} finds, through the node's management API, a msgscope-named queue left behind (not
     * the run's own, which its subscriber deleted, nor another's queue) and removes it.
     */
    @Test
    void anAmqpNodeKilledAndRestartedInAScenarioLosesNothingAndBothSidesComeBack() throws Exception {
        try (PrivateRabbitNode rabbit = PrivateRabbitNode.start(tmp.resolve("rabbit"), "rabbitmq_management")) {
            Path out = tmp.resolve("run");
            MsgscopeProcess p = MsgscopeProcess.start(tmp, "scenario", "--driver", "amqp", "--uri",
                    rabbit.uri() + "/%2f", "--opt", "reconnect=true", "--opt", "confirm=100", "--opt", "queue_type=quorum",
                    "--opt", "prefetch=200", "--scenario", "fan-in", "--publishers", "1", "--rate", "200",
                    "--duration", "4", "--warmup", "1", "--allow-duplicates", "--drain-timeout", "30000",
                    "--broker-pid", "" + rabbit.pid(), "--fault-target", "node1=" + rabbit.pidFile(),
                    "--fault-target", "node1=restart:" + rabbit.restartCommand(),
                    "--faults", "1s:kill:node1, 1.5s:restart:node1", "--out", out.toString());
            int rc = p.waitFor(180);
            JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
            String console = TraceRunIT.safe(p::out);
            System.out.println("amqp scenario kill run: rc " + rc + ", faults " + s.get("faults") + "\nresults: "
                    + s.get("results") + "\nstdout: " + console);
            assertEquals(0, rc, console);
            JsonNode r = s.get("results");
            assertCameBackLosingNothing(s, 800);
            assertTrue(r.get("messages_republished").asLong() <= 100, r::toString); // at most the window
            assertTrue(r.get("messages_received").asLong() >= 800, r::toString);
            List<double[]> rows = rows(out);
            assertEquals(r.get("messages_sent").asLong(), rows.stream().mapToLong(x -> (long) x[2]).sum());
            assertTrue(console.contains("fault 1s:kill:node1") && console.contains("fault 1.5s:restart:node1"), console);

            int management = rabbit.port + 10_000;
            for (String q : List.of("msgscope-classic-left", "orders")) {
                RabbitClusterFaultIT.http("PUT", management, "/api/queues/%2F/" + q, "{\"durable\":false}");
            }
            String[] clean = {"clean", "--driver", "amqp", "--uri", rabbit.uri() + "/%2f", "--opt",
                    "management=http://127.0.0.1:" + management};
            MsgscopeProcess dry = MsgscopeProcess.start(tmp, java.util.stream.Stream.concat(Arrays.stream(clean),
                    java.util.stream.Stream.of("--dry-run")).toArray(String[]::new));
            assertEquals(0, dry.waitFor(60), () -> TraceRunIT.safe(dry::err));
            assertEquals("would delete queue msgscope-classic-left at amqp://127.0.0.1:" + rabbit.port + "/%2f",
                    dry.out().trim(), "the run's own queue was deleted by its subscriber");
            MsgscopeProcess real = MsgscopeProcess.start(tmp, clean);
            assertEquals(0, real.waitFor(60), () -> TraceRunIT.safe(real::err));
            String removed = real.out();
            assertTrue(removed.contains("deleted queue msgscope-classic-left"), removed);
            String left = RabbitClusterFaultIT.http("GET", management, "/api/queues/%2F?columns=name", null);
            assertTrue(left.contains("\"orders\"") && !left.contains("msgscope"), left);
        }
    }

    /**
     * Redis Streams in scenario mode with --opt reconnect=true (issue 32 item 3): a private redis-server
     * ({@link PrivateBroker#redis}, append-only file fsynced before each reply) is SIGKILLed 1 s into a fan-in at
     * 200 msg/s and started again on the same files at 1.5 s. Both sides come back (one reconnect each), the
     * publisher sends again what had no reply, the subscriber reads its pending entries again, and nothing is lost:
     * every one of the 800 measured messages arrives at least once, each window's loss is 0, and the arrivals are
     * the 800 plus exactly the duplicates the buckets count.
     */
    @Test
    void aRedisServerKilledAndRestartedInAScenarioLosesNothingAndBothSidesComeBack() throws Exception {
        Path dir = tmp.resolve("redis");
        Path pidFile = tmp.resolve("redis.pid");
        Path restartedPid = tmp.resolve("redis-restarted.pid");
        try (PrivateBroker redis = PrivateBroker.redis(dir)) {
            Files.writeString(pidFile, redis.pid() + "\n");
            try {
                Path out = tmp.resolve("run");
                MsgscopeProcess p = MsgscopeProcess.start(tmp, "scenario", "--driver", "redis", "--uri", redis.uri(),
                        "--opt", "reconnect=true", "--scenario", "fan-in", "--publishers", "1", "--rate", "200",
                        "--duration", "4", "--warmup", "1", "--allow-duplicates", "--drain-timeout", "10000",
                        "--broker-pid", "" + redis.pid(), "--fault-target", "node1=" + pidFile,
                        "--fault-target", "node1=restart:" + redis.redisRestartCommand(dir, restartedPid),
                        "--faults", "1s:kill:node1, 1.5s:restart:node1", "--out", out.toString());
                int rc = p.waitFor(120);
                JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
                String console = TraceRunIT.safe(p::out);
                System.out.println("redis scenario kill run: rc " + rc + ", faults " + s.get("faults") + "\nresults: "
                        + s.get("results") + "\nstdout: " + console);
                assertEquals(0, rc, console);
                JsonNode r = s.get("results");
                assertCameBackLosingNothing(s, 800);
                List<double[]> rows = rows(out);
                long[] all = sums(rows, Double.NEGATIVE_INFINITY, Double.MAX_VALUE, 0.1);
                assertEquals(800, all[0], "sent, by the buckets");
                assertEquals(800, all[1] - all[2], "every message arrived, once apart from the duplicates counted");
                assertEquals(r.get("messages_received").asLong(), all[1], r::toString);
                assertTrue(console.contains("fault 1s:kill:node1") && console.contains("fault 1.5s:restart:node1"),
                        console);
            } finally {
                ReconnectFaultIT.stopRestarted(restartedPid, redis.pid());
            }
        }
    }

    /**
     * A kill and a restart both applied, the kill with an outage, neither window losing a message; one reconnect per
     * side, no subscription ended, no publisher stopped, no error, {@code sent} measured messages sent.
     */
    private static void assertCameBackLosingNothing(JsonNode s, long sent) {
        JsonNode r = s.get("results");
        assertEquals(1, r.get("publisher_reconnects").asLong(), r::toString);
        assertEquals(1, r.get("subscriber_reconnects").asLong(), r::toString);
        assertEquals(0, r.get("subscriptions_lost").asLong(), r::toString); // no end reported for the loss
        assertEquals(0, r.get("publishers_stopped").asLong(), r::toString);
        assertEquals(0, r.get("errors").asLong(), r::toString);
        assertEquals(sent, r.get("messages_sent").asLong(), r::toString);
        JsonNode kill = s.get("faults").get(0);
        JsonNode restart = s.get("faults").get(1);
        assertTrue(kill.get("error").isNull() && restart.get("error").isNull(), s.get("faults")::toString);
        assertTrue(kill.get("unavailable_ms").asDouble() > 0, kill::toString);
        for (JsonNode f : List.of(kill, restart)) {
            assertEquals(0, f.get("messages_lost").asLong(), f::toString);
        }
    }

    /** fault-buckets.dat's rows: from_s arrived sent_due received_due duplicated_due late_due. */
    private static List<double[]> rows(Path out) throws java.io.IOException {
        return Files.readAllLines(out.resolve("fault-buckets.dat")).stream().filter(l -> !l.startsWith("#"))
                .map(l -> Arrays.stream(l.trim().split(" ")).mapToDouble(Double::parseDouble).toArray()).toList();
    }

    /**
     * {sent, received, duplicated, late} due in the buckets from the one {@code fromS} lies in up to the one
     * {@code toS} lies in (excluded); the buckets are epoch-aligned, so a row's from_s need not be a multiple of its width.
     */
    private static long[] sums(List<double[]> rows, double fromS, double toS, double width) {
        long[] c = new long[4];
        for (double[] r : rows) {
            if (r[0] + width > fromS + 1e-9 && (toS == Double.MAX_VALUE || r[0] + width <= toS + 1e-9)) {
                for (int k = 0; k < 4; k++) {
                    c[k] += (long) r[k + 2];
                }
            }
        }
        return c;
    }

    @Test
    void aKillWithoutReconnectIsRefusedAndSoIsAFaultWithoutABroker() throws Exception {
        Path pidFile = tmp.resolve("self.pid");
        Files.writeString(pidFile, ProcessHandle.current().pid() + "\n");
        Path out = tmp.resolve("refused");
        MsgscopeProcess kill = MsgscopeProcess.start(tmp, "scenario", "--driver", "nats", "--duration", "5",
                "--broker-pid", "" + ProcessHandle.current().pid(), "--fault-target", "node1=" + pidFile,
                "--faults", "1s:kill:node1", "--out", out.toString());
        String line = Usage.assertUsageError(kill, "--faults");
        assertTrue(line.contains("--opt reconnect=true"), line);
        MsgscopeProcess redis = MsgscopeProcess.start(tmp, "scenario", "--driver", "redis", "--duration", "5",
                "--broker-pid", "" + ProcessHandle.current().pid(), "--fault-target", "node1=" + pidFile,
                "--faults", "1s:kill:node1", "--out", out.toString());
        String redisLine = Usage.assertUsageError(redis, "--faults");
        assertTrue(redisLine.contains("--opt reconnect=true"), redisLine);
        MsgscopeProcess noBroker = MsgscopeProcess.start(tmp, "scenario", "--driver", "nats", "--duration", "5",
                "--fault-target", "node1=" + pidFile, "--faults", "1s:pause:node1, 2s:resume:node1",
                "--out", out.toString());
        assertTrue(Usage.assertUsageError(noBroker, "--faults").contains("--broker-pid"));
        MsgscopeProcess late = MsgscopeProcess.start(tmp, "scenario", "--driver", "nats", "--duration", "5",
                "--broker-pid", "" + ProcessHandle.current().pid(), "--fault-target", "node1=" + pidFile,
                "--faults", "6s:pause:node1", "--out", out.toString());
        assertTrue(Usage.assertUsageError(late, "--faults").contains("after the run's end"));
        // amqp reconnects in scenario mode, but a stream cannot be read across a reconnect: refused, naming the option
        MsgscopeProcess stream = MsgscopeProcess.start(tmp, "scenario", "--driver", "amqp", "--opt", "reconnect=true",
                "--opt", "queue_type=stream", "--duration", "5", "--out", out.toString());
        assertTrue(Usage.assertUsageError(stream, "--opt queue_type").contains("reconnect"));
        assertFalse(Files.exists(out), "a usage error writes no results folder");
    }
}
