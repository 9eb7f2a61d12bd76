package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients that reconnect without hiding anything (issue 32 item 3), through the real CLI: a PRIVATE nats-server with
 * JetStream (its own port and store; the shared one on 4222 is never touched) is killed mid-run by the broker-probe
 * agent (SIGKILL) and started again by its restart command one second later. With {@code --opt reconnect=true} the run
 * completes, every message is accounted for (received + lost = sent; confirmed + unconfirmed = sent) and, the stream
 * being on file, no message the stream acknowledged is lost: {@code guarantee_violations} 0. A republished message
 * whose first copy got through carries the first copy's {@code Nats-Msg-Id}, so the stream drops it
 * ({@code messages_deduplicated}, never more than were republished); a delivery the consumer makes again because its
 * ack died with the server still arrives twice (3 of 6,000 in a CI run on a quiet box), so the run allows duplicates
 * and the test does not assert their number. Without the
 * option the same faults are refused, exit 2, one line naming it. The restarted server is stopped by the PID it wrote.
 *
 * <p>The netty engine (core NATS, the default) goes through the same kill and restart: both clients come back
 * ({@code publisher_reconnects}, {@code subscriber_reconnects}), every message is accounted for, and since core NATS
 * confirms nothing the guarantee figures are unknown (null), never 0; what the outage cost is counted lost: what was
 * in the socket when the server died, and what was published while the subscriber was still dialling. The publisher
 * waits while it dials and then sends the second it owes at once, so the loss is a few (1, 6) or about 1,000 of 6,000
 * depending on which client got back first (both seen here); delivery resumes either way. A run that lost any message
 * fails as every run with loss does (exit 1, "FAILED: N of 6000 messages lost"); one that lost none passes.
 */
class ReconnectFaultIT {
    @TempDir
    Path tmp;

    @Test
    void aJetStreamServerKilledAndRestartedLosesNoConfirmedMessage() throws Exception {
        Path dir = tmp.resolve("nats");
        Path restartedPid = tmp.resolve("nats-restarted.pid");
        try (PrivateBroker nats = PrivateBroker.nats(dir, true)) {
            Path out = tmp.resolve("run");
            MsgscopeProcess p = killAndRestart(nats, dir, true, restartedPid, out, "--opt", "jetstream=true",
                    "--opt", "storage=file");
            try {
                Finished run = finish("reconnect", p, out);
                int rc = run.rc();
                JsonNode s = run.summary();
                JsonNode c = s.get("counters");
                long sent = c.get("messages_sent").asLong();
                assertEquals(6_000, sent, s::toString);
                // every message accounted for: received (once) or lost
                assertEquals(sent, c.get("messages_received").asLong() + c.get("messages_lost").asLong(), c::toString);
                assertEquals(sent, c.get("messages_confirmed").asLong() + c.get("messages_unconfirmed").asLong(),
                        c::toString);
                assertEquals(0, c.get("guarantee_violations").asLong(), c::toString);
                assertTrue(c.get("publisher_reconnects").asLong() >= 1, c::toString);
                assertTrue(c.get("subscriber_reconnects").asLong() >= 1, c::toString);
                // a count that must be written (a JSON null or a missing field would read 0)
                assertTrue(c.get("messages_republished").isIntegralNumber()
                        && c.get("messages_republished").asLong() >= 0, c::toString);
                // each copy the stream dropped was a republished one (the consumer's redeliveries still arrive twice)
                assertTrue(c.get("duplicates").isIntegralNumber(), c::toString);
                assertTrue(c.get("messages_deduplicated").asLong() <= c.get("messages_republished").asLong(),
                        c::toString);
                assertKillAndRestartApplied(s, p, rc, out);
            } finally {
                stopRestarted(restartedPid, nats.pid());
            }
        }
    }

    @Test
    void theNettyEngineComesBackFromTheSameKillAndRestart() throws Exception {
        Path dir = tmp.resolve("nats");
        Path restartedPid = tmp.resolve("nats-restarted.pid");
        try (PrivateBroker nats = PrivateBroker.nats(dir, false)) {
            Path out = tmp.resolve("run");
            MsgscopeProcess p = killAndRestart(nats, dir, false, restartedPid, out, "--opt", "engine=netty");
            try {
                Finished run = finish("netty reconnect", p, out);
                int rc = run.rc();
                JsonNode s = run.summary();
                JsonNode c = s.get("counters");
                long sent = c.get("messages_sent").asLong();
                assertEquals(6_000, sent, s::toString);
                assertEquals(sent, c.get("messages_received").asLong() + c.get("messages_lost").asLong(), c::toString);
                // both clients came back, and what was published after the restart arrived
                assertTrue(c.get("publisher_reconnects").asLong() >= 1, c::toString);
                assertTrue(c.get("subscriber_reconnects").asLong() >= 1, c::toString);
                // delivery resumed after the restart: of what was sent from then on, not all was lost
                JsonNode restart = s.get("faults").get(1);
                assertTrue(restart.get("messages_lost").asLong() < restart.get("messages_sent_in_window").asLong(),
                        restart::toString);
                long lost = c.get("messages_lost").asLong();
                // core NATS confirms nothing: no confirmation figures, the violations unknown (null, not 0)
                assertTrue(c.path("messages_confirmed").isMissingNode() || c.get("messages_confirmed").isNull(),
                        c::toString);
                assertTrue(c.get("guarantee_violations").isNull(), c::toString);
                assertEquals(0, c.get("duplicates").asLong(), c::toString); // nothing is published twice
                assertKillAndRestartApplied(s, p, rc, out, false, lost == 0 ? 0 : 1);
                String console = p.out();
                assertEquals(lost > 0, console.contains("FAILED: " + lost + " of 6000 messages lost"), console);
            } finally {
                stopRestarted(restartedPid, nats.pid());
            }
        }
    }

    /**
     * Starts a run of 6,000 messages at 1,000/s (500 warm-up) with {@code --opt reconnect=true} and the options given,
     * whose faults kill {@code nats} at 1.5 s and start the same server again (same port, same store with
     * {@code jetStream}) at 2.5 s, in the background: the restart command returns once it is started.
     */
    private MsgscopeProcess killAndRestart(PrivateBroker nats, Path dir, boolean jetStream, Path restartedPid, Path out,
            String... opts) throws Exception {
        Path pidFile = tmp.resolve("nats.pid");
        Files.writeString(pidFile, nats.pid() + "\n");
        String restart = restartCommand(nats, dir, jetStream, restartedPid);
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("run", "--driver", "nats", "--uri",
                nats.uri(), "--opt", "reconnect=true"));
        args.addAll(java.util.List.of(opts));
        args.addAll(java.util.List.of("--rate", "1000", "--count", "6000", "--warmup", "500", "--broker-pid",
                "" + nats.pid(), "--fault-target", "node1=" + pidFile, "--fault-target", "node1=restart:" + restart,
                "--faults", "1.5s:kill:node1, 2.5s:restart:node1", "--allow-duplicates", "--out", out.toString()));
        return MsgscopeProcess.start(tmp, args.toArray(new String[0]));
    }

    /**
     * The fault plan's restart command for a private {@code nats} started by {@link PrivateBroker#nats}: the same server
     * (same port, with {@code jetStream} the same store in {@code dir}) started again in the background, writing its pid
     * to {@code restartedPid} (the command returns once it is started).
     */
    static String restartCommand(PrivateBroker nats, Path dir, boolean jetStream, Path restartedPid) {
        return "nats-server -a 127.0.0.1 -p " + nats.port + (jetStream ? " -js -sd " + dir.resolve("js") : "")
                + " -P " + restartedPid + " >>" + dir.resolve("restarted.log") + " 2>&1 &";
    }

    @Test
    void withoutReconnectAKillIsRefusedNamingTheOption() throws Exception {
        Path pidFile = tmp.resolve("self.pid");
        Files.writeString(pidFile, ProcessHandle.current().pid() + "\n");
        for (String faults : new String[] {"1s:kill:node1", "1s:restart:node1"}) {
            Path out = tmp.resolve("refused");
            MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--driver", "nats", "--opt", "jetstream=true",
                    "--rate", "1000", "--count", "2000", "--broker-pid", "" + ProcessHandle.current().pid(),
                    "--fault-target", "node1=" + pidFile, "--fault-target", "node1=restart:true",
                    "--faults", faults, "--out", out.toString());
            String line = Usage.assertUsageError(p, "--faults");
            assertTrue(line.contains("--opt reconnect=true"), line);
            assertFalse(Files.exists(out), "a usage error writes no results folder");
        }
    }

    /**
     * The faults "1.5s:kill:node1, 2.5s:restart:node1" both applied (the probe agent's log says so), without error or
     * guarantee violation, the kill costing more than 0.5 s of deliveries; the console names the violations; exit 0.
     */
    static void assertKillAndRestartApplied(JsonNode s, MsgscopeProcess p, int rc, Path out) throws Exception {
        assertKillAndRestartApplied(s, p, rc, out, true, 0);
    }

    /**
     * The same; {@code confirms}: the publisher confirms (violations 0), else the violations are unknown (null);
     * {@code exitCode} the run's (1 when a run without confirms lost messages).
     */
    static void assertKillAndRestartApplied(JsonNode s, MsgscopeProcess p, int rc, Path out, boolean confirms,
            int exitCode) throws Exception {
        assertKillAndRestartApplied(s, p, rc, out, confirms ? Long.valueOf(0) : null, exitCode);
    }

    /**
     * The same, where the faults' guarantee violations add up to at most the run's {@code violations} (null: unknown,
     * no confirms): a broker that acknowledges before it saves may lose acknowledged messages to a kill (Mosquitto).
     */
    static void assertKillAndRestartApplied(JsonNode s, MsgscopeProcess p, int rc, Path out, Long violations,
            int exitCode) throws Exception {
        boolean confirms = violations != null;
        JsonNode faults = s.get("faults");
        assertEquals(2, faults.size(), s::toString);
        long sum = 0;
        for (JsonNode f : faults) {
            assertTrue(f.get("error").isNull(), f::toString);
            if (confirms) {
                assertTrue(f.get("guarantee_violations").isIntegralNumber(), f::toString);
                sum += f.get("guarantee_violations").asLong();
            } else {
                assertTrue(f.path("guarantee_violations").isNull() || f.path("guarantee_violations").isMissingNode(),
                        f::toString);
            }
        }
        if (confirms) { // the run's violations, some perhaps outside every fault's window
            long total = sum;
            assertTrue(total <= violations, () -> total + " > " + violations + " in " + faults);
        }
        assertEquals("kill", faults.get(0).get("action").asText());
        assertTrue(faults.get(0).get("unavailable_ms").asDouble() > 500, faults.get(0)::toString);
        if (rc == 0 || violations != null && violations > 0) {
            // the sentence of a run that ended ok names them (0 too); a run failed for its loss says how many of the
            // lost were violations; one failed otherwise (fell behind) prints only why
            assertEquals(confirms, p.out().contains("guarantee violations"), p.out());
        }
        assertEquals(exitCode, rc, () -> "stdout: " + TraceRunIT.safe(p::out) + " stderr: " + TraceRunIT.safe(p::err));
        String probeLog = Files.readString(out.resolve("agent-probe.log"));
        assertTrue(probeLog.contains("fault 1.5s:kill:node1: applied"), probeLog);
        assertTrue(probeLog.contains("fault 2.5s:restart:node1: applied"), probeLog);
    }

    /** A fault run that ended: its process (console), exit code and summary.json. */
    record Finished(MsgscopeProcess process, int rc, JsonNode summary) {
    }

    /**
     * Waits for a reconnect test's run (up to 300 s), checks its summary.json against the schema and prints the
     * counters, the faults and the console under {@code name}, so that a failed assertion after it has them in the log.
     */
    static Finished finish(String name, MsgscopeProcess p, Path out) throws Exception {
        int rc = p.waitFor(300);
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        System.out.println(name + " run: rc " + rc + ", counters " + s.get("counters") + ", faults " + s.get("faults")
                + "\nstdout: " + TraceRunIT.safe(p::out) + "\nstderr: " + TraceRunIT.safe(p::err));
        return new Finished(p, rc, s);
    }

    /** Stops the restarted server by the PID it wrote (it is no child of this test), unless that is {@code first}. */
    static void stopRestarted(Path pidFile, long first) throws Exception {
        if (!Files.exists(pidFile)) {
            return;
        }
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        if (pid == first) {
            return;
        }
        ProcessHandle.of(pid).ifPresent(h -> {
            h.destroy();
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                h.destroyForcibly();
            }
        });
    }
}
