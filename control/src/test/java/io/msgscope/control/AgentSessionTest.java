package io.msgscope.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.msgscope.core.Version;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.ErrorReport;
import io.msgscope.proto.Go;
import io.msgscope.proto.Heartbeat;
import io.msgscope.proto.Hello;
import io.msgscope.proto.HelloAck;
import io.msgscope.proto.Phase;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.SenderFinished;
import io.msgscope.proto.Series;
import io.msgscope.proto.UploadRequest;
import io.msgscope.proto.Bye;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's session handler on an {@link EmbeddedChannel} ({@link EmbeddedAgent}), frames fed in
 * fragments; the shared secret's handshake is {@link AgentAuthTest}.
 */
class AgentSessionTest {
    private static final int CAP = EmbeddedAgent.CAP;
    private static final long WAIT_MS = EmbeddedAgent.WAIT_MS;

    private final FakeRole.Factory factory = new FakeRole.Factory();
    private final List<EmbeddedAgent> sessions = new ArrayList<>();

    /** A new connection to an agent without a secret, closed after the test. */
    private EmbeddedAgent session() {
        EmbeddedAgent s = new EmbeddedAgent(factory, null);
        sessions.add(s);
        return s;
    }

    @AfterEach
    void closeAll() {
        for (EmbeddedAgent s : sessions) {
            s.close();
        }
    }

    private static Envelope spec(long count) {
        return Envelope.newBuilder().setSpec(RunSpec.newBuilder().setRunId("r1").setCount(count).setSize(64)
                .setBindHost("127.0.0.1").setPinCpu(-1)).build();
    }

    @Test
    void helloIsAcknowledged() throws Exception {
        EmbeddedAgent s = session();
        HelloAck ack = s.handshake();
        assertEquals(Version.PROTOCOL, ack.getProtocolVersion());
        assertEquals(Role.RELAY, ack.getRole());
        assertEquals(Version.TOOL, ack.getToolVersion());
        assertEquals(ProcessHandle.current().pid(), ack.getPid());
        assertTrue(ack.getEnvironment().getLogicalCores() > 0);
        assertTrue(s.ch.isOpen());
        assertEquals(0, s.ended.get());
        assertTrue(factory.made.isEmpty(), "no role before the spec");
    }

    @Test
    void wrongProtocolVersionIsAUsageErrorNamingBothVersions() throws Exception {
        EmbeddedAgent s = session();
        int theirs = Version.PROTOCOL + 41;
        s.send(EmbeddedAgent.hello(theirs, Role.RELAY));
        ErrorReport err = s.next(Envelope.BodyCase.ERROR).getError();
        assertTrue(err.getUsage());
        assertEquals(Role.RELAY, err.getRole());
        assertTrue(err.getMessage().contains("agent speaks " + Version.PROTOCOL), err.getMessage());
        assertTrue(err.getMessage().contains("coordinator speaks " + theirs), err.getMessage());
        assertTrue(err.getMessage().contains("9.9.9") && err.getMessage().contains(Version.TOOL), err.getMessage());
        assertTrue(s.closed());
        assertEquals(1, s.ended.get());
        assertTrue(s.nothingMoreWritten());
    }

    @Test
    void wrongRoleIsAUsageError() throws Exception {
        EmbeddedAgent s = session();
        s.send(EmbeddedAgent.hello(Version.PROTOCOL, Role.SENDER));
        ErrorReport err = s.next(Envelope.BodyCase.ERROR).getError();
        assertTrue(err.getUsage());
        assertEquals("this agent serves the role relay, not sender", err.getMessage());
        assertTrue(s.closed());
    }

    @Test
    void specBeforeHelloIsRejected() throws Exception {
        EmbeddedAgent s = session();
        s.send(spec(10));
        ErrorReport err = s.next(Envelope.BodyCase.ERROR).getError();
        assertFalse(err.getUsage());
        assertTrue(err.getMessage().contains("run spec received out of order"), err.getMessage());
        assertTrue(err.getMessage().contains("HELLO"), err.getMessage());
        assertTrue(s.closed());
        assertTrue(factory.made.isEmpty());
    }

    @Test
    void goBeforeSpecIsRejected() throws Exception {
        EmbeddedAgent s = session();
        s.handshake();
        s.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.MEASURE)).build());
        ErrorReport err = s.next(Envelope.BodyCase.ERROR).getError();
        assertEquals("go before the run spec was accepted", err.getMessage());
        assertTrue(s.closed());
    }

    @Test
    void secondHelloIsRejected() throws Exception {
        EmbeddedAgent s = session();
        s.handshake();
        s.send(EmbeddedAgent.hello(Version.PROTOCOL, Role.RELAY));
        assertEquals("second handshake on one connection", s.next(Envelope.BodyCase.ERROR).getError().getMessage());
        assertTrue(s.closed());
    }

    /** Issue 31: a role's word that a drain ended goes out as its own frame, and the frame coming in reaches the role. */
    @Test
    void aDrainsEndGoesOutAsAFrameAndComesInToTheRole() throws Exception {
        EmbeddedAgent s = session();
        s.handshake();
        s.send(spec(FakeRole.DRAINING_COUNT));
        s.next(Envelope.BodyCase.READY);
        s.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.WARMUP)).build());
        s.next(Envelope.BodyCase.PHASE_DONE);
        s.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.MEASURE)).build());
        io.msgscope.proto.PhaseEnd told = s.next(Envelope.BodyCase.PHASE_END).getPhaseEnd();
        assertEquals(2, told.getPhase());
        assertEquals("drained", told.getEndedBy());
        s.next(Envelope.BodyCase.PHASE_DONE);
        s.send(Envelope.newBuilder().setPhaseEnd(io.msgscope.proto.PhaseEnd.newBuilder().setPhase(2)
                .setDurationNs(250_000_000L).setEndedBy("drained")).build());
        FakeRole role = factory.made.get(0);
        assertTrue(role.calls.contains("phaseEnded 2 250000000"), role.calls::toString);
    }

    @Test
    void fullLifecycle() throws Exception {
        EmbeddedAgent s = session();
        s.handshake();
        Envelope spec = spec(70_000);
        s.send(spec);
        assertEquals(FakeRole.INGRESS_PORT, s.next(Envelope.BodyCase.READY).getReady().getIngressPort());
        assertEquals(1, factory.made.size());
        FakeRole role = factory.made.get(0);
        assertEquals(spec.getSpec(), role.spec);

        s.send(Envelope.newBuilder().setHeartbeat(Heartbeat.newBuilder().setNanos(1)).build());
        assertTrue(s.next(Envelope.BodyCase.HEARTBEAT).getHeartbeat().getNanos() != 0);

        s.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.WARMUP)).build());
        assertEquals(Phase.WARMUP, s.next(Envelope.BodyCase.PHASE_DONE).getPhaseDone().getPhase());
        s.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.MEASURE)).build());
        assertEquals(70_000, s.next(Envelope.BodyCase.PHASE_DONE).getPhaseDone().getSent());
        s.send(Envelope.newBuilder().setSenderFinished(SenderFinished.newBuilder().setSent(69_999)).build());

        long[] values = new long[70_000]; // more than one chunk
        for (int i = 0; i < values.length; i++) {
            values[i] = 1_000_000_000L + 3L * i;
        }
        role.upload = values;
        s.send(Envelope.newBuilder().setUploadRequest(UploadRequest.newBuilder()).build());
        long[] received = new long[values.length];
        Envelope c1 = s.next(Envelope.BodyCase.CHUNK);
        Envelope c2 = s.next(Envelope.BodyCase.CHUNK);
        assertEquals(Series.SEND_NS, c1.getChunk().getSeries());
        assertEquals(Frames.CHUNK_VALUES, c1.getChunk().getValueCount());
        assertEquals(Frames.CHUNK_VALUES, c2.getChunk().getOffset());
        Frames.copyInto(c1.getChunk(), received);
        Frames.copyInto(c2.getChunk(), received);
        assertArrayEquals(values, received);
        assertEquals(2, s.next(Envelope.BodyCase.UPLOAD_DONE).getUploadDone().getChunks());

        s.send(Envelope.newBuilder().setBye(Bye.getDefaultInstance()).build());
        assertTrue(s.closed());
        assertTrue(role.closed.await(WAIT_MS, TimeUnit.MILLISECONDS), "role closed when the connection ends");
        assertEquals(List.of("prepare", "start WARMUP", "start MEASURE", "senderFinished 69999", "upload", "close"),
                role.calls);
        awaitEnded(s);
    }

    @Test
    void specRejectedByTheRoleIsAUsageError() throws Exception {
        EmbeddedAgent s = session();
        s.handshake();
        s.send(spec(0));
        ErrorReport err = s.next(Envelope.BodyCase.ERROR).getError();
        assertTrue(err.getUsage());
        assertTrue(err.getMessage().startsWith("--count: must be between 1"), err.getMessage());
    }

    @Test
    void garbageClosesTheConnectionWithoutKillingTheAgent() throws Exception {
        EmbeddedAgent first = session();
        first.handshake();
        first.send(spec(10));
        first.next(Envelope.BodyCase.READY);
        // a valid length prefix, then bytes that are no Envelope (field 1 announces 5 bytes, has 1)
        first.sendRaw(Wire.concat(Wire.varint(3), new byte[] {0x0A, 0x05, 0x01}));
        assertTrue(first.closed());
        awaitEnded(first); // after the role's close, on the session's worker
        FakeRole role1 = factory.made.get(0);
        assertTrue(role1.closed.await(WAIT_MS, TimeUnit.MILLISECONDS), "the run's role is released");

        EmbeddedAgent second = session();
        HelloAck ack = second.handshake();
        assertEquals(Version.PROTOCOL, ack.getProtocolVersion());
        second.send(spec(20));
        assertEquals(FakeRole.INGRESS_PORT, second.next(Envelope.BodyCase.READY).getReady().getIngressPort());
        assertEquals(2, factory.made.size());
        assertEquals(20, factory.made.get(1).spec.getCount());
        assertTrue(second.ch.isOpen());
    }

    @Test
    void oversizedFrameClosesTheConnection() throws Exception {
        EmbeddedAgent s = session();
        s.handshake();
        s.sendRaw(Wire.varint(CAP + 1));
        assertTrue(s.closed());
        assertEquals(1, s.ended.get());
        assertTrue(s.nothingMoreWritten());

        EmbeddedAgent next = session();
        assertNotNull(next.handshake());
    }

    /** The session ends once its role has closed (on the worker thread): wait for it, at most WAIT_MS. */
    private static void awaitEnded(EmbeddedAgent s) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (s.ended.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(1, s.ended.get());
    }
}
