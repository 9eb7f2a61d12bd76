package io.msgscope.cli;

import io.msgscope.control.Certificates;
import io.msgscope.control.SharedSecret;
import io.msgscope.proto.AuthChallenge;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Environment;
import io.msgscope.proto.HelloAck;
import io.msgscope.proto.Role;
import io.msgscope.proto.Series;
import io.msgscope.proto.TraceChunk;
import io.msgscope.core.Version;
import com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 14's findings, each against real agent daemons ({@code java -jar msgscope.jar agent ...}) and a
 * real coordinator ({@code msgscope run}): an impostor agent, a relaying man in the middle, idle and
 * trickling unauthenticated sockets while a run proceeds, a frame flood (agent log and coordinator
 * memory bounded), a killed coordinator (no agent left), and certificates made here (wrong CA,
 * expired, wrong host name), each refused with a one-line reason on both sides. Everything on
 * loopback: the daemons are "remote" because the coordinator is given them with --agent.
 */
class ControlPlaneIT {
    private static final String LO = "127.0.0.1";

    @TempDir
    Path tmp;

    private final List<Daemon> daemons = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        for (Daemon d : daemons) {
            d.process.destroy();
            if (!d.process.waitFor(10, TimeUnit.SECONDS)) {
                d.process.destroyForcibly();
            }
        }
    }

    /** An agent daemon on loopback, its first line read for the port, the rest kept in a log file. */
    private final class Daemon {
        final Process process;
        final Path log;
        final int port;

        Daemon(String name, String... args) throws Exception {
            List<String> cmd = new ArrayList<>(List.of(java(), "-Xmx128m", "-jar", MsgscopeProcess.jar().toString(),
                    "agent"));
            cmd.addAll(List.of(args));
            log = tmp.resolve("agent-" + name + ".log");
            Files.writeString(log, "");
            process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            daemons.add(this);
            BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String first = r.readLine();
            assertTrue(first != null && first.contains("listening on 127.0.0.1:"), name + ": " + first);
            port = Integer.parseInt(first.replaceAll(".*listening on 127\\.0\\.0\\.1:(\\d+).*", "$1"));
            Thread pump = new Thread(() -> {
                try {
                    for (String l = r.readLine(); l != null; l = r.readLine()) {
                        Files.writeString(log, l + "\n", StandardOpenOption.APPEND);
                    }
                } catch (IOException e) {
                    // gone
                }
            });
            pump.setDaemon(true);
            pump.start();
        }

        String log() throws IOException {
            return Files.readString(log, StandardCharsets.UTF_8);
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private record Run(int code, String output) {
    }

    /** A short trace run through the tcp relay, with the given agents and credentials. */
    private Run run(String name, String... args) throws Exception {
        return coordinator(name, List.of(), args);
    }

    private Run coordinator(String name, List<String> jvm, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java()));
        cmd.addAll(jvm);
        cmd.addAll(List.of("-jar", MsgscopeProcess.jar().toString(), "run", "--count", "3000", "--warmup", "300",
                "--out", tmp.resolve(name).toString()));
        cmd.addAll(List.of(args));
        Path out = tmp.resolve(name + ".txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError(name + " did not finish: " + Files.readString(out));
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    private Path secretFile(String text) throws IOException {
        Path f = Files.createTempFile(tmp, "secret", "");
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    private static void await(BooleanSupplier condition, long seconds, String what) throws InterruptedException {
        io.msgscope.core.test.Await.until(condition, seconds, what);
    }

    private static BooleanSupplier logHas(Daemon d, String text) {
        return () -> {
            try {
                return d.log().contains(text);
            } catch (IOException e) {
                return false;
            }
        };
    }

    private static String oneLine(String output, String containing) {
        return output.lines().filter(l -> l.contains(containing)).findFirst()
                .orElseThrow(() -> new AssertionError("no line with '" + containing + "' in:\n" + output));
    }

    // ---- finding 1: an impostor agent ----

    /** A TLS server with a throw-away certificate that says it needs no proof, and records what it gets. */
    private static final class Impostor implements AutoCloseable {
        final SSLServerSocket server;
        final List<Envelope.BodyCase> received = new CopyOnWriteArrayList<>();

        Impostor() throws Exception {
            server = (SSLServerSocket) serverContext().getServerSocketFactory().createServerSocket(0, 5,
                    InetAddress.getByName(LO));
            Thread t = new Thread(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        InputStream in = s.getInputStream();
                        OutputStream out = s.getOutputStream();
                        for (Envelope e = Envelope.parseDelimitedFrom(in); e != null; e = Envelope.parseDelimitedFrom(in)) {
                            received.add(e.getBodyCase());
                            if (e.getBodyCase() == Envelope.BodyCase.AUTH_REQUEST) {
                                Envelope.newBuilder().setAuthChallenge(AuthChallenge.newBuilder()
                                        .setAgentNonce(ByteString.copyFrom(SharedSecret.nonce())).setRequired(false))
                                        .build().writeDelimitedTo(out);
                                out.flush();
                            }
                        }
                    } catch (IOException e) {
                        // next
                    }
                }
            });
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    static SSLContext serverContext() throws Exception {
        Certificates.Issued self = Certificates.selfSigned("not an agent");
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("k", self.key(), new char[0], new java.security.cert.Certificate[]{self.certificate()});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, new char[0]);
        SSLContext c = SSLContext.getInstance("TLSv1.3");
        c.init(kmf.getKeyManagers(), null, null);
        return c;
    }

    static SSLContext trustingClientContext() throws Exception {
        SSLContext c = SSLContext.getInstance("TLSv1.3");
        c.init(null, new TrustManager[]{new io.msgscope.core.AcceptAnyCertificate()}, null);
        return c;
    }

    @Test
    void anImpostorAgentThatNeedsNoProofGetsNeitherTheSpecNorTheRun() throws Exception {
        Path secret = secretFile("lab-secret-" + System.nanoTime() + "-0123456789");
        Impostor impostor = new Impostor();
        closeables.add(impostor);
        Run r = run("impostor", "--agent", "relay=127.0.0.1:" + impostor.port(), "--secret-file", secret.toString());
        assertEquals(2, r.code(), r.output());
        String line = oneLine(r.output(), "says it needs no shared secret");
        assertTrue(line.contains("nothing was sent to it"), line);
        assertEquals(List.of(Envelope.BodyCase.AUTH_REQUEST), impostor.received, "only the nonce reached the impostor");
    }

    // ---- finding 2: a relaying man in the middle ----

    /**
     * Terminates TLS on both sides (its own certificate towards the coordinator, a client towards the real
     * agent), relays every frame, and would send its own run spec once the agent took it for the coordinator.
     */
    private static final class ManInTheMiddle implements AutoCloseable {
        final SSLServerSocket server;
        final List<Envelope.BodyCase> fromAgent = new CopyOnWriteArrayList<>();
        final List<Envelope.BodyCase> fromCoordinator = new CopyOnWriteArrayList<>();

        ManInTheMiddle(int agentPort) throws Exception {
            server = (SSLServerSocket) serverContext().getServerSocketFactory().createServerSocket(0, 5,
                    InetAddress.getByName(LO));
            SSLContext client = trustingClientContext();
            Thread t = new Thread(() -> {
                try (Socket c = server.accept();
                     SSLSocket a = (SSLSocket) client.getSocketFactory().createSocket(LO, agentPort)) {
                    Thread up = new Thread(() -> relay(c, a, fromCoordinator, true));
                    up.setDaemon(true);
                    up.start();
                    relay(a, c, fromAgent, false);
                } catch (Exception e) {
                    // over
                }
            });
            t.setDaemon(true);
            t.start();
        }

        private void relay(Socket from, Socket to, List<Envelope.BodyCase> seen, boolean towardsAgent) {
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (Envelope e = Envelope.parseDelimitedFrom(in); e != null; e = Envelope.parseDelimitedFrom(in)) {
                    seen.add(e.getBodyCase());
                    if (!towardsAgent && e.getBodyCase() == Envelope.BodyCase.AUTH_OK) {
                        // the agent took us for its coordinator: our own spec goes first
                        Envelope.newBuilder().setHello(io.msgscope.proto.Hello.newBuilder()
                                .setProtocolVersion(Version.PROTOCOL).setRole(Role.RELAY)).build()
                                .writeDelimitedTo(from.getOutputStream());
                    }
                    e.writeDelimitedTo(out);
                    out.flush();
                }
            } catch (IOException e) {
                // a side hung up
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException e) {
                    // closed
                }
            }
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    @Test
    void aRelayingManInTheMiddleGetsNoAuthenticatedSessionAndTheAgentServesTheNextRun() throws Exception {
        Path secret = secretFile("lab-secret-" + System.nanoTime() + "-0123456789");
        Daemon relay = new Daemon("relay", "--role", "relay", "--listen", "127.0.0.1:0", "--secret-file",
                secret.toString());
        ManInTheMiddle mitm = new ManInTheMiddle(relay.port);
        closeables.add(mitm);
        Run r = run("mitm", "--agent", "relay=127.0.0.1:" + mitm.port(), "--secret-file", secret.toString());
        assertEquals(2, r.code(), r.output());
        assertTrue(oneLine(r.output(), "could not prove the shared secret").contains("or a man in the middle"),
                r.output());
        // the proofs are bound to the agent's certificate: relayed, they did not verify, and the coordinator
        // proved nothing the man in the middle could pass on
        assertEquals(List.of(Envelope.BodyCase.AUTH_REQUEST), mitm.fromCoordinator);
        assertEquals(List.of(Envelope.BodyCase.AUTH_CHALLENGE), mitm.fromAgent);
        await(logHas(relay, "closed by the peer before authenticating"), 20, "the agent logs the hang-up");
        Run next = run("after-mitm", "--agent", "relay=127.0.0.1:" + relay.port, "--secret-file", secret.toString());
        assertEquals(0, next.code(), next.output());
    }

    // ---- finding 3: nothing before authentication ----

    @Test
    void idleAndTricklingSocketsDoNotHoldTheAgentWhileALegitimateRunProceeds() throws Exception {
        Path secret = secretFile("lab-secret-" + System.nanoTime() + "-0123456789");
        Daemon relay = new Daemon("relay", "--role", "relay", "--listen", "127.0.0.1:0", "--secret-file",
                secret.toString());
        List<Socket> idle = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            idle.add(new Socket(LO, relay.port));
        }
        List<Thread> tricklers = new ArrayList<>();
        List<Socket> trickling = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Socket s = new Socket(LO, relay.port);
            trickling.add(s);
            Thread t = new Thread(() -> {
                try {
                    OutputStream o = s.getOutputStream();
                    for (int b = 0; b < 60; b++) { // a byte every 2 s for two minutes, never a whole frame
                        o.write(0x85);
                        o.flush();
                        Thread.sleep(2_000);
                    }
                } catch (Exception e) {
                    // dropped by the agent
                }
            });
            t.setDaemon(true);
            t.start();
            tricklers.add(t);
        }
        long started = System.nanoTime();
        Run r = run("busy-sockets", "--agent", "relay=127.0.0.1:" + relay.port, "--secret-file", secret.toString());
        assertEquals(0, r.code(), r.output());
        // and every unauthenticated socket is dropped at the handshake deadline (10 s), tricklers included
        for (Thread t : tricklers) {
            t.join(TimeUnit.SECONDS.toMillis(40));
            assertFalse(t.isAlive(), "a trickling socket outlived the handshake deadline");
        }
        for (Socket s : idle) {
            s.setSoTimeout(30_000);
            assertEquals(-1, s.getInputStream().read(), "an idle socket was closed by the agent");
            s.close();
        }
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(60));
        assertTrue(relay.log().contains("did not authenticate within 10000 ms"), relay.log());
        for (Socket s : trickling) {
            s.close();
        }
    }

    // ---- finding 4: bounded resources for unauthenticated peers ----

    @Test
    void fiftyConnectionsOfJunkGrowTheAgentLogByLines() throws Exception {
        Path secret = secretFile("lab-secret-" + System.nanoTime() + "-0123456789");
        Daemon relay = new Daemon("relay", "--role", "relay", "--listen", "127.0.0.1:0", "--secret-file",
                secret.toString());
        byte[] junk = new byte[4096]; // 4096 empty frames each
        List<Socket> socks = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Socket s = new Socket(LO, relay.port);
            s.getOutputStream().write(junk);
            socks.add(s);
        }
        for (Socket s : socks) {
            s.setSoTimeout(30_000);
            s.getInputStream().readAllBytes();
            s.close();
        }
        await(logHas(relay, "refused control connection"), 10, "refusals logged");
        long size = Files.size(relay.log);
        assertTrue(size < 8_192, size + " bytes of log:\n" + relay.log());
        // and the agent still serves
        Run r = run("after-junk", "--agent", "relay=127.0.0.1:" + relay.port, "--secret-file", secret.toString());
        assertEquals(0, r.code(), r.output());
    }

    @Test
    void aFloodingAgentFailsTheRunWithinABoundedCoordinatorHeap() throws Exception {
        try (ServerSocket fake = new ServerSocket(0, 5, InetAddress.getByName(LO))) {
            Thread t = new Thread(() -> {
                try (Socket s = fake.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    Envelope.parseDelimitedFrom(in); // Hello: this fake needs no credentials, on loopback
                    Envelope.newBuilder().setHelloAck(HelloAck.newBuilder().setProtocolVersion(Version.PROTOCOL)
                            .setRole(Role.RELAY).setEnvironment(Environment.newBuilder().setHostname("fake")))
                            .build().writeDelimitedTo(out);
                    byte[] values = new byte[(8 << 20) - 64];
                    Envelope chunk = Envelope.newBuilder().setChunk(TraceChunk.newBuilder().setSeries(Series.SEND_NS)
                            .setValueCount(values.length / 8).setValuesLe(ByteString.copyFrom(values))).build();
                    for (int i = 0; i < 40; i++) { // 320 MiB nothing asked for
                        chunk.writeDelimitedTo(out);
                    }
                    out.flush();
                    in.read();
                } catch (IOException e) {
                    // the coordinator hung up
                }
            });
            t.setDaemon(true);
            t.start();
            // a heap far below what keeping the flood would take (the issue saw 474 MB)
            Run r = coordinator("flood", List.of("-Xmx128m"), "--agent", "relay=127.0.0.1:" + fake.getLocalPort());
            assertEquals(1, r.code(), r.output());
            assertTrue(oneLine(r.output(), "that nothing asked for").contains("relay agent (127.0.0.1:"), r.output());
            assertFalse(r.output().contains("OutOfMemoryError"), r.output());
        }
    }

    // ---- finding 5: no orphans ----

    @Test
    void aKilledCoordinatorLeavesNoAgentBehind() throws Exception {
        for (boolean sigkill : new boolean[]{true, false}) {
            String name = sigkill ? "sigkill" : "sigterm";
            Path out = tmp.resolve(name);
            Process p = new ProcessBuilder(java(), "-jar", MsgscopeProcess.jar().toString(), "run", "--count", "5000000",
                    "--rate", "1000", "--warmup", "0", "--out", out.toString())
                    .redirectErrorStream(true).redirectOutput(tmp.resolve(name + ".txt").toFile()).start();
            // killed as soon as its first agent listens: before it has connected to any
            await(() -> {
                try (var files = Files.list(out)) {
                    return files.filter(f -> f.getFileName().toString().startsWith("agent-")).anyMatch(f -> {
                        try {
                            return Files.readString(f).contains("listening on");
                        } catch (IOException e) {
                            return false;
                        }
                    });
                } catch (IOException e) {
                    return false;
                }
            }, 60, "an agent listens");
            List<ProcessHandle> agents = p.descendants().toList();
            assertFalse(agents.isEmpty(), "the coordinator started agents");
            if (sigkill) {
                p.destroyForcibly();
            } else {
                p.destroy();
            }
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), name + ": the coordinator exits");
            // an agent polls its parent at most every 5 s (ProcessHandle.onExit of a non-child)
            for (ProcessHandle a : agents) {
                await(() -> !a.isAlive(), 20, name + ": agent " + a.pid() + " exits after its coordinator");
            }
        }
    }

    @Test
    void aOnceAgentNobodyConnectsToExitsAtItsDeadlineAndOneWhoseParentDiesExitsToo() throws Exception {
        MsgscopeProcess lonely = MsgscopeProcess.start(tmp.resolve("lonely"), "agent", "--role", "relay", "--listen",
                "127.0.0.1:0", "--once", "--connect-deadline", "2");
        assertEquals(1, lonely.waitFor(30), lonely.err());
        assertEquals("msgscope agent relay: exiting: no coordinator connected within 2 s (--connect-deadline)",
                lonely.err().strip());

        Process parent = new ProcessBuilder("sleep", "300").start();
        MsgscopeProcess child = MsgscopeProcess.start(tmp.resolve("child"), "agent", "--role", "relay", "--listen",
                "127.0.0.1:0", "--once", "--parent-pid", Long.toString(parent.pid()));
        await(() -> {
            try {
                return child.out().contains("listening on");
            } catch (IOException e) {
                return false;
            }
        }, 30, "the agent listens");
        parent.destroyForcibly().waitFor();
        assertEquals(1, child.waitFor(30), child.err());
        assertEquals("msgscope agent relay: exiting: the parent process " + parent.pid() + " exited",
                child.err().strip());
    }

    // ---- mutual TLS with certificates made here ----

    private void certs(String... args) throws Exception {
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("certs-" + System.nanoTime()), args);
        assertEquals(0, p.waitFor(60), p.err());
    }

    @Test
    void mutualTlsRunsAndRefusesAnotherCaAnotherHostAndAnExpiredCertificateOnBothSides() throws Exception {
        Path ca = tmp.resolve("ca");
        certs("certs", "init", ca.toString());
        certs("certs", "issue", "--ca", ca.toString(), "--host", "127.0.0.1", "--host", "localhost");
        certs("certs", "issue", "--ca", ca.toString(), "--host", "coordinator.lab");
        certs("certs", "issue", "--ca", ca.toString(), "--host", "agent.lab", "--out", tmp.resolve("misnamed").toString());
        Path other = tmp.resolve("other-ca");
        certs("certs", "init", other.toString());
        certs("certs", "issue", "--ca", other.toString(), "--host", "coordinator.lab");
        Path coordinator = ca.resolve("coordinator.lab");

        Daemon relay = new Daemon("relay", "--role", "relay", "--listen", "127.0.0.1:0", "--tls-dir",
                ca.resolve("127.0.0.1").toString());
        Run ok = run("tls-ok", "--agent", "relay=127.0.0.1:" + relay.port, "--tls-dir", coordinator.toString());
        assertEquals(0, ok.code(), ok.output());

        // another CA: the coordinator refuses the agent's certificate; the agent hears the alert
        Run foreign = run("tls-other-ca", "--agent", "relay=127.0.0.1:" + relay.port, "--tls-dir",
                other.resolve("coordinator.lab").toString());
        assertEquals(2, foreign.code(), foreign.output());
        assertTrue(oneLine(foreign.output(), "TLS handshake failed").contains(
                "the agent's certificate (CN=127.0.0.1) was not issued by this side's CA"), foreign.output());
        await(logHas(relay, "TLS handshake failed: the peer refused the TLS handshake (alert"), 20, "agent side");

        // a plain coordinator is told to use TLS
        Run plain = run("tls-plain", "--agent", "relay=127.0.0.1:" + relay.port);
        assertEquals(2, plain.code(), plain.output());
        assertTrue(plain.output().contains("this agent requires TLS: give the coordinator --tls-dir"), plain.output());

        // another host name: the certificate names agent.lab, the coordinator dialled 127.0.0.1
        Daemon misnamed = new Daemon("misnamed", "--role", "relay", "--listen", "127.0.0.1:0", "--tls-dir",
                tmp.resolve("misnamed").toString());
        Run wrongHost = run("tls-host", "--agent", "relay=127.0.0.1:" + misnamed.port, "--tls-dir", coordinator.toString());
        assertEquals(2, wrongHost.code(), wrongHost.output());
        assertTrue(oneLine(wrongHost.output(), "TLS handshake failed").contains(
                "the agent's certificate (CN=agent.lab) names agent.lab, not 127.0.0.1"), wrongHost.output());
        await(logHas(misnamed, "TLS handshake failed: the peer refused the TLS handshake (alert certificate_unknown)"),
                20, "agent side");

        // expired: a daemon whose certificate runs out while it serves
        Certificates.Issued caKeys = Certificates.readCa(ca, "--ca");
        Instant now = Instant.now();
        Path shortLived = tmp.resolve("short-lived");
        Certificates.writeHost(shortLived, caKeys.certificate(), Certificates.issue(caKeys, List.of("127.0.0.1"),
                now.minusSeconds(60), now.plusSeconds(8)));
        Daemon expiring = new Daemon("expiring", "--role", "relay", "--listen", "127.0.0.1:0", "--tls-dir",
                shortLived.toString());
        long wait = Duration.between(Instant.now(), now.plusSeconds(9)).toMillis();
        if (wait > 0) {
            Thread.sleep(wait); // the clock is the condition: the certificate's notAfter
        }
        Run expired = run("tls-expired", "--agent", "relay=127.0.0.1:" + expiring.port, "--tls-dir",
                coordinator.toString());
        assertEquals(2, expired.code(), expired.output());
        assertTrue(oneLine(expired.output(), "TLS handshake failed").contains(
                "the agent's certificate (CN=127.0.0.1) expired on"), expired.output());
        await(logHas(expiring, "TLS handshake failed: the peer refused the TLS handshake (alert certificate_unknown)"),
                20, "agent side");
        // and a coordinator whose own certificate expired is stopped before it starts anything
        Run ownExpired = run("tls-own-expired", "--agent", "relay=127.0.0.1:" + relay.port, "--tls-dir",
                shortLived.toString());
        assertEquals(2, ownExpired.code(), ownExpired.output());
        assertTrue(oneLine(ownExpired.output(), "--tls-dir").contains("cert.pem expired on"), ownExpired.output());
    }
}
