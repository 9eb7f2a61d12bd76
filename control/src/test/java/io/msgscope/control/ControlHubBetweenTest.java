package io.msgscope.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.msgscope.core.NanoClock;
import io.msgscope.proto.ClockProbe;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Role;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Work between a wait's looks at the inbox (issue 33 item 3: a trace run's clock probes while it waits for the
 * measurement's end): the task may wait itself, and the frame the outer wait wants, arriving during the task's own
 * wait, is still the outer wait's; the task does not run inside itself; its failure ends the wait.
 */
class ControlHubBetweenTest {
    private final ControlHub hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME, ControlCredentials.NONE, NanoClock.SYSTEM);
    private final AgentLink link = new AgentLink("sender agent (test)", Role.SENDER, new EmbeddedChannel(), () -> null,
            NanoClock.SYSTEM);

    ControlHubBetweenTest() {
        hub.register(link);
    }

    @AfterEach
    void close() {
        hub.close();
    }

    @Test
    void aFrameThatCameDuringTheTasksOwnWaitIsTheOuterWaits() {
        Envelope done = Envelope.newBuilder().setPhaseDone(PhaseDone.newBuilder().setSent(7)).build();
        Envelope probe = Envelope.newBuilder().setClockProbe(ClockProbe.newBuilder().setCoordinatorNs(1)).build();
        AtomicInteger runs = new AtomicInteger();
        hub.between(() -> {
            if (runs.incrementAndGet() == 1) {
                hub.deliver(link, done);  // the outer wait's frame first,
                hub.deliver(link, probe); // then the answer the task waits for
                assertSame(probe, hub.await(link, 1_000, "a clock probe", Envelope.BodyCase.CLOCK_PROBE));
            }
        });
        Envelope got = assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> hub.await(link, 3_000, "the measurement", Envelope.BodyCase.PHASE_DONE));
        assertSame(done, got);
        assertEquals(1, runs.get(), "the task's own wait does not run the task again");
    }

    @Test
    void theTasksFailureEndsTheWait() {
        hub.between(() -> {
            throw new AgentFailure("receiver agent (test)", "no answer to a clock probe", false);
        });
        AgentFailure f = assertThrows(AgentFailure.class,
                () -> hub.await(link, 3_000, "the measurement", Envelope.BodyCase.PHASE_DONE));
        assertEquals("receiver agent (test): no answer to a clock probe", f.getMessage());
        hub.between(null);
        hub.deliver(link, Envelope.newBuilder().setPhaseDone(PhaseDone.getDefaultInstance()).build());
        assertEquals(Envelope.BodyCase.PHASE_DONE,
                assertTimeoutPreemptively(Duration.ofSeconds(5), () -> hub.await(link, 3_000, "the measurement",
                        Envelope.BodyCase.PHASE_DONE)).getBodyCase());
    }
}
