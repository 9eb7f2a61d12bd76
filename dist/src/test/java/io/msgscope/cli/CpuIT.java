package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CPU per message on every box (issue 3, M3, M4, D4): a known CPU burner on the relay must show in
 * the broker series, in relay mode (stamps inside the messages) and in sidecar mode (a probe agent
 * sampling the relay process), while sender and receiver stay put; the sidecar's clock offset is
 * zero on one box; a broker that cannot be found is a clear usage error.
 */
class CpuIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** 10,000 msg/s × 30 µs of CPU burnt per message = 30 % of a core on top of forwarding. */
    private static final String[] LOAD = {"--count", "40000", "--rate", "10000", "--warmup", "4000",
            "--cpu-every", "500"};
    private static final String BURN_NS = "30000";

    @TempDir
    Path tmp;

    private JsonNode run(String name, String... extra) throws Exception {
        return run(LOAD, name, extra);
    }

    private JsonNode run(String[] load, String name, String... extra) throws Exception {
        Path out = tmp.resolve(name);
        String[] args = new String[load.length + extra.length + 3];
        args[0] = "run";
        System.arraycopy(load, 0, args, 1, load.length);
        System.arraycopy(extra, 0, args, 1 + load.length, extra.length);
        args[args.length - 2] = "--out";
        args[args.length - 1] = out.toString();
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve(name + "-cli"), args);
        int rc = p.waitFor(180);
        assertEquals(0, rc, () -> name + ": " + TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        return SummarySchema.assertValid(out.resolve("summary.json"));
    }

    private static double perMessage(JsonNode side) {
        return side.get("time_weighted").get("cpu_ns_per_message").asDouble();
    }

    private static double median(JsonNode side) {
        return side.get("stats").get("median").asDouble();
    }

    @Test
    void relayModeBrokerCpuRisesWithAKnownBurnerAndTheOthersStayPut() throws Exception {
        JsonNode idle = run("idle");
        JsonNode burn = run("burn", "--relay-burn-ns", BURN_NS);
        JsonNode idleAfter = run("idle-after"); // the burner run bracketed: the box's load drifts between runs
        for (JsonNode s : List.of(idle, burn)) {
            JsonNode cpu = s.get("cpu");
            assertEquals(500, cpu.get("every").asInt());
            assertEquals("relay", cpu.get("broker").get("mode").asText());
            assertTrue(cpu.get("broker").get("source").asText().contains("probe slot"));
            assertEquals(80, cpu.get("broker").get("defined_windows").asInt(), "every window has broker CPU");
            for (String side : List.of("sender", "receiver", "broker")) {
                double m = median(cpu.get(side));
                assertTrue(m >= 0 && m <= 105, side + " median " + m + " % is not a share of one core");
            }
            assertTrue(cpu.get("sender").get("process").get("stats").get("n").asLong() > 0);
            assertTrue(cpu.get("sampling_overhead").get("sender").get("samples").asLong() >= 80);
            assertEquals("lo", s.get("network").get("interface").asText());
            double rx = s.get("network").get("rx_bytes_s").get("median").asDouble();
            assertTrue(rx > 10_000 * 64, "loopback carries at least the payload bytes: " + rx);
        }
        // the burner burns 30 µs of the forwarding thread's CPU time (not wall time) per message, exactly: the
        // relay's time-weighted CPU per message is at least that, and at most that on top of the idle run's
        // forwarding (+10 µs of noise: with a broker busy on the other core the forwarding's own part rose by 5.6 µs
        // both times, 21.3 -> 56.9 and 23.4 -> 59.0 µs, where +5 µs failed twice in a row). It can be less on top: a
        // thread kept busy reads several messages per wake-up (measured: 20.8 µs per message idle, 37.2 µs with the
        // burner). Issue 27: a stamp figure halved fails here (below 30 µs), one doubled too (over 30 + idle + 10), and
        // one too high fails the sidecar test, which holds it against /proc's count of the same process. The idle
        // forwarding is the higher of the runs just before and just after the burner's, so a load that came or went
        // between two runs (the shared broker's, another build's) is within the bound, not a failure.
        double idleBefore = perMessage(idle.get("cpu").get("broker"));
        double idleAfterNs = perMessage(idleAfter.get("cpu").get("broker"));
        double before = Math.max(idleBefore, idleAfterNs);
        double after = perMessage(burn.get("cpu").get("broker"));
        assertTrue(after >= 30_000 && after <= 30_000 + before + 10_000, "relay CPU per message " + idleBefore
                + " ns (idle) -> " + after + " ns with a 30 µs burner -> " + idleAfterNs + " ns (idle again)");
        for (String side : List.of("sender", "receiver")) {
            double a = idle.get("cpu").get(side).get("time_weighted").get("mean_pct").asDouble();
            double b = burn.get("cpu").get(side).get("time_weighted").get("mean_pct").asDouble();
            // the burner's 30 % must not be attributed to the sender or receiver: over the run they may not rise by
            // half of it (misattribution moves a side by the whole 30). Time-weighted (issue 27): the per-window
            // median is the typical 50 ms window, which on this loaded box once read 18.5 % idle and 99.7 % with the
            // burner for the receiver (a fall is no misattribution either: 39 % against 7 % was seen once). A third
            // of it was too tight on two shared cores: a CI run saw the sender move 32.6 % -> 42.7 % (most of the
            // sender's CPU at a fixed rate is its wait for send times, which contention lengthens).
            assertTrue(b - a < 15, side + " time-weighted CPU moved from " + a + " % to " + b + " %");
        }
        checkCpuColumns(tmp.resolve("burn").resolve("trace.dat"));
        assertTrue(Files.size(tmp.resolve("burn").resolve("cpu.gp")) > 0);
    }

    @Test
    void sidecarModeSamplesTheBrokerProcessWithAZeroOffsetOnOneBox() throws Exception {
        JsonNode s = run("sidecar", "--broker-cpu", "sidecar", "--relay-burn-ns", BURN_NS);
        JsonNode b = s.get("cpu").get("broker");
        assertEquals("sidecar", b.get("mode").asText());
        assertTrue(b.get("source").asText().contains("/proc/"), b.get("source").asText());
        assertTrue(b.get("probe_samples").asLong() > 100, "10 ms samples over a 4 s run");
        JsonNode off = b.get("clock_offset");
        assertTrue(off.get("same_box").asBoolean());
        assertEquals(0, off.get("offset_ns").asLong());
        assertEquals(0, off.get("error_bound_ns").asLong());
        // issue 27: over the measurement the relay process (sidecar) holds the forwarding thread (stamps), which
        // burns 30 % of a core (10,000 msg/s × 30 µs of CPU time) on top of forwarding; the process's other
        // threads add a few points at most
        double sidecar = b.get("time_weighted").get("mean_pct").asDouble();
        double stamps = b.get("relay_thread_stamps").get("time_weighted").get("mean_pct").asDouble();
        assertTrue(stamps >= 29, "forwarding thread with a 30 % burner: " + stamps + " %");
        assertTrue(sidecar - stamps > -2 && sidecar - stamps < 8, "relay process " + sidecar
                + " % vs its forwarding thread " + stamps + " %");
    }

    @Test
    void pingPongOffsetOnOneBoxIsWithinItsErrorBound() throws Exception {
        JsonNode s = run("pingpong", "--broker-cpu", "sidecar", "--force-clock-ping-pong");
        JsonNode off = s.get("cpu").get("broker").get("clock_offset");
        assertTrue(!off.get("same_box").asBoolean());
        long offset = off.get("offset_ns").asLong();
        long bound = off.get("error_bound_ns").asLong();
        assertTrue(bound > 0 && bound < 5_000_000, "error bound " + bound + " ns");
        // one box, one CLOCK_MONOTONIC: the true offset is 0, so the estimate lies within its bound
        assertTrue(Math.abs(offset) <= bound, "offset " + offset + " ns beyond its bound " + bound + " ns");
    }

    @Test
    void sidecarSamplesRabbitMqLoadedByTheRun() throws Exception {
        PushReceiverCpuIT.requireRabbitMq();
        // RabbitMQ loaded by the run itself through the AMQP driver, its CPU sampled by the sidecar
        // 5,000 msg/s: a rate RabbitMQ and the AMQP client keep up with on a loaded 2-core box
        String[] load = {"--count", "20000", "--rate", "5000", "--warmup", "2000", "--cpu-every", "200"};
        JsonNode s = run(load, "rabbit", "--driver", "amqp", "--uri", "amqp://guest:guest@127.0.0.1:5672/%2f",
                "--broker-cpu", "sidecar", "--broker-process", "beam.smp");
        JsonNode b = s.get("cpu").get("broker");
        assertTrue(b.get("source").asText().contains("beam.smp"), b.get("source").asText());
        assertTrue(b.get("clock_offset").get("same_box").asBoolean());
        assertEquals(0, b.get("clock_offset").get("offset_ns").asLong());
        double mean = b.get("stats").get("mean").asDouble();
        int cores = Runtime.getRuntime().availableProcessors();
        // 5,000 msg/s through RabbitMQ costs it a visible share of a core, never more than all cores
        assertTrue(mean > 1 && mean <= 100.0 * cores, "RabbitMQ CPU " + mean + " %");
    }

    @Test
    void aBrokerThatCannotBeFoundIsAUsageErrorNamingWhatWasSearched() throws Exception {
        Path out = tmp.resolve("missing");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("missing-cli"), "run", "--count", "1000",
                "--broker-cpu", "sidecar", "--broker-process", "no-such-broker-xyz", "--out", out.toString());
        int rc = p.waitFor(120);
        assertEquals(2, rc, () -> TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        String all = p.out() + p.err();
        assertTrue(all.contains("--broker-process") && all.contains("no-such-broker-xyz")
                && all.contains("searched"), all);
    }

    private static void checkCpuColumns(Path traceDat) throws Exception {
        try (BufferedReader r = Files.newBufferedReader(traceDat, StandardCharsets.US_ASCII)) {
            String header = r.readLine();
            for (String c : List.of("cpu_sender_pct", "cpu_broker_pct", "cpu_receiver_pct", "net_rx_bytes_s")) {
                assertTrue(header.contains(c), header);
            }
            int columns = header.substring(1).trim().split("\\s+").length;
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.startsWith("#")) {
                    assertEquals(columns, line.trim().split("\\s+").length, line);
                    break;
                }
            }
        }
    }
}
