package io.msgscope.cli;

import io.msgscope.core.test.Ci;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Agents on a test network (issue 6, D7, M11): the network lab (deploy/netlab/netlab.sh) puts the
 * sender and receiver daemons in one namespace and the relay in another, joined by a veth shaped to
 * 100 Mbit/s; the coordinator drives them remotely with the shared secret. Needs root and iproute2:
 * skipped without them on a laptop, failing under CI=true.
 */
class NetworkLabIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path NETLAB = Path.of(System.getProperty("user.dir")).getParent()
            .resolve("deploy/netlab/netlab.sh");
    private static final List<Process> AGENTS = new ArrayList<>();
    private static Path work;
    private static Path secret;

    @BeforeAll
    static void up() throws Exception {
        boolean root = "0".equals(exec(false, "id", "-u").trim());
        boolean ip = Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip"))
                || Files.isExecutable(Path.of("/usr/bin/ip"));
        if (!root || !ip) {
            if (Ci.on()) {
                fail("the network lab needs root and iproute2 under CI=true");
            }
            Assumptions.abort("the network lab needs root and iproute2 (ip netns); skipped");
        }
        work = Files.createTempDirectory("msgscope-lab");
        secret = work.resolve("secret");
        Files.writeString(secret, "lab-secret-" + System.nanoTime() + "-0123456789abcdef");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        exec(true, NETLAB.toString(), "up", "100m");
        startAgent("client", "sender", "10.77.0.1:7601");
        startAgent("client", "receiver", "10.77.0.1:7602");
        startAgent("broker", "relay", "10.77.0.2:7600");
        startAgent("client", "flow", "10.77.0.1:7603");
        startAgent("client", "publishers", "10.77.0.1:7604");
        startAgent("client", "subscribers", "10.77.0.1:7605");
        // a second load box (issue 13): another publishers agent, playing a box of its own for the clocks
        startAgent("client2", "publishers", "10.77.1.1:7604", "publishers-2", Map.of("MSGSCOPE_BOOT_ID", "lab-client2"));
        // and a third box for the subscribers (issue 33 item 4): every publishers -> subscribers pair crosses hosts
        startAgent("client3", "subscribers", "10.77.2.1:7605", "subscribers-3", Map.of("MSGSCOPE_BOOT_ID", "lab-client3"));
    }

    @AfterAll
    static void down() throws Exception {
        for (Process p : AGENTS) {
            p.destroy();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        if (work != null) {
            exec(false, NETLAB.toString(), "down");
        }
    }

    private static Process startAgent(String ns, String role, String listen) throws Exception {
        return startAgent(ns, role, listen, role);
    }

    private static Process startAgent(String ns, String role, String listen, String logName) throws Exception {
        return startAgent(ns, role, listen, logName, Map.of());
    }

    private static Process startAgent(String ns, String role, String listen, String logName, Map<String, String> env)
            throws Exception {
        return startAgent(ns, role, listen, logName, env, List.of("--secret-file", secret.toString()));
    }

    private static Process startAgent(String ns, String role, String listen, String logName, Map<String, String> env,
                                      List<String> credentials) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(NETLAB.toString(), "exec", ns,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                MsgscopeProcess.jar().toString(), "agent", "--role", role, "--listen", listen));
        cmd.addAll(credentials);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        AGENTS.add(p);
        final String logFile = "agent-" + logName + ".log";
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = r.readLine();
        assertTrue(line != null && line.contains("listening on " + listen), "agent " + role + ": " + line);
        Thread drain = new Thread(() -> {
            try {
                Files.writeString(work.resolve(logFile), "");
                String l;
                while ((l = r.readLine()) != null) {
                    Files.writeString(work.resolve(logFile), l + "\n", java.nio.file.StandardOpenOption.APPEND);
                }
            } catch (IOException e) {
                // agent gone
            }
        });
        drain.setDaemon(true);
        drain.start();
        return p;
    }

    /** Runs the coordinator in the client namespace, as it would run on the sender/receiver host. */
    private static int coordinator(Path out, String secretFile, String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(NETLAB.toString(), "exec", "client",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                MsgscopeProcess.jar().toString(), "run", "--agent", "sender=10.77.0.1:7601",
                "--agent", "receiver=10.77.0.1:7602", "--agent", "relay=10.77.0.2:7600", "--out", out.toString()));
        if (secretFile != null) {
            cmd.add("--secret-file");
            cmd.add(secretFile);
        }
        cmd.addAll(List.of(extra));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(work.resolve(out.getFileName() + ".txt").toFile()).start();
        assertTrue(p.waitFor(240, TimeUnit.SECONDS), "coordinator did not finish");
        return p.exitValue();
    }

    @Test
    void oneKibMessagesFillTheHundredMegabitLinkAndAllArrive() throws Exception {
        Path out = work.resolve("run-100m");
        int rc = coordinator(out, secret.toString(), "--count", "60000", "--size", "1024", "--warmup", "5000");
        assertEquals(0, rc, () -> read(work.resolve("run-100m.txt")));
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText());
        assertEquals(60_000, s.get("counters").get("messages_received").asLong());
        assertEquals(0, s.get("counters").get("messages_lost").asLong());
        double mbit = s.get("throughput").get("receive_bytes_s").asDouble() * 8 / 1e6;
        // payload bytes/s near the 100 Mbit/s link rate (headers and ACKs take the rest), never above it; the
        // lower bound leaves room for a full suite sharing the 2 cores with the lab (77.9 seen once there)
        assertTrue(mbit > 70 && mbit < 105, "payload " + mbit + " Mbit/s over a 100 Mbit/s link");
        assertEquals("msc-c0", s.get("network").get("interface").asText());
        assertTrue(s.get("environment").get("agents").get("relay").get("affinity") != null);
    }

    @Test
    void wrongOrMissingCredentialsAreRefusedAndTheAgentsKeepServing() throws Exception {
        Path wrong = work.resolve("wrong");
        Files.writeString(wrong, "not-the-lab-secret-0123456789");
        Files.setPosixFilePermissions(wrong, PosixFilePermissions.fromString("rw-------"));
        assertEquals(2, coordinator(work.resolve("run-wrong"), wrong.toString(), "--count", "1000", "--warmup", "0"),
                () -> read(work.resolve("run-wrong.txt")));
        assertTrue(read(work.resolve("run-wrong.txt")).contains("could not prove the shared secret"));
        assertEquals(2, coordinator(work.resolve("run-none"), null, "--count", "1000", "--warmup", "0"));
        // issue 28: without credentials the coordinator refuses an agent off loopback itself, sending nothing
        assertTrue(read(work.resolve("run-none.txt")).contains("use --tls-dir or --secret-file"));
        // the agents logged the refusals and still serve the next run
        // the relay is asked first, so it is the one that saw (and logged) both refused attempts
        String relayLog = read(work.resolve("agent-relay.log"));
        // protocol 2: a coordinator with another secret finds the agent's proof wrong and hangs up proving nothing
        assertTrue(relayLog.contains("refused control connection") && relayLog.contains("closed by the peer before "
                + "authenticating"), relayLog);
        Path ok = work.resolve("run-after");
        assertEquals(0, coordinator(ok, secret.toString(), "--count", "5000", "--warmup", "500"),
                () -> read(work.resolve("run-after.txt")));
    }

    @Test
    void aCoordinatorKilledMidRunLeavesAgentsReadyForTheNextRun() throws Exception {
        Path out = work.resolve("run-killed");
        List<String> cmd = List.of(NETLAB.toString(), "exec", "client",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                MsgscopeProcess.jar().toString(), "run", "--agent", "sender=10.77.0.1:7601",
                "--agent", "receiver=10.77.0.1:7602", "--agent", "relay=10.77.0.2:7600",
                "--secret-file", secret.toString(), "--count", "200000", "--rate", "2000", "--warmup", "100",
                "--out", out.toString());
        Path log = work.resolve("run-killed.txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.currentTimeMillis() + 60_000;
        while (!read(log).contains("measuring:") && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(read(log).contains("measuring:"), read(log));
        p.destroyForcibly(); // the coordinator dies mid-run
        p.waitFor(10, TimeUnit.SECONDS);
        // the agents see the connection drop, release the run and accept the next coordinator
        Path next = work.resolve("run-next");
        assertEquals(0, coordinator(next, secret.toString(), "--count", "5000", "--warmup", "500"),
                () -> read(work.resolve("run-next.txt")));
    }

    @Test
    void theThroughputModeRunsAcrossTheLabTooAndIsBoundByTheLink() throws Exception {
        Path out = work.resolve("tput-100m");
        List<String> cmd = List.of(NETLAB.toString(), "exec", "client",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                MsgscopeProcess.jar().toString(), "throughput", "--agent", "flow=10.77.0.1:7603",
                "--agent", "relay=10.77.0.2:7600", "--secret-file", secret.toString(), "--in-flight", "200",
                "--samples", "30", "--size", "1024", "--out", out.toString());
        Path log = work.resolve("tput-100m.txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "throughput did not finish");
        assertEquals(0, p.exitValue(), () -> read(log));
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText());
        double mbit = s.get("result").get("median_bytes_s").asDouble() * 8 / 1e6;
        // 1 KiB messages kept 200 in flight over a 100 Mbit/s link: the link is the limit
        assertTrue(mbit > 50 && mbit < 105, "median payload " + mbit + " Mbit/s over 100 Mbit/s");
    }

    private static boolean natsStarted;

    /** nats-server in the broker namespace, on 10.77.0.2:4222 (both client links reach it), started once. */
    private static synchronized void natsInBrokerNamespace() throws Exception {
        if (natsStarted) {
            return;
        }
        Path nats = Path.of("/usr/sbin/nats-server");
        if (!Files.isExecutable(nats)) {
            if (Ci.on()) {
                fail("nats-server must be installed under CI=true");
            }
            Assumptions.abort("nats-server not installed; cross-host scenario skipped");
        }
        Process broker = new ProcessBuilder(NETLAB.toString(), "exec", "broker", nats.toString(), "-a", "10.77.0.2",
                "-p", "4222").redirectErrorStream(true).redirectOutput(work.resolve("nats.log").toFile()).start();
        AGENTS.add(broker);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!exec(false, NETLAB.toString(), "exec", "broker", "bash", "-c",
                "(echo > /dev/tcp/10.77.0.2/4222) 2>/dev/null && echo up").contains("up")) {
            assertTrue(System.nanoTime() < deadline, "nats-server did not listen in the broker namespace");
            Thread.sleep(100);
        }
        natsStarted = true;
    }

    /**
     * Issue 13: two publishers agents on two load boxes (namespaces client and client2) and a subscribers
     * agent on a third (client3), against a broker on a fourth (the broker namespace): the connections split between
     * the two publishers agents, their figures add up, and since client2 and client3 play boxes of their own (other
     * boot ids) the run is marked cross-host with each agent's clock offset to the subscribers' box and its bound
     * (R1), and both pairs' clocks are tracked through the run (issue 33 item 4): one kernel underneath, so the
     * truth is 0, and it must lie within each pair's bound.
     */
    @Test
    void twoPublishersAgentsOnTwoBoxesShareOneScenario() throws Exception {
        natsInBrokerNamespace();
        Path out = work.resolve("scenario-two-boxes");
        List<String> cmd = List.of(NETLAB.toString(), "exec", "client",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                MsgscopeProcess.jar().toString(), "scenario", "--driver", "nats", "--uri", "nats://10.77.0.2:4222",
                "--scenario", "fan-in", "--publishers", "6", "--rate", "100", "--duration", "2", "--warmup", "1",
                "--agent", "publishers=10.77.0.1:7604", "--agent", "publishers=10.77.1.1:7604",
                "--agent", "subscribers=10.77.2.1:7605", "--secret-file", secret.toString(), "--out", out.toString());
        Path log = work.resolve("scenario-two-boxes.txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "scenario did not finish");
        assertEquals(0, p.exitValue(), () -> read(log));
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText(), () -> s.toString());
        JsonNode f = s.get("results");
        assertEquals(2, f.get("publishers_agents").asInt(), () -> f.toString());
        assertEquals(7, f.get("connections_opened").asInt(), () -> f.toString());
        assertEquals(6 * 100 * 2, f.get("messages_sent").asLong(), () -> f.toString());
        assertEquals(6 * 100 * 2, f.get("messages_received").asLong(), () -> f.toString());
        assertTrue(s.get("cross_host").asBoolean(), () -> s.toString());
        JsonNode offsets = s.get("clock_offsets_to_subscribers");
        assertEquals(2, offsets.size(), () -> offsets.toString());
        offsets.forEach(o -> {
            // one kernel underneath: the true offset is 0, and it must lie within the reported bound
            assertTrue(Math.abs(o.get("offset_us").asDouble()) <= o.get("error_bound_us").asDouble() + 50,
                    () -> offsets.toString());
        });
        JsonNode pairs = s.get("clock_tracking").get("pairs");
        assertEquals(2, pairs.size(), pairs::toString);
        pairs.forEach(pair -> {
            double bound = pair.get("error_bound_us").asDouble();
            assertTrue(Math.abs(pair.get("offset_at_first_probe_us").asDouble()) <= bound, pairs::toString);
            assertTrue(Math.abs(pair.get("offset_at_last_probe_us").asDouble()) <= bound, pairs::toString);
        });
    }

    @Test
    void aScenarioRunsAcrossTheLabAgainstABrokerInTheBrokerNamespace() throws Exception {
        natsInBrokerNamespace();
        Path out = work.resolve("scenario-100m");
        List<String> cmd = List.of(NETLAB.toString(), "exec", "client",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                MsgscopeProcess.jar().toString(), "scenario", "--driver", "nats", "--uri", "nats://10.77.0.2:4222",
                "--scenario", "fan-out", "--subscribers", "3", "--rate", "200", "--duration", "2", "--warmup", "1",
                "--agent", "publishers=10.77.0.1:7604", "--agent", "subscribers=10.77.0.1:7605",
                "--secret-file", secret.toString(), "--out", out.toString());
        Path log = work.resolve("scenario-100m.txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "scenario did not finish");
        assertEquals(0, p.exitValue(), () -> read(log));
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText(), () -> s.toString());
    }

    @Test
    void aRemoteAgentKilledMidRunFailsTheRunQuicklyAndARestartedOneServesTheNext() throws Exception {
        Process victim = startAgent("client", "receiver", "10.77.0.1:7606", "victim-1");
        Path out = work.resolve("run-victim");
        List<String> cmd = List.of(NETLAB.toString(), "exec", "client",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                MsgscopeProcess.jar().toString(), "run", "--agent", "sender=10.77.0.1:7601",
                "--agent", "receiver=10.77.0.1:7606", "--agent", "relay=10.77.0.2:7600",
                "--secret-file", secret.toString(), "--count", "200000", "--rate", "2000", "--warmup", "100",
                "--out", out.toString());
        Path log = work.resolve("run-victim.txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.currentTimeMillis() + 60_000;
        while (!read(log).contains("measuring:") && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        Thread.sleep(500);
        victim.destroyForcibly();
        long killed = System.nanoTime();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the coordinator did not notice the dead agent");
        double noticed = (System.nanoTime() - killed) / 1e9;
        assertEquals(1, p.exitValue(), () -> read(log));
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("failed", s.get("status").asText());
        assertTrue(s.get("failure_reason").asText().contains("receiver"), s.get("failure_reason").asText());
        // noticed, analysed and written within a few seconds (the detection itself is under 2 s)
        assertTrue(noticed < 10, "run ended " + noticed + " s after the kill");
        // restart the agent: the next run works
        startAgent("client", "receiver", "10.77.0.1:7606", "victim-2");
        Path next = work.resolve("run-restarted");
        List<String> again = List.of(NETLAB.toString(), "exec", "client",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                MsgscopeProcess.jar().toString(), "run", "--agent", "sender=10.77.0.1:7601",
                "--agent", "receiver=10.77.0.1:7606", "--agent", "relay=10.77.0.2:7600",
                "--secret-file", secret.toString(), "--count", "5000", "--warmup", "500", "--out", next.toString());
        Process q = new ProcessBuilder(again).redirectErrorStream(true)
                .redirectOutput(work.resolve("run-restarted.txt").toFile()).start();
        assertTrue(q.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, q.exitValue(), () -> read(work.resolve("run-restarted.txt")));
    }

    /**
     * Issue 14: mutual TLS across the lab, certificates made here for the hosts' addresses; the agents'
     * certificates must name the address the coordinator dials, and one that names another is refused.
     */
    @Test
    void mutualTlsAcrossTheLabWithCertificatesForTheHostsAddresses() throws Exception {
        io.msgscope.control.Certificates.Issued ca = io.msgscope.control.Certificates.newCa("lab",
                java.time.Duration.ofDays(1));
        Path client = work.resolve("tls-client");
        Path broker = work.resolve("tls-broker");
        Path wrong = work.resolve("tls-wrong");
        io.msgscope.control.Certificates.writeHost(client, ca.certificate(),
                io.msgscope.control.Certificates.issue(ca, List.of("10.77.0.1"), java.time.Duration.ofDays(1)));
        io.msgscope.control.Certificates.writeHost(broker, ca.certificate(),
                io.msgscope.control.Certificates.issue(ca, List.of("10.77.0.2"), java.time.Duration.ofDays(1)));
        io.msgscope.control.Certificates.writeHost(wrong, ca.certificate(),
                io.msgscope.control.Certificates.issue(ca, List.of("broker.lab"), java.time.Duration.ofDays(1)));
        startAgent("client", "sender", "10.77.0.1:7611", "tls-sender", Map.of(), List.of("--tls-dir", client.toString()));
        startAgent("client", "receiver", "10.77.0.1:7612", "tls-receiver", Map.of(), List.of("--tls-dir", client.toString()));
        startAgent("broker", "relay", "10.77.0.2:7610", "tls-relay", Map.of(), List.of("--tls-dir", broker.toString()));
        startAgent("broker", "relay", "10.77.0.2:7613", "tls-misnamed", Map.of(), List.of("--tls-dir", wrong.toString()));
        for (String relay : List.of("7610", "7613")) {
            Path out = work.resolve("run-tls-" + relay);
            List<String> cmd = List.of(NETLAB.toString(), "exec", "client",
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                    MsgscopeProcess.jar().toString(), "run", "--agent", "sender=10.77.0.1:7611",
                    "--agent", "receiver=10.77.0.1:7612", "--agent", "relay=10.77.0.2:" + relay,
                    "--tls-dir", client.toString(), "--count", "20000", "--size", "1024", "--warmup", "1000",
                    "--out", out.toString());
            Path log = work.resolve("run-tls-" + relay + ".txt");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            assertTrue(p.waitFor(180, TimeUnit.SECONDS), "run did not finish");
            if (relay.equals("7610")) {
                assertEquals(0, p.exitValue(), () -> read(log));
                assertEquals("ok", SummarySchema.assertValid(out.resolve("summary.json")).get("status").asText());
            } else {
                assertEquals(2, p.exitValue(), () -> read(log));
                assertTrue(read(log).contains("the agent's certificate (CN=broker.lab) names broker.lab, not 10.77.0.2"),
                        read(log));
            }
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return "(" + e.getMessage() + ")";
        }
    }

    private static String exec(boolean check, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        if (check && p.exitValue() != 0) {
            fail(String.join(" ", cmd) + " failed: " + out);
        }
        return out;
    }
}
