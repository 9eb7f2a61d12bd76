package io.msgscope.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.msgscope.core.test.FakeClock;
import io.msgscope.core.test.OnFakeClock;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Role;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;

/**
 * The hub's deadlines on a fake clock (issue 15): a frame that arrives before the deadline is taken, none fails
 * the wait naming its time-out, and a stall limit counts from the agent's last progress, all without waiting
 * for the seconds they span (each wait is bounded well under its own deadline in wall-clock time).
 */
class ControlHubDeadlineTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long START = 7 * SECOND;
    private static final Duration WALL = Duration.ofSeconds(4);

    private final EventClock clock = new EventClock(new FakeClock(START));
    private final ControlHub hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME, ControlCredentials.NONE, clock);
    private final AgentLink link = new AgentLink("receiver agent (test)", Role.RECEIVER, new EmbeddedChannel(),
            () -> null, clock);

    ControlHubDeadlineTest() {
        hub.register(link);
    }

    @AfterEach
    void close() {
        hub.close();
    }

    @Test
    void aFrameArrivingBeforeTheDeadlineIsTaken() {
        Envelope done = Envelope.newBuilder().setPhaseDone(PhaseDone.newBuilder().setSent(42)).build();
        clock.at(START + 3 * SECOND, () -> hub.deliver(link, done));
        Envelope got = assertTimeoutPreemptively(WALL,
                () -> hub.await(link, 5_000, "measure", Envelope.BodyCase.PHASE_DONE));
        assertSame(done, got);
        assertEquals(START + 3 * SECOND, clock.nanoTime(), "taken when it arrived, 2 s before the deadline");
    }

    @Test
    void noFrameFailsTheWaitAtItsDeadlineNamingTheTimeOut() {
        AgentFailure f = assertTimeoutPreemptively(WALL, () -> assertThrows(AgentFailure.class,
                () -> hub.await(link, 5_000, "measure", Envelope.BodyCase.PHASE_DONE)));
        assertEquals("receiver agent (test): no answer within 5000 ms during measure", f.getMessage());
        assertEquals("receiver agent (test)", f.agent());
        assertEquals(START + 5 * SECOND, clock.nanoTime(), "failed at the deadline, not before or after");
    }

    @Test
    void aStallLimitCountsFromTheLastProgress() {
        clock.at(START + SECOND, () -> link.heard(5));
        AgentFailure f = assertTimeoutPreemptively(WALL, () -> assertThrows(AgentFailure.class,
                () -> hub.awaitProgressing(link, link, 2_500, "measure", Envelope.BodyCase.PHASE_DONE)));
        assertEquals("receiver agent (test): no progress for 2500 ms during measure "
                + "(receiver agent (test) at 5 messages)", f.getMessage());
        assertEquals(START + 3_500_000_000L, clock.nanoTime(), "2.5 s after the progress at 1 s");
    }

    /** The fake clock, on which an event (a frame arriving, progress reported) happens once it reads a given time. */
    private static final class EventClock extends OnFakeClock {
        private long atNs;
        private Runnable event;

        EventClock(FakeClock fake) {
            super(fake);
        }

        void at(long ns, Runnable e) {
            atNs = ns;
            event = e;
        }

        @Override
        public <T> T poll(BlockingQueue<T> queue, long ns) {
            if (event != null && fake.nanoTime() >= atNs) {
                Runnable e = event;
                event = null;
                e.run();
            }
            return fake.poll(queue, ns);
        }
    }
}
