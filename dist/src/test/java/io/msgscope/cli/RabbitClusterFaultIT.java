package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fault on a clustered RabbitMQ (issue 32 item 2): {@code deploy/rabbitmq-cluster.sh} starts 3 private nodes
 * (own ports, data, cookie and epmd; the shared broker on 5672 is never touched), a quorum queue is declared through
 * node 3 so that node 3 holds its Raft leader, and a confirmed trace run through node 1 has node 3 paused for 3 s by
 * the broker-probe agent (SIGSTOP/SIGCONT via node 3's pid file). Every message is accounted for (nothing lost with
 * confirms) and faults[] reports the unavailability window, which spans the pause (no election was seen during a
 * SIGSTOP); then a stream run through node 1 with node 3 (a follower of the stream) paused: deliveries go on. The
 * nodes are stopped by their PIDs. One IT: the cluster takes ~30 s to start.
 */
class RabbitClusterFaultIT {
    private static final String QUEUE = "msgscope-fault-quorum";

    @TempDir
    Path tmp;

    @Test
    void pausingTheQuorumLeaderNodeLosesNothingConfirmedAndShowsTheWindow() throws Exception {
        PrivateBroker.requireBinary("rabbitmq-server");
        Path dir = tmp.resolve("cluster");
        int base = freeBase();
        try {
            long t0 = System.nanoTime();
            String started = script(600, "start", dir.toString(), "" + base);
            System.out.println(started + "\n(cluster start seen by the test: "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms)");
            long node1 = pid(dir, 1);
            long node3 = pid(dir, 3);
            // declared through node 3's management API: a quorum queue's leader is placed on the declaring node
            // (client-local); the run's subscriber redeclares it with the same arguments through node 1
            int mgmt3 = base + 10_002;
            http("PUT", mgmt3, "/api/queues/%2F/" + QUEUE,
                    "{\"durable\":true,\"auto_delete\":false,"
                    + "\"arguments\":{\"x-queue-type\":\"quorum\",\"x-expires\":300000}}");
            JsonNode q = new ObjectMapper().readTree(http("GET", mgmt3, "/api/queues/%2F/" + QUEUE, null));
            assertEquals("msc3@localhost", q.get("leader").asText(), q::toString);
            assertEquals(3, q.get("members").size(), q::toString);

            JsonNode quorum = faultRun(dir, base, node1, "quorum", true, 9_000,
                    List.of("--opt", "topic=msgscope.fault", "--opt", "group=" + QUEUE));
            // the stream is declared by the subscriber through node 1, so node 1 leads it and node 3 follows
            JsonNode stream = faultRun(dir, base, node1, "stream", false, 9_000, List.of());
            for (JsonNode s : List.of(quorum, stream)) {
                assertEquals(node3, s.get("faults").get(0).get("pid").asLong(), s::toString);
            }
            assertTrue(ProcessHandle.of(node3).map(ProcessHandle::isAlive).orElse(false),
                    "node 3 runs on after its resume");
        } finally {
            if (Files.exists(dir.resolve("cluster.env"))) {
                script(180, "stop", dir.toString());
            }
        }
        for (int n = 1; n <= 3; n++) {
            assertTrue(Files.notExists(dir.resolve("node" + n + "/rabbitmq.pid")), "stopped by PID, pid file removed");
        }
    }

    /**
     * A confirmed trace run through node 1, node 3 (the queue's leader, or a follower) paused from 3 s to 6 s;
     * returns the checked summary.
     */
    private JsonNode faultRun(Path dir, int base, long node1, String type, boolean leaderPaused, int count,
            List<String> extra)
            throws Exception {
        Path out = tmp.resolve(type);
        List<String> args = new ArrayList<>(List.of("run", "--driver", "amqp", "--uri",
                "amqp://guest:guest@127.0.0.1:" + base + "/%2f", "--opt", "queue_type=" + type, "--opt", "confirm=500",
                "--opt", "prefetch=1000", "--rate", "1000", "--count", "" + count, "--warmup", "1000",
                "--broker-pid", "" + node1, "--fault-target", "node3=" + dir.resolve("node3/rabbitmq.pid"),
                "--faults", "3s:pause:node3, 6s:resume:node3", "--out", out.toString()));
        args.addAll(extra);
        MsgscopeProcess p = MsgscopeProcess.start(tmp, args.toArray(String[]::new));
        int rc = p.waitFor(300);
        assertEquals(0, rc, () -> "stdout: " + TraceRunIT.safe(p::out) + " stderr: " + TraceRunIT.safe(p::err));
        System.out.println(type + ": " + p.out());
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText(), s::toString);
        JsonNode c = s.get("counters");
        assertEquals(count, c.get("messages_received").asLong(), c::toString);
        assertEquals(0, c.get("messages_lost").asLong(), c::toString);
        assertEquals(count, c.get("messages_acked").asLong(), "every publish confirmed: " + c);
        assertEquals(0, c.get("messages_nacked").asLong(), c::toString);
        JsonNode faults = s.get("faults");
        assertEquals(2, faults.size(), s::toString);
        JsonNode pause = faults.get(0);
        JsonNode resume = faults.get(1);
        assertEquals("pause", pause.get("action").asText());
        assertEquals("resume", resume.get("action").asText());
        for (JsonNode f : faults) {
            assertTrue(f.get("error").isNull(), f::toString);
            assertEquals(0, f.get("messages_lost").asLong(), f::toString);
        }
        double gap = (resume.get("applied_s").asDouble() - pause.get("applied_s").asDouble()) * 1e3;
        double unavailable = pause.get("unavailable_ms").asDouble();
        System.out.println(type + ": paused " + gap + " ms, unavailable " + unavailable + " ms, lags "
                + pause.get("lag_ms") + " / " + resume.get("lag_ms") + " ms");
        if (leaderPaused) {
            // the window opens at the pause and closes at the resume at the latest, give or take the first delivery
            // after it (an election before the resume would close it early; with SIGSTOP none was seen here:
            // docs/limits.md)
            assertTrue(unavailable > 0 && unavailable < gap + 2_000, gap + " ms paused, " + unavailable + ": " + pause);
            assertTrue(pause.get("unavailable_from_s").asDouble() <= pause.get("applied_s").asDouble() + 0.5,
                    pause::toString);
        } else {
            // a follower's pause: the other two replicas are a majority, deliveries go on (a gap, not the pause)
            assertTrue(unavailable < gap, gap + " ms paused, " + unavailable + " ms unavailable: " + pause);
        }
        assertTrue(Files.readString(out.resolve("agent-probe.log")).contains("fault 3s:pause:node3: applied"));
        return s;
    }

    private static long pid(Path dir, int node) throws IOException {
        return Long.parseLong(Files.readString(dir.resolve("node" + node + "/rabbitmq.pid")).trim());
    }

    /** A BASEPORT whose 13 ports (AMQP, stream, management, distribution per node, and epmd) are all free. */
    private static int freeBase() {
        return DeployScripts.freeBase(5681, "the cluster", 0, 1, 2, 3, 100, 101, 102, 10_000, 10_001, 10_002, 20_000,
                20_001, 20_002);
    }

    private static String script(int timeoutS, String... args) throws Exception {
        return DeployScripts.run("rabbitmq-cluster.sh", timeoutS, args);
    }

    static String http(String method, int port, String path, String body) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("guest:guest".getBytes(
                        StandardCharsets.US_ASCII)))
                .timeout(java.time.Duration.ofSeconds(60));
        r = body == null ? r.GET() : r.header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body));
        // HTTP/1.1: the management plugin's server answers an h2c upgrade by closing the connection
        HttpResponse<String> resp = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(r.build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(resp.statusCode() / 100 == 2, method + " " + path + ": " + resp.statusCode() + " " + resp.body());
        return resp.body();
    }
}
