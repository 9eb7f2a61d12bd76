package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Issue 29 item 1 beyond {@code run} ({@link InterruptIT}): Ctrl-C (SIGINT) to the real CLI during a throughput
 * search, a throughput measurement, a scenario's measurement, a sweep's second point, a batch's second run and a
 * capacity search's second step keeps
 * what was measured — status "interrupted", exit 130, the figures over the part that ran, the tables of the points
 * that finished — and leaves no agent (nor point) process behind; a second Ctrl-C aborts at once.
 */
class InterruptModesIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void throughputCutDuringTheSearchKeepsTheProbesThatFinished() throws Exception {
        Path out = tmp.resolve("search");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd1"), "throughput", "--samples", "20",
                "--warmup-time", "300", "--warmup-messages", "1000", "--out", out.toString());
        awaitThen(p, () -> text(p::out).contains("  probe 3/"));
        List<ProcessHandle> agents = interrupt(p);
        assertEquals(130, p.waitFor(120), () -> text(p::out) + text(p::err));

        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("interrupted", s.get("status").asText(), s.toString());
        assertEquals("search", s.get("failed_during").asText());
        int finished = s.at("/interrupted/probes_finished").asInt();
        assertTrue(finished >= 3, s.toString());
        assertEquals(finished, s.get("probes").size(), "every finished probe is in probes");
        for (JsonNode probe : s.get("probes")) {
            assertEquals(20, probe.get("samples").asInt(), "a probe cut short is discarded: " + probe);
        }
        assertFalse(s.has("search"), "no search result: it did not end");
        assertFalse(s.has("result"), "no final measurement ran");
        assertTrue(s.get("failure_reason").asText().startsWith("interrupted by SIGINT during the search after "
                + finished + " probes"), s.toString());
        assertTrue(p.out().contains("INTERRUPTED: interrupted by SIGINT"), p.out());
        assertGone(agents);
    }

    @Test
    void throughputCutDuringTheMeasurementKeepsTheSamplesItTook() throws Exception {
        Path out = tmp.resolve("fixed");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd2"), "throughput", "--in-flight", "50",
                "--samples", "3000", "--warmup-time", "300", "--warmup-messages", "1000", "--out", out.toString());
        awaitThen(p, () -> text(p::out).contains("measuring at F = 50"));
        Thread.sleep(5_000); // 3,000 samples of 10 ms: 30 s; cut about 4 s in
        List<ProcessHandle> agents = interrupt(p);
        assertEquals(130, p.waitFor(120), () -> text(p::out) + text(p::err));

        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("interrupted", s.get("status").asText(), s.toString());
        assertEquals("measurement", s.get("failed_during").asText());
        JsonNode r = s.get("result");
        int n = r.get("samples").asInt();
        assertTrue(n > 0 && n < 3000, "samples " + n);
        assertEquals(n, s.at("/interrupted/final_samples").asInt());
        assertEquals(3000, s.at("/interrupted/final_samples_asked").asInt());
        assertEquals(n, r.get("sample_values_msg_s").size(), "the figures are over the samples taken");
        assertTrue(r.get("delivered_msg_s").asDouble() > 0, r.toString());
        // samples.dat holds one row per sample taken
        long rows = Files.readAllLines(out.resolve("samples.dat")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).count();
        assertEquals(n, rows);
        assertTrue(s.get("failure_reason").asText().contains("at F = 50 after " + n + " of 3000 samples"),
                s.toString());
        assertGone(agents);
    }

    @Test
    void scenarioCutDuringTheMeasurementHasItsRatesOverTheSecondsMeasured() throws Exception {
        DriverRunIT.requireBroker(1883, "Mosquitto");
        Path out = tmp.resolve("scenario");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd3"), "scenario", "--driver", "mqtt", "--scenario",
                "fan-in", "--publishers", "2", "--subscribers", "1", "--rate", "100", "--duration", "30", "--warmup",
                "1", "--out", out.toString());
        awaitThen(p, () -> text(p::err).contains(" 3s/30s"));
        List<ProcessHandle> agents = interrupt(p);
        assertEquals(130, p.waitFor(120), () -> text(p::out) + text(p::err));

        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("interrupted", s.get("status").asText(), s.toString());
        assertEquals("measurement", s.get("failed_during").asText());
        double measured = s.at("/interrupted/measured_s").asDouble();
        assertTrue(measured >= 3 && measured < 30, s.toString());
        JsonNode r = s.get("results");
        long sent = r.get("messages_sent").asLong();
        assertTrue(sent > 0, r.toString());
        assertEquals(r.get("messages_received").asLong(), r.get("expected_messages").asLong(), "drained");
        // the rate is over the seconds measured, not the 30 scheduled: 2 publishers x 100 msg/s
        assertEquals(sent / measured, r.get("send_rate").asDouble(), 1e-6 * sent, r.toString());
        assertTrue(Math.abs(r.get("send_rate").asDouble() - 200) < 40, r.toString());
        assertTrue(s.get("failure_reason").asText().startsWith("interrupted by SIGINT during the measurement after "),
                s.toString());
        assertGone(agents);
    }

    /**
     * Ctrl-C during a scenario's in-flight wait (issue 31 item 1): a 100,000-message backlog drains one delivery per
     * acknowledgement (prefetch=1, about 10 s after the timeline here); the signal ends the wait at the next poll,
     * what arrived is kept and the rest is not waited for.
     */
    @Test
    void scenarioCutDuringItsInFlightWaitKeepsWhatArrived() throws Exception {
        DriverRunIT.requireBroker(5672, "RabbitMQ");
        Path out = tmp.resolve("scenario-drain");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd-drain"), "scenario", "--driver", "amqp", "--uri",
                "amqp://guest:guest@127.0.0.1:5672/%2f", "--opt", "prefetch=1", "--scenario", "straight-run",
                "--publishers", "1", "--size", "64", "--phases", "fill:100000msg@20k/paused, drain:1s@0", "--warmup",
                "1", "--out", out.toString());
        awaitThen(p, () -> text(p::err).contains(" draining "));
        List<ProcessHandle> agents = interrupt(p);
        assertEquals(130, p.waitFor(120), () -> text(p::out) + text(p::err));

        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("interrupted", s.get("status").asText(), s.toString());
        assertEquals("drain", s.get("failed_during").asText(), s.toString());
        assertEquals("drain", s.at("/interrupted/during").asText(), s.toString());
        JsonNode r = s.get("results");
        assertEquals(100_000, r.get("messages_sent").asLong(), r.toString());
        // not drained (the warm-up's leftovers may still have been on their way: then nothing measured arrived), and
        // the wait ended at the signal, a second or two in, not after the ~10 s the whole backlog takes here
        assertTrue(r.get("messages_received").asLong() < r.get("expected_messages").asLong(), r.toString());
        assertTrue(r.get("in_flight_wait_ms").asLong() < 5_000, r.toString());
        assertTrue(s.get("failure_reason").asText().startsWith("interrupted by SIGINT during the drain after "),
                s.toString());
        assertGone(agents);
    }

    @Test
    void sweepCutDuringItsSecondPointWritesTheTablesOfThePointsThatFinished() throws Exception {
        Path out = tmp.resolve("sweep");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd4"), "sweep", "--sizes", "64,128,256", "--count",
                "40000", "--rate", "10000", "--warmup", "1000", "--out", out.toString());
        awaitThen(p, () -> measuring(out, "point-128-1"));
        Thread.sleep(1_500);
        List<ProcessHandle> children = interrupt(p);
        assertEquals(130, p.waitFor(180), () -> text(p::out) + text(p::err));

        JsonNode sweep = JSON.readTree(out.resolve("sweep.json").toFile());
        assertEquals("interrupted", sweep.get("status").asText(), sweep.toString());
        assertEquals(2, sweep.at("/interrupted/finished").asInt());
        assertEquals(3, sweep.at("/interrupted/total").asInt());
        assertEquals("[\"point-256-1\"]", sweep.at("/interrupted/not_finished").toString());
        JsonNode points = sweep.get("points");
        assertEquals(2, points.size());
        assertEquals("ok", points.get(0).get("status").asText());
        assertEquals("interrupted", points.get(1).get("status").asText());
        JsonNode cut = SummarySchema.assertValid(out.resolve("point-128-1").resolve("summary.json"));
        long received = cut.at("/counters/messages_received").asLong();
        assertTrue(received > 0 && received < 40000, cut.toString());
        long rows = Files.readAllLines(out.resolve("sweep.dat")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).count();
        assertEquals(2, rows, "sweep.dat: the two points that finished");
        assertFalse(Files.exists(out.resolve("point-256-1")), "no point started after the signal");
        assertTrue(p.out().contains("INTERRUPTED: interrupted by SIGINT after 2 of 3 runs"), p.out());
        assertGone(children);
    }

    @Test
    void batchCutDuringItsSecondRunListsTheRunsThatFinished() throws Exception {
        Path workload = tmp.resolve("w.yaml");
        Files.writeString(workload, """
                runs:
                  - name: first
                    command: run
                    spec: {count: 20000, warmup: 1000, rate: 20000}
                  - name: second
                    command: run
                    spec: {count: 400000, warmup: 1000, rate: 20000}
                  - name: third
                    command: run
                    spec: {count: 20000, warmup: 1000, rate: 20000}
                """, StandardCharsets.UTF_8);
        Path out = tmp.resolve("batch");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd5"), "batch", workload.toString(), "--out",
                out.toString());
        awaitThen(p, () -> measuring(out, "second"));
        Thread.sleep(2_000);
        List<ProcessHandle> children = interrupt(p);
        assertEquals(130, p.waitFor(180), () -> text(p::out) + text(p::err));

        JsonNode batch = JSON.readTree(out.resolve("batch.json").toFile());
        assertEquals("interrupted", batch.get("status").asText(), batch.toString());
        assertEquals("[\"third\"]", batch.at("/interrupted/not_finished").toString());
        JsonNode runs = batch.get("runs");
        assertEquals(2, runs.size());
        assertEquals("ok", runs.get(0).get("status").asText());
        JsonNode second = runs.get(1);
        assertEquals("interrupted", second.get("status").asText());
        assertEquals(130, second.get("exit_code").asInt());
        JsonNode cut = SummarySchema.assertValid(out.resolve("second").resolve("summary.json"));
        assertEquals(cut.at("/throughput/receive_msg_s").asDouble(), second.get("msg_s").asDouble(), 1e-9);
        assertTrue(Files.readString(out.resolve("batch.md")).contains("| second | run | interrupted |"));
        assertNull(Files.exists(out.resolve("third")) ? "third ran" : null);
        assertGone(children);
    }

    @Test
    void capacityCutDuringItsSecondStepWritesTheSummaryOfTheStepsThatFinished() throws Exception {
        Path out = tmp.resolve("capacity");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd6"), "capacity", "--objective", "p99=3s", "--from",
                "500", "--to", "8000", "--hold", "5", "--repeats", "1", "--warmup", "100", "--out", out.toString());
        awaitThen(p, () -> measuring(out, "step-02-1000"));
        Thread.sleep(1_500);
        List<ProcessHandle> children = interrupt(p);
        assertEquals(130, p.waitFor(180), () -> text(p::out) + text(p::err));

        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("capacity", s.get("mode").asText());
        assertEquals("interrupted", s.get("status").asText(), s.toString());
        JsonNode cut = JSON.readTree(out.resolve("step-02-1000").resolve("summary.json").toFile());
        boolean kept = "interrupted".equals(cut.get("status").asText()); // the step kept what it measured
        JsonNode steps = s.get("steps");
        assertEquals(kept ? 2 : 1, steps.size(), s.toString());
        assertEquals("step-01-500", steps.get(0).get("folder").asText());
        assertTrue(steps.get(0).get("pass").asBoolean(), steps.get(0).toString());
        assertEquals(kept ? "[]" : "[\"step-02-1000\"]", s.at("/interrupted/not_finished").toString());
        assertEquals("SIGINT", s.at("/interrupted/signal").asText());
        assertEquals("coarse", s.at("/interrupted/during").asText());
        assertEquals(500.0, s.at("/interrupted/last_passing_msg_s").asDouble());
        assertFalse(s.at("/interrupted/converged").asBoolean());
        assertTrue(s.at("/capacity/found_msg_s").isNull(), "no rate claimed: the search had not converged");
        List<String> rows = Files.readAllLines(out.resolve("capacity.dat")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertEquals(kept ? 2 : 1, rows.size(), rows.toString());
        assertTrue(rows.get(0).startsWith("1 500 "), rows.toString());
        assertFalse(Files.exists(out.resolve("step-03-2000")), "no step started after the signal");
        assertTrue(p.out().contains("INTERRUPTED: interrupted by SIGINT after " + (kept ? 2 : 1) + " step(s)"),
                p.out());
        assertGone(children);
    }

    @Test
    void aSecondCtrlCAbortsAtOnceAndTakesThePointWithIt() throws Exception {
        Path out = tmp.resolve("abort");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd6"), "sweep", "--sizes", "64,128", "--count",
                "400000", "--rate", "20000", "--warmup", "1000", "--out", out.toString());
        awaitThen(p, () -> measuring(out, "point-64-1"));
        Thread.sleep(1_000);
        List<ProcessHandle> children = interrupt(p);
        Thread.sleep(200);
        new ProcessBuilder("kill", "-INT", Long.toString(p.process.pid())).start().waitFor(10, TimeUnit.SECONDS);
        assertEquals(130, p.waitFor(30), () -> text(p::out) + text(p::err));
        assertTrue(p.err().contains("SIGINT again: aborted"), p.err());
        assertFalse(Files.exists(out.resolve("sweep.json")), "aborted: no tables");
        assertGone(children);
    }

    /** Whether the point's (or run's) child has begun its measurement. */
    private static boolean measuring(Path out, String folder) {
        Path log = out.resolve(folder).resolve("run.log");
        try {
            return Files.isRegularFile(log) && Files.readString(log).contains("\nmeasuring: ");
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** Waits (3 min at most) until {@code ready}, failing when the process ended first. */
    private static void awaitThen(MsgscopeProcess p, BooleanSupplier ready) throws Exception {
        long deadline = System.currentTimeMillis() + 180_000;
        while (!ready.getAsBoolean() && p.process.isAlive() && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
        }
        assertTrue(p.process.isAlive() && ready.getAsBoolean(), () -> "not ready: " + text(p::out) + text(p::err));
    }

    /** SIGINT to the CLI process alone (as a test cannot press Ctrl-C); returns its descendants at that moment. */
    private static List<ProcessHandle> interrupt(MsgscopeProcess p) throws Exception {
        List<ProcessHandle> below = p.process.descendants().toList();
        new ProcessBuilder("kill", "-INT", Long.toString(p.process.pid())).start().waitFor(10, TimeUnit.SECONDS);
        return below;
    }

    private static void assertGone(List<ProcessHandle> below) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (below.stream().anyMatch(OrphanIT::running) && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
        }
        assertTrue(below.stream().noneMatch(OrphanIT::running), "every agent and point process is gone");
    }

    private static String text(TraceRunIT.IoSupplier s) {
        return TraceRunIT.safe(s);
    }
}
