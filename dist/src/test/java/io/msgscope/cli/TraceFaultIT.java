package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Issue 16: a trace run whose relay, sender, receiver or broker is killed during the measurement keeps what every
 * surviving agent recorded. The run ends (no hang) with exit 1, summary.json says failed and why, and its counts
 * agree with trace.dat: messages the sender recorded, messages the receiver recorded, lost over what both
 * recorded, and a count no surviving agent could give is null, not 0.
 */
class TraceFaultIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** What trace.dat holds: rows with a send time, with a receive time, and with a send time only. */
    record Rows(long sent, long received, long sentOnly) {
        static Rows of(Path traceDat) throws Exception {
            long s = 0;
            long r = 0;
            long only = 0;
            try (BufferedReader in = Files.newBufferedReader(traceDat, StandardCharsets.UTF_8)) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.startsWith("#")) {
                        continue;
                    }
                    String[] f = line.split(" ", 4);
                    boolean hasSend = !f[1].equals("NaN");
                    boolean hasRecv = !f[2].equals("NaN");
                    s += hasSend ? 1 : 0;
                    r += hasRecv ? 1 : 0;
                    only += hasSend && !hasRecv ? 1 : 0;
                }
            }
            return new Rows(s, r, only);
        }
    }

    @ParameterizedTest(name = "{0} killed during the measurement")
    @ValueSource(strings = {"relay", "sender", "receiver", "broker"})
    void everySurvivorsTraceIsWrittenAndTheSummaryAgreesWithIt(String victim) throws Exception {
        PrivateBroker broker = victim.equals("broker") ? PrivateBroker.start(tmp.resolve("mosquitto")) : null;
        try {
            Path out = tmp.resolve("run-" + victim);
            List<String> args = new ArrayList<>(List.of("run", "--count", "300000", "--rate", "20000",
                    "--warmup", "1000", "--out", out.toString()));
            if (broker != null) {
                args.addAll(List.of("--driver", "mqtt", "--uri", broker.uri(), "--opt", "qos=1"));
            }
            MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd-" + victim), args.toArray(String[]::new));
            ProcessHandle agent = broker != null ? null : TraceRunIT.awaitChild(p.process, victim, 60_000);
            TraceRunIT.awaitLine(p.stderr, "measuring:", 90_000);
            Thread.sleep(3_000); // some 60,000 messages into the 15 s measurement
            if (broker != null) {
                broker.kill();
            } else {
                agent.destroyForcibly();
            }
            JsonNode s = p.awaitFailedSummary(out, 180);
            assertEquals("measurement", s.get("failed_during").asText(), s::toString);
            JsonNode c = s.get("counters");
            Rows rows = Rows.of(out.resolve("trace.dat"));
            String why = "counters " + c + " vs trace.dat " + rows + "; warnings " + s.get("warnings");
            if (victim.equals("sender")) {
                assertTrue(c.get("messages_sent").isNull(), why);
                assertTrue(c.get("messages_lost").isNull(), why);
            } else {
                assertTrue(rows.sent() > 10_000, why);
                assertEquals(rows.sent(), c.get("messages_sent").asLong(), why);
            }
            if (victim.equals("receiver")) {
                assertTrue(c.get("messages_received").isNull(), why);
                assertTrue(c.get("messages_lost").isNull(), why);
            } else {
                assertTrue(rows.received() > 10_000, why);
                assertEquals(rows.received(), c.get("messages_received").asLong(), why);
            }
            if (victim.equals("relay") || victim.equals("broker")) {
                assertEquals(rows.sentOnly(), c.get("messages_lost").asLong(), why);
                assertTrue(s.get("latency").get("latency_p50_us").isNumber(), why);
            }
        } finally {
            if (broker != null) {
                broker.close();
            }
        }
    }

    /**
     * An agent killed while the traces upload (one after the other, the sender's first; every agent pauses 100 ms
     * after each chunk, so the kill lands inside the upload): the survivor's trace is still written, the run fails
     * in the upload phase naming the lost upload, and what only the lost agent recorded (its count, so the loss) is
     * unknown rather than claimed.
     */
    @ParameterizedTest(name = "{0} killed during the uploads")
    @ValueSource(strings = {"sender", "receiver"})
    void anAgentKilledDuringTheUploadsLeavesTheOthersTraceAndNamesThePhase(String victim) throws Exception {
        Path out = tmp.resolve("upload-" + victim);
        MsgscopeProcess p = MsgscopeProcess.start(java.util.Map.of("MSGSCOPE_TEST_UPLOAD_PAUSE_MS", "100"),
                tmp.resolve("wd-upload-" + victim), "run", "--count", "2000000", "--warmup", "1000",
                "--out", out.toString());
        ProcessHandle agent = TraceRunIT.awaitChild(p.process, victim, 60_000);
        TraceRunIT.awaitLine(p.stderr, "uploading the traces", 180_000);
        agent.destroyForcibly(); // the sender's 2,000,000 send times are on their way, 65,536 per chunk
        JsonNode s = p.awaitFailedSummary(out, 180);
        assertEquals("upload", s.get("failed_during").asText(), s::toString);
        assertTrue(s.get("failure_reason").asText().contains(victim + " trace upload"), s::toString);
        JsonNode c = s.get("counters");
        Rows rows = Rows.of(out.resolve("trace.dat"));
        String why = "counters " + c + " vs trace.dat " + rows;
        boolean senderLost = victim.equals("sender");
        if (senderLost) {
            // what arrived of the sender's trace before it died is kept, and said to be a part
            assertTrue(rows.sent() < 2_000_000, why);
            if (rows.sent() > 0) {
                assertTrue(s.get("warnings").toString().contains("the sender's trace arrived in part: " + rows.sent()
                        + " of 2000000 send times"), s::toString);
            }
        } else {
            assertEquals(2_000_000, rows.sent(), why);
        }
        assertEquals(senderLost ? 2_000_000 : 0, rows.received(), why);
        String kept = senderLost ? "messages_received" : "messages_sent";
        String gone = senderLost ? "messages_sent" : "messages_received";
        assertEquals(2_000_000, c.get(kept).asLong(), why);
        // the lost agent's own count came in its measurement report, before the upload: kept, and said to be
        // beyond what trace.dat holds
        assertEquals(2_000_000, c.get(gone).asLong(), why);
        assertTrue(c.get("messages_lost").isNull(), why);
    }

    /**
     * The same faults in the warm-up: the run ends (no hang) with exit 1 and a summary that names the phase and an
     * agent, and no measured message is claimed (the surviving traces hold none).
     */
    @ParameterizedTest(name = "{0} killed during the warm-up")
    @ValueSource(strings = {"relay", "sender", "receiver"})
    void aKillDuringTheWarmUpFailsTheRunNamingThePhase(String victim) throws Exception {
        Path out = tmp.resolve("warmup-" + victim);
        // a warm-up of 20 M messages lasts far longer than the second before the kill
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd-w-" + victim), "run", "--count", "10000",
                "--warmup", "20000000", "--out", out.toString());
        ProcessHandle agent = TraceRunIT.awaitChild(p.process, victim, 60_000);
        TraceRunIT.awaitLine(p.stderr, "warm-up:", 90_000);
        Thread.sleep(1_000);
        agent.destroyForcibly();
        JsonNode s = p.awaitFailedSummary(out, 180);
        assertEquals("warm-up", s.get("failed_during").asText(), s::toString);
        // the first to notice may be a neighbour (the sender's write fails when the relay goes): an agent is named
        assertTrue(s.get("failure_reason").asText().contains(" agent"), s::toString);
        JsonNode c = s.get("counters");
        assertTrue(c.get("messages_received").isNull() || c.get("messages_received").asLong() == 0, c::toString);
        assertTrue(c.get("warmup_lost").isNull(), "the warm-up never ended: its loss is unknown " + c);
    }

    /**
     * The same faults at set-up, the agent killed as soon as it exists (before or just after it reported its
     * control port): exit 1, the phase and the agent named, and no count claimed.
     */
    @ParameterizedTest(name = "{0} killed during the set-up")
    @ValueSource(strings = {"relay", "sender", "receiver"})
    void aKillDuringTheSetUpFailsTheRunNamingTheAgent(String victim) throws Exception {
        Path out = tmp.resolve("setup-" + victim);
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd-s-" + victim), "run", "--count", "10000",
                "--out", out.toString());
        TraceRunIT.awaitChild(p.process, victim, 60_000).destroyForcibly();
        JsonNode s = p.awaitFailedSummary(out, 180);
        assertEquals("set-up", s.get("failed_during").asText(), s::toString);
        assertTrue(s.get("failure_reason").asText().contains(victim + " agent"), s::toString);
        for (String count : new String[] {"messages_sent", "messages_received"}) {
            JsonNode c = s.get("counters").get(count);
            assertTrue(c.isNull() || c.asLong() == 0, () -> count + ": nothing was measured, " + s);
        }
    }
}
