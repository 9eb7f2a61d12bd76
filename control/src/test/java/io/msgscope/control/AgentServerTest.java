package io.msgscope.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.core.SpecException;
import io.msgscope.core.Version;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Go;
import io.msgscope.proto.Phase;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** Agent server, control hub and agent links over real loopback sockets, with a fake role. */
class AgentServerTest {
    private static final String HOST = "127.0.0.1";
    private static final long TIMEOUT_MS = 10_000;

    private final FakeRole.Factory factory = new FakeRole.Factory();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private AgentServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = AgentServer.start(HOST, 0, Role.RELAY, factory, false, ControlCodec.DEFAULT_MAX_FRAME);
        assertTrue(server.port() > 0);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        server.close();
        assertTrue(awaitTermination(server), "agent server terminated");
    }

    private static boolean awaitTermination(AgentServer s) throws InterruptedException {
        Thread t = new Thread(() -> {
            try {
                s.awaitTermination();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.setDaemon(true);
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(10));
        return !t.isAlive();
    }

    private ControlHub hub() {
        ControlHub hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME);
        toClose.add(hub);
        return hub;
    }

    private AgentLink connect(ControlHub hub, Role role) throws AgentFailure {
        return AgentLink.connect(hub, role, HOST, server.port(), TIMEOUT_MS, () -> null);
    }

    /**
     * Issue 16: an agent whose measurement failed still uploads its trace. The plain wait ends on its earlier ERROR
     * frame; the wait for one agent's upload sets that stale error aside and takes the chunks.
     */
    @Test
    void aFailedMeasurementsTraceIsStillUploadedPastItsStaleError() throws Exception {
        ControlHub hub = hub();
        AgentLink link = connect(hub, Role.RELAY);
        link.send(Envelope.newBuilder().setSpec(RunSpec.newBuilder().setCount(FakeRole.FAILING_COUNT)).build());
        hub.await(link, TIMEOUT_MS, "set-up", Envelope.BodyCase.READY);
        factory.made.get(factory.made.size() - 1).upload = new long[] {11, 22, 33};
        link.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.MEASURE)).build());
        AgentFailure f = assertThrows(AgentFailure.class,
                () -> hub.await(link, TIMEOUT_MS, "measure", Envelope.BodyCase.PHASE_DONE));
        assertTrue(f.getMessage().contains("sending failed after 3"), f.getMessage());

        // the same error once more, unread, before the upload request: the upload must look past it
        link.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.MEASURE)).build());
        Thread.sleep(200);
        link.send(Envelope.newBuilder().setUploadRequest(io.msgscope.proto.UploadRequest.newBuilder()
                .setChunkValues(Frames.CHUNK_VALUES)).build());
        List<String> aside = new java.util.ArrayList<>();
        Envelope chunk = hub.awaitOnly(link, TIMEOUT_MS, "upload", m -> !m.startsWith("upload"), aside::add,
                Envelope.BodyCase.CHUNK, Envelope.BodyCase.UPLOAD_DONE);
        assertEquals(Envelope.BodyCase.CHUNK, chunk.getBodyCase());
        assertEquals(3, chunk.getChunk().getValueCount());
        assertEquals(Envelope.BodyCase.UPLOAD_DONE, hub.awaitOnly(link, TIMEOUT_MS, "upload",
                m -> !m.startsWith("upload"), aside::add, Envelope.BodyCase.CHUNK, Envelope.BodyCase.UPLOAD_DONE)
                .getBodyCase());
        assertEquals(1, aside.size(), aside::toString);
        assertTrue(aside.get(0).contains("sending failed after 3"), aside::toString);
    }

    /** Issue 18: no fixed budget while the agent makes progress (and a stall fails within the limit, below). */
    @Test
    void aWaitGoesOnWhileTheAgentProgresses() throws Exception {
        ControlHub hub = hub();
        AgentLink link = connect(hub, Role.RELAY);
        link.send(Envelope.newBuilder().setSpec(RunSpec.newBuilder().setCount(FakeRole.SLOW_COUNT)).build());
        hub.await(link, TIMEOUT_MS, "set-up", Envelope.BodyCase.READY);
        link.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.MEASURE)).build());
        // 12 steps of 400 ms (4.8 s) against a stall limit of 2.5 s: it must wait past the limit
        assertEquals(FakeRole.SLOW_COUNT, hub.awaitProgressing(link, link, 2_500, "measure",
                Envelope.BodyCase.PHASE_DONE).getPhaseDone().getSent());
        assertTrue(link.progress() > 0, "the heartbeat answers carried the progress: " + link.progress());
    }

    @Test
    void aStalledAgentFailsTheWaitWithinTheStallLimit() throws Exception {
        ControlHub hub = hub();
        AgentLink link = connect(hub, Role.RELAY);
        link.send(Envelope.newBuilder().setSpec(RunSpec.newBuilder().setCount(FakeRole.STUCK_COUNT)).build());
        hub.await(link, TIMEOUT_MS, "set-up", Envelope.BodyCase.READY);
        link.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.MEASURE)).build());
        AgentFailure stuck = assertThrows(AgentFailure.class,
                () -> hub.awaitProgressing(link, link, 1_500, "measure", Envelope.BodyCase.PHASE_DONE));
        assertEquals(link.name() + ": no progress for 1500 ms during measure (" + link.name() + " at 0 messages)",
                stuck.getMessage());
    }

    @Test
    void handshakeAndARunStep() throws Exception {
        ControlHub hub = hub();
        AgentLink link = connect(hub, Role.RELAY);
        assertEquals(Version.PROTOCOL, link.helloAck().getProtocolVersion());
        assertEquals(Role.RELAY, link.helloAck().getRole());
        assertEquals(ProcessHandle.current().pid(), link.helloAck().getPid());
        assertEquals("relay agent (127.0.0.1:" + server.port() + ")", link.name());
        assertEquals(List.of(link), hub.links());

        link.send(Envelope.newBuilder().setSpec(RunSpec.newBuilder().setCount(5)).build());
        Envelope ready = hub.await(link, TIMEOUT_MS, "set-up", Envelope.BodyCase.READY);
        assertEquals(FakeRole.INGRESS_PORT, ready.getReady().getIngressPort());
        link.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.MEASURE)).build());
        assertEquals(5, hub.await(link, TIMEOUT_MS, "measure", Envelope.BodyCase.PHASE_DONE).getPhaseDone()
                .getSent());
    }

    @Test
    void secondConcurrentConnectionIsToldTheAgentIsBusy() throws Exception {
        AgentLink first = connect(hub(), Role.RELAY);
        AgentFailure busy = assertThrows(AgentFailure.class, () -> connect(hub(), Role.RELAY));
        assertTrue(busy.getMessage().contains("agent busy"), busy.getMessage());
        // issue 28: without credentials the agent never authenticates, so its refusal is the coordinator's verdict
        assertTrue(busy.getMessage().contains("refused the connection before authenticating"), busy.getMessage());
        assertTrue(busy.usage());
        assertTrue(busy.agent().startsWith("relay agent"), busy.agent());

        // the first session is unaffected
        first.send(Envelope.newBuilder().setSpec(RunSpec.newBuilder().setCount(3)).build());
        assertEquals(FakeRole.INGRESS_PORT, hub1(first).await(first, TIMEOUT_MS, "set-up",
                Envelope.BodyCase.READY).getReady().getIngressPort());
    }

    private ControlHub hub1(AgentLink link) {
        for (AutoCloseable c : toClose) {
            if (c instanceof ControlHub h && h.links().contains(link)) {
                return h;
            }
        }
        throw new AssertionError("no hub for " + link.name());
    }

    @Test
    void agentKeepsServingAfterASessionEnds() throws Exception {
        AgentLink first = connect(hub(), Role.RELAY);
        first.send(Envelope.newBuilder().setSpec(RunSpec.newBuilder().setCount(3)).build());
        hub1(first).await(first, TIMEOUT_MS, "set-up", Envelope.BodyCase.READY);
        first.close();
        assertTrue(factory.made.get(0).closed.await(TIMEOUT_MS, TimeUnit.MILLISECONDS),
                "the ended session releases its role");

        // the server notices the end asynchronously: until then a new coordinator is told it is busy
        AgentLink second = connectWhenNotBusy();
        assertEquals(Version.PROTOCOL, second.helloAck().getProtocolVersion());
        second.send(Envelope.newBuilder().setSpec(RunSpec.newBuilder().setCount(4)).build());
        hub1(second).await(second, TIMEOUT_MS, "set-up", Envelope.BodyCase.READY);
        assertEquals(2, factory.made.size());
        assertEquals(4, factory.made.get(1).spec.getCount());
    }

    /** Connects, retrying while the agent still reports the previous session (bounded). */
    private AgentLink connectWhenNotBusy() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        while (true) {
            try {
                return connect(hub(), Role.RELAY);
            } catch (AgentFailure e) {
                if (!e.getMessage().contains("agent busy") || System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    @Test
    void wrongRoleFailsNamingTheRole() {
        AgentFailure e = assertThrows(AgentFailure.class, () -> connect(hub(), Role.SENDER));
        assertTrue(e.getMessage().contains("serves the role relay, not sender"), e.getMessage());
        assertTrue(e.agent().startsWith("sender agent"), e.agent());
        assertTrue(e.usage());
    }

    @Test
    void crashedAgentFailsTheWaitInsteadOfHangingIt() throws Exception {
        ControlHub hub = hub();
        AtomicReference<String> death = new AtomicReference<>();
        AgentLink link = AgentLink.connect(hub, Role.RELAY, HOST, server.port(), TIMEOUT_MS, death::get);
        death.set("agent process 123 exited with code 1");
        AgentFailure e = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(AgentFailure.class,
                () -> hub.await(link, 60_000, "the measurement", Envelope.BodyCase.PHASE_DONE)));
        assertEquals(link.name() + ": agent process 123 exited with code 1 during the measurement", e.getMessage());
        assertFalse(e.usage());
    }

    @Test
    void connectingToNothingSaysSo() throws Exception {
        int freePort;
        try (ServerSocket s = new ServerSocket(0)) {
            freePort = s.getLocalPort();
        }
        AgentFailure e = assertThrows(AgentFailure.class,
                () -> AgentLink.connect(hub(), Role.RELAY, HOST, freePort, TIMEOUT_MS, () -> null));
        assertTrue(e.getMessage().contains("cannot connect"), e.getMessage());
        AgentFailure dead = assertThrows(AgentFailure.class, () -> AgentLink.connect(hub(), Role.RELAY, HOST,
                freePort, TIMEOUT_MS, () -> "agent process 7 exited with code 3"));
        assertTrue(dead.getMessage().endsWith("agent process 7 exited with code 3"), dead.getMessage());
    }

    @Test
    void portInUseIsAListenError() throws Exception {
        SpecException e = assertThrows(SpecException.class, () -> AgentServer.start(HOST, server.port(),
                Role.RELAY, factory, false, ControlCodec.DEFAULT_MAX_FRAME));
        assertEquals("--listen", e.option());
        assertTrue(e.getMessage().contains(HOST + ":" + server.port()), e.getMessage());
    }
}
