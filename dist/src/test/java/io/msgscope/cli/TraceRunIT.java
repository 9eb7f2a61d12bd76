package io.msgscope.cli;

import io.msgscope.core.test.Ci;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * End to end through the real CLI and three agent JVMs (issue 2): every message accounted for,
 * trace.dat's rows and columns, summary.json's fields, the gnuplot scripts render; a crashed agent
 * fails the run visibly with what was recorded still written.
 */
class TraceRunIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] Q4 = {"latency_min_us", "latency_max_us", "latency_mean_us", "latency_p50_us",
            "latency_p95_us", "latency_p99_us", "latency_p999_us"};

    @TempDir
    Path tmp;

    @Test
    void fullSpeedRunOf200kMessagesIsAccountedForAndPlotted() throws Exception {
        boolean gnuplot = gnuplotOnPath();
        if (!gnuplot && Ci.on()) {
            fail("gnuplot-nox must be installed under CI (.ci/run installs it)");
        }
        Path out = tmp.resolve("run");
        List<String> args = new java.util.ArrayList<>(List.of("run", "--count", "200000", "--warmup", "20000",
                "--out", out.toString()));
        if (gnuplot) {
            args.add("--plot"); // plots are off unless asked: there is no --no-plot
        }
        MsgscopeProcess p = MsgscopeProcess.start(tmp, args.toArray(String[]::new));
        int rc = p.waitFor(300);
        assertEquals(0, rc, () -> "exit code; stdout: " + safe(p::out) + " stderr: " + safe(p::err));
        String stdout = p.out();
        assertTrue(stdout.contains("200,000 messages of 64 B"), stdout);
        assertTrue(stdout.contains("0 lost"), stdout);

        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText());
        assertTrue(s.get("failure_reason").isNull());
        JsonNode c = s.get("counters");
        assertEquals(200_000, sentCount(c), "messages_sent against the --count asked");
        assertEquals(200_000, c.get("messages_received").asLong());
        assertEquals(0, c.get("messages_lost").asLong());
        assertEquals(0, c.get("duplicates").asLong());
        assertEquals(0, c.get("out_of_range").asLong());
        assertEquals(20_000, c.get("warmup_received").asLong());
        assertEquals(20_000, c.get("warmup_sent").asLong());
        assertEquals(0, c.get("warmup_lost").asLong());
        assertEquals(220_000, c.get("relay_forwarded").asLong());
        assertEquals(200_000L * 64, c.get("bytes_received").asLong());
        for (String f : Q4) {
            assertTrue(s.get("latency").get(f).isNumber(), f);
        }
        JsonNode lat = s.get("series").get("latency_ns");
        assertEquals(200_000, lat.get("n").asLong());
        assertTrue(lat.get("min").asDouble() > 0);
        assertTrue(lat.get("median").asDouble() <= lat.get("p99").asDouble());
        // ST over windows of >= 100 messages and >= 10 ms (issue 17): undefined for the first 10 ms
        long st = s.get("series").get("st_msg_s").get("n").asLong();
        assertTrue(st > 100_000 && st <= 200_000 - 100, "ST values " + st);
        assertEquals(">= 100 messages and >= 10 ms", s.get("throughput").get("st_rt_windows").asText());
        assertTrue(s.get("identity_check").get("holds").asBoolean());
        assertTrue(s.get("identity_check").get("trace_dat").get("holds").asBoolean());
        assertEquals(200_000, s.get("identity_check").get("trace_dat").get("rows").asLong());
        assertEquals(200_000 - 100, s.get("identity_check").get("checked").asLong());
        JsonNode agents = s.get("environment").get("agents");
        for (String role : List.of("sender", "receiver", "relay")) {
            assertNotNull(agents.get(role), role);
            assertTrue(agents.get(role).get("pid").asLong() > 0);
            assertFalse(agents.get(role).get("affinity").get("obtained").asText().isEmpty());
        }
        if (Runtime.getRuntime().availableProcessors() >= 2) {
            assertEquals("0", agents.get("sender").get("affinity").get("obtained").asText());
            assertEquals("1", agents.get("receiver").get("affinity").get("obtained").asText());
        }
        assertEquals(64, s.get("spec").get("size").asInt());
        assertEquals(64, s.get("spec_hash").asText().length());

        checkTraceDat(out.resolve("trace.dat"), 200_000);
        for (String f : List.of("latency-histogram.dat", "latency.hlog", "latency.hgrm", "latency.gp",
                "latency-histogram.gp", "throughput.gp", "latency-distribution.dat", "st-histogram.dat",
                "rt-histogram.dat", "cpu_sender_pct-histogram.dat", "cpu_receiver_pct-histogram.dat",
                "cpu_broker_pct-histogram.gp", "peaks.dat")) {
            assertTrue(Files.size(out.resolve(f)) > 0, f);
        }
        // issue 18: latency.hlog holds one interval per second of send time, adding up to every measured message
        assertFalse(Hlog.intervals(out.resolve("latency.hlog")).isEmpty());
        assertEquals(200_000, Hlog.total(out.resolve("latency.hlog")));
        if (gnuplot) {
            for (String png : List.of("latency.png", "latency-histogram.png", "throughput.png", "cpu.png",
                    "network.png")) {
                byte[] head = new byte[8];
                try (var in = Files.newInputStream(out.resolve(png))) {
                    assertEquals(8, in.read(head), png);
                }
                assertEquals((byte) 0x89, head[0], png);
                assertEquals('P', head[1], png);
            }
        }
    }

    @Test
    void rateModeReportsCorrectedAndUncorrectedLatency() throws Exception {
        Path out = tmp.resolve("rate");
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--count", "20000", "--rate", "10000",
                "--warmup", "2000", "--padding", "random", "--out", out.toString());
        int rc = p.waitFor(180);
        assertEquals(0, rc, () -> "stdout: " + safe(p::out) + " stderr: " + safe(p::err));
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText());
        assertEquals(20_000, s.get("series").get("latency_corrected_ns").get("n").asLong());
        double sendRate = s.get("throughput").get("send_msg_s").asDouble();
        assertTrue(sendRate > 9_500 && sendRate < 10_500, "send rate " + sendRate);
        try (BufferedReader r = Files.newBufferedReader(out.resolve("trace.dat"), StandardCharsets.US_ASCII)) {
            String header = r.readLine();
            assertTrue(header.contains("intended_ns") && header.contains("latency_corrected_ns"), header);
            ResultsDoc.assertDocumentedColumns("trace.dat", List.of(header.substring(1).trim().split("\\s+")));
        }
        assertTrue(p.out().contains("from the intended send time"), p.out());
    }

    @Test
    void aCrashedAgentFailsTheRunAndWhatWasRecordedIsWritten() throws Exception {
        Path out = tmp.resolve("crash");
        // 60 s planned at 5,000 msg/s: the receiver is killed once the measurement is under way
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--count", "300000", "--rate", "5000",
                "--warmup", "1000", "--out", out.toString());
        ProcessHandle receiver = awaitChild(p.process, "receiver", 60_000);
        awaitLine(p.stderr, "measuring:", 60_000);
        Thread.sleep(1_000); // let some measured messages through: the point is a mid-run crash
        receiver.destroyForcibly();
        long killedAt = System.nanoTime();
        p.waitFor(120);
        double seconds = (System.nanoTime() - killedAt) / 1e9;
        JsonNode s = p.awaitFailedSummary(out, 0); // it has ended
        assertTrue(seconds < 30, "coordinator noticed the crash after " + seconds + " s");
        String reason = s.get("failure_reason").asText();
        assertTrue(reason.contains("receiver"), reason);
        assertTrue(p.out().contains("FAILED"), p.out());
        // the sender's record survived: O_n of the messages sent before the crash, one trace.dat row each
        long sent = sentCount(s.get("counters"));
        assertTrue(sent > 0 && sent <= 300_000, "messages_sent " + sent + " of the 300,000 asked");
        assertEquals(sent, rowsWithASendTime(out.resolve("trace.dat")), "messages_sent against trace.dat");
    }

    /** counters.messages_sent, which must be there as a whole number (a JSON null or a missing field would read 0). */
    static long sentCount(JsonNode counters) {
        JsonNode sent = counters.get("messages_sent");
        assertTrue(sent != null && sent.isIntegralNumber(), "counters.messages_sent is not a whole number: " + counters);
        return sent.asLong();
    }

    /** The rows of trace.dat whose send_ns is a number: the messages the sender recorded as sent. */
    static long rowsWithASendTime(Path file) throws IOException {
        try (java.util.stream.Stream<String> lines = Files.lines(file, StandardCharsets.US_ASCII)) {
            return lines.filter(l -> !l.startsWith("#")).map(l -> l.trim().split("\\s+")[1])
                    .filter(v -> !v.equals("NaN")).count();
        }
    }

    private static void checkTraceDat(Path file, int count) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            String header = r.readLine();
            assertTrue(header.startsWith("#"), header);
            String[] cols = header.substring(1).trim().split("\\s+");
            assertEquals(List.of("seq", "send_ns", "recv_ns", "latency_ns", "st_msg_s", "rt_msg_s", "cpu_sender_pct",
                    "cpu_broker_pct", "cpu_receiver_pct", "net_rx_bytes_s", "net_rx_packets_s", "st_window", "rt_window"),
                    List.of(cols));
            ResultsDoc.assertDocumentedColumns("trace.dat", List.of(cols)); // issue 29: results.md lists them all
            String line;
            long rows = 0;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("#")) {
                    continue; // further comment lines (window, units)
                }
                String[] f = line.trim().split("\\s+");
                assertEquals(cols.length, f.length, line);
                assertEquals(rows, Long.parseLong(f[0]));
                long send = Long.parseLong(f[1]);
                long recv = Long.parseLong(f[2]);
                assertEquals(recv - send, Long.parseLong(f[3]), line);
                int stWindow = Integer.parseInt(f[f.length - 2]); // messages ST spans: >= 100 and >= 10 ms, 0 = undefined
                if (rows < 100 || stWindow == 0) {
                    assertEquals("NaN", f[4], line);
                } else {
                    assertTrue(stWindow >= 100 && Double.parseDouble(f[4]) > 0, line);
                }
                rows++;
            }
            assertEquals(count, rows);
        }
    }

    static ProcessHandle awaitChild(Process p, String role, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            Optional<ProcessHandle> h = p.children().filter(c -> c.info().arguments()
                    .map(a -> String.join(" ", a).contains("--role " + role)).orElse(false)).findFirst();
            if (h.isPresent()) {
                return h.get();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no " + role + " agent process appeared");
    }

    static void awaitLine(Path file, String text, long timeoutMs) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            if (Files.readString(file).contains(text)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("'" + text + "' never appeared in " + file);
    }

    static boolean gnuplotOnPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String d : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, "gnuplot"))) {
                return true;
            }
        }
        return false;
    }

    interface IoSupplier {
        String get() throws IOException;
    }

    static String safe(IoSupplier s) {
        try {
            return s.get();
        } catch (IOException e) {
            return "(" + e.getMessage() + ")";
        }
    }
}
