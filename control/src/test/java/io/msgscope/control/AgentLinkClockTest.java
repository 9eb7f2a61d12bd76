package io.msgscope.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.msgscope.core.test.FakeClock;
import io.msgscope.core.test.OnFakeClock;
import io.msgscope.proto.AuthChallenge;
import io.msgscope.proto.AuthOk;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Heartbeat;
import io.msgscope.proto.Role;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.Ticker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The agent link's own times on a fake clock (issue 15), as {@link ControlHubDeadlineTest} checks the hub's: the
 * handshake's deadline counts from the start of {@code connect} on the hub's clock, across every step of the
 * handshake; the heartbeat goes out every 500 ms stamped on that clock, and 2 s without a frame from the agent
 * closes the link. No wall-clock wait: the event loop of the heartbeat test runs on the same fake time.
 */
class AgentLinkClockTest {
    private static final long MS = 1_000_000L;
    private static final long START = 7_000 * MS;
    private static final Duration WALL = Duration.ofSeconds(4);

    private final FakeClock fake = new FakeClock(START);
    private ControlHub hub;
    private Thread agent;

    @AfterEach
    void close() throws InterruptedException {
        if (hub != null) {
            hub.close();
        }
        if (agent != null) {
            agent.interrupt();
            agent.join(2_000);
        }
    }

    /**
     * An agent that proves the shared secret, each answer taking a second of the clock, and then never answers
     * Hello: the handshake fails at its deadline, 5 s after connect began, with what was left of it (3 s) for Hello.
     */
    @Test
    void theHandshakeDeadlineCoversEveryStepOnTheHubsClock() throws Exception {
        SharedSecret secret = SharedSecret.random();
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        int port = server.getLocalPort();
        ControlCredentials.registerLocal(port, secret);
        agent = new Thread(() -> authenticateOnly(server, secret), "fake-agent");
        agent.start();
        hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME, ControlCredentials.NONE, new AnswerClock(fake, 2));
        try {
            AgentFailure f = assertTimeoutPreemptively(WALL, () -> assertThrows(AgentFailure.class,
                    () -> AgentLink.connect(hub, Role.RECEIVER, "127.0.0.1", port, 5_000, () -> null)));
            assertEquals("receiver agent (127.0.0.1:" + port + "): no answer within 3000 ms during the handshake",
                    f.getMessage());
            assertEquals(START + 5_000 * MS, fake.nanoTime(), "failed at connect's deadline, not 5 s after the proofs");
        } finally {
            ControlCredentials.forgetLocal(port);
        }
    }

    @Test
    void heartbeatsGoOutEveryHalfSecondStampedOnTheClock() {
        EmbeddedChannel ch = EmbeddedChannel.builder().ticker(new ClockTicker(fake)).build();
        keptAlive(ch);
        at(ch, 499);
        assertNull(ch.readOutbound(), "no heartbeat before 500 ms");
        at(ch, 500);
        Envelope beat = ch.readOutbound();
        assertEquals(Envelope.BodyCase.HEARTBEAT, beat.getBodyCase());
        assertEquals(START + 500 * MS, beat.getHeartbeat().getNanos(), "stamped on the clock");
        at(ch, 999);
        assertNull(ch.readOutbound());
        at(ch, 1_000);
        assertEquals(START + 1_000 * MS, ((Envelope) ch.readOutbound()).getHeartbeat().getNanos());
        assertNull(ch.readOutbound(), "one heartbeat a period");
    }

    @Test
    void twoSecondsWithoutAFrameFromTheAgentCloseTheLink() {
        EmbeddedChannel ch = EmbeddedChannel.builder().ticker(new ClockTicker(fake)).build();
        AgentLink link = keptAlive(ch);
        at(ch, 1_500);
        ch.writeInbound(Envelope.newBuilder().setHeartbeat(Heartbeat.newBuilder().setProgress(5)).build());
        at(ch, 3_499);
        assertTrue(ch.isOpen(), "the agent answered at 1.5 s: silent for 1999 ms only");
        at(ch, 3_500);
        assertFalse(ch.isOpen(), "silent for 2 s");
        assertEquals("control connection lost (no heartbeat from the agent for 2000 ms)", link.lossReason());
    }

    /**
     * Issue 28: before the handshake nobody asked for a heartbeat, so an agent's heartbeats count toward the cap on
     * frames nothing asked for: the one over {@link ControlHub#EARLY_MAX_FRAMES} closes the link, and none of them
     * reaches the hub.
     */
    @Test
    void heartbeatsNobodyAskedForBeforeTheHandshakeCloseTheLinkOverTheCap() {
        EmbeddedChannel ch = EmbeddedChannel.builder().ticker(new ClockTicker(fake)).build();
        hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME, ControlCredentials.NONE, fake);
        AgentLink link = new AgentLink("receiver agent (test)", Role.RECEIVER, ch, () -> null, fake);
        ch.pipeline().addLast(new AgentLinkInbound(hub, () -> link));
        for (int i = 0; i < ControlHub.EARLY_MAX_FRAMES; i++) {
            ch.writeInbound(beat(i));
        }
        assertTrue(ch.isOpen(), "at the cap");
        assertEquals(0, hub.maxQueuedBytes(), "heartbeats never reach the hub");
        ch.writeInbound(beat(1));
        assertFalse(ch.isOpen(), "over the cap");
        assertEquals("control connection lost (sent more than 1024 frames or 16 MiB that nothing asked for "
                + "(last: HEARTBEAT); link closed)", link.lossReason());
    }

    /** After the handshake each of our heartbeats allows one answer; the cap counts the rest. */
    @Test
    void afterTheHandshakeOnlyAnswersAreFreeAndTheirProgressIsNoted() {
        EmbeddedChannel ch = EmbeddedChannel.builder().ticker(new ClockTicker(fake)).build();
        hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME, ControlCredentials.NONE, fake);
        AgentLink link = keptAlive(ch);
        ch.pipeline().addLast(new AgentLinkInbound(hub, () -> link));
        at(ch, 1_000);
        assertEquals(Envelope.BodyCase.HEARTBEAT, ((Envelope) ch.readOutbound()).getBodyCase());
        assertEquals(Envelope.BodyCase.HEARTBEAT, ((Envelope) ch.readOutbound()).getBodyCase());
        ch.writeInbound(beat(7), beat(9)); // the answers to our two
        assertEquals(9, link.progress());
        for (int i = 0; i < ControlHub.EARLY_MAX_FRAMES; i++) {
            ch.writeInbound(beat(100));
        }
        assertTrue(ch.isOpen(), "two answers and 1024 unasked: at the cap");
        assertEquals(9, link.progress(), "an unasked heartbeat's progress is not taken");
        ch.writeInbound(beat(100));
        assertFalse(ch.isOpen(), "over the cap");
        assertEquals(0, hub.maxQueuedBytes(), "heartbeats never reach the hub");
    }

    private static Envelope beat(long progress) {
        return Envelope.newBuilder().setHeartbeat(Heartbeat.newBuilder().setProgress(progress)).build();
    }

    /** A link over {@code ch} once its handshake is done: heartbeats and the silence check started. */
    private AgentLink keptAlive(EmbeddedChannel ch) {
        AgentLink link = new AgentLink("receiver agent (test)", Role.RECEIVER, ch, () -> null, fake);
        link.keepAlive();
        ch.runPendingTasks();
        return link;
    }

    /** Moves the clock to {@code ms} after the start and runs what the event loop has due by then. */
    private void at(EmbeddedChannel ch, long ms) {
        fake.advance(START + ms * MS - fake.nanoTime());
        ch.runScheduledPendingTasks();
    }

    /** Answers the coordinator's nonce with a true proof and its proof with AuthOk; reads Hello and says nothing. */
    private static void authenticateOnly(ServerSocket server, SharedSecret secret) {
        try (server; Socket s = server.accept()) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] agentNonce = SharedSecret.nonce();
            for (Envelope env; (env = Envelope.parseDelimitedFrom(in)) != null; ) {
                if (env.getBodyCase() == Envelope.BodyCase.AUTH_REQUEST) {
                    byte[] cn = env.getAuthRequest().getCoordinatorNonce().toByteArray();
                    Envelope.newBuilder().setAuthChallenge(AuthChallenge.newBuilder().setRequired(true)
                            .setAgentNonce(ByteString.copyFrom(agentNonce))
                            .setAgentProof(ByteString.copyFrom(secret.agentProof(cn, agentNonce, new byte[0]))))
                            .build().writeDelimitedTo(out);
                } else if (env.getBodyCase() == Envelope.BodyCase.AUTH_RESPONSE) {
                    Envelope.newBuilder().setAuthOk(AuthOk.getDefaultInstance()).build().writeDelimitedTo(out);
                }
                out.flush();
            }
        } catch (IOException e) {
            // the coordinator closed the link: done
        }
    }

    /**
     * The fake clock, on which each of the agent's first {@code answers} frames arrives a second after it was
     * asked for: the wait for it blocks (on loopback, briefly) until it is there, then the clock moves on 1 s.
     */
    private static final class AnswerClock extends OnFakeClock {
        private int answers;

        AnswerClock(FakeClock fake, int answers) {
            super(fake);
            this.answers = answers;
        }

        @Override
        public <T> T poll(BlockingQueue<T> queue, long ns) throws InterruptedException {
            if (answers == 0) {
                return fake.poll(queue, ns);
            }
            T head = queue.poll(2, TimeUnit.SECONDS);
            if (head != null) {
                answers--;
                fake.advance(1_000 * MS);
            }
            return head;
        }
    }

    /** Netty's time for an event loop, read on the fake clock. */
    private record ClockTicker(FakeClock fake, long initialNanoTime) implements Ticker {
        ClockTicker(FakeClock fake) {
            this(fake, fake.nanoTime());
        }

        @Override
        public long nanoTime() {
            return fake.nanoTime();
        }

        @Override
        public void sleep(long delay, TimeUnit unit) {
            fake.advance(unit.toNanos(delay));
        }
    }
}
