package io.msgscope.agent.receiver;

import io.msgscope.core.driver.Drivers;
import io.msgscope.proto.LoadPhase;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.RunSpec;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The drain timeout (quiet after the sender finished, before the rest counts as lost) does not run while the consumers
 * are paused (issue 31's {@code /paused}): a sender that sent its last message before a long paused hold has finished,
 * but the backlog it left arrives only after the resume. Counted from the sender's end, the quiet ran out during the
 * hold and the kept backlog was counted lost, and where the broker had confirmed it as guarantee violations (issue 32,
 * found by ExpectedLossFaultIT on a JetStream file stream that had kept every message). Here: 100 messages in 0.1 s, a
 * paused hold of 1.5 s, a drain timeout of 1 s; the scripted broker hands the backlog over after the resume.
 */
class ReceiverPausedDrainTest {
    private static final int COUNT = 100;
    private static final long HOLD_MS = 1_500;
    private static final long DRAIN_MS = 1_000;

    @Test
    void aBacklogHeldPastTheDrainTimeoutAfterTheLastSendIsNotLost() throws Exception {
        ScriptedDriver.ARRIVALS.clear();
        ScriptedDriver.PAUSES.set(0);
        ScriptedDriver.RESUMES.set(0);
        ReceiverRole role = new ReceiverRole(Drivers.load());
        try {
            role.prepare(RunSpec.newBuilder().setDriver("scripted").setCount(COUNT).setWarmupCount(0).setSize(64)
                    .setPinCpu(-1).setDrainTimeoutMs(DRAIN_MS).setCpuEvery(0)
                    .addPhases(LoadPhase.newBuilder().setName("base").setDurationNs(100_000_000L).setFromRate(1_000)
                            .setToRate(1_000))
                    .addPhases(LoadPhase.newBuilder().setName("hold").setDurationNs(HOLD_MS * 1_000_000L)
                            .setConsumersPaused(true))
                    .addPhases(LoadPhase.newBuilder().setName("drain").setDurationNs(200_000_000L))
                    .build());
            ReceiverWarmupTest.Listener warmup = new ReceiverWarmupTest.Listener();
            role.start(Phase.WARMUP, warmup);
            role.senderFinished(0);
            warmup.result.get(10, TimeUnit.SECONDS);
            ReceiverWarmupTest.Listener measure = new ReceiverWarmupTest.Listener();
            long go = System.nanoTime();
            role.start(Phase.MEASURE, measure);
            role.senderFinished(COUNT); // every message sent at once: the sender is done before the hold
            // through the hold, well past the drain timeout after the sender's end, nothing arrives
            while (ScriptedDriver.RESUMES.get() == 0 && !measure.result.isDone()) {
                if (System.nanoTime() - go > TimeUnit.SECONDS.toNanos(10)) {
                    throw new AssertionError("never resumed");
                }
                Thread.sleep(5);
            }
            long resumedAfterMs = (System.nanoTime() - go) / 1_000_000;
            assertFalse(measure.result.isDone(), "the measurement ended during the hold, at " + resumedAfterMs + " ms");
            assertEquals(1, ScriptedDriver.PAUSES.get());
            for (long s = 0; s < COUNT; s++) { // the broker hands the backlog over after the resume
                ScriptedDriver.ARRIVALS.add(s);
            }
            PhaseDone m = measure.result.get(10, TimeUnit.SECONDS);
            assertEquals(COUNT, m.getReceived(), "the backlog held through the hold arrived and counts");
            assertEquals(0, m.getDuplicates());
        } finally {
            role.close();
        }
    }
}
