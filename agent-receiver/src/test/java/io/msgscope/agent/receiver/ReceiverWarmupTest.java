package io.msgscope.agent.receiver;

import io.msgscope.control.AgentRole;
import io.msgscope.core.driver.Drivers;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.RunSpec;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The receiver's warm-up against a system under test that drops warm-up messages (as Mosquitto does
 * when a subscriber's queue overflows): once the sender reports its warm-up sent, the warm-up ends
 * after the drain timeout with the count that arrived, and the measurement that follows is still
 * counted exactly. Before that report, a short warm-up never ends on its own.
 */
class ReceiverWarmupTest {
    private static final int WARMUP = 100;
    private static final int COUNT = 50;

    /** A phase's outcome as the role reports it (ReceiverPausedDrainTest's too). */
    static final class Listener implements AgentRole.PhaseListener {
        final CompletableFuture<PhaseDone> result = new CompletableFuture<>();

        @Override
        public void done(PhaseDone done) {
            result.complete(done);
        }

        @Override
        public void failed(String message) {
            result.completeExceptionally(new AssertionError(message));
        }
    }

    @Test
    void aWarmupThatStopsArrivingEndsAfterTheDrainTimeoutAndTheMeasurementIsExact() throws Exception {
        ScriptedDriver.ARRIVALS.clear();
        ReceiverRole role = new ReceiverRole(Drivers.load());
        try {
            role.prepare(RunSpec.newBuilder().setDriver("scripted").setCount(COUNT).setWarmupCount(WARMUP)
                    .setSize(64).setPinCpu(-1).setDrainTimeoutMs(300).setCpuEvery(0).build());
            Listener warmup = new Listener();
            role.start(Phase.WARMUP, warmup);
            for (long s = 1; s <= 60; s++) { // 40 of the 100 warm-up messages are dropped
                ScriptedDriver.ARRIVALS.add(-s);
            }
            // the receiver has consumed the 60 and polls on; without the sender's report it keeps waiting
            while (!ScriptedDriver.ARRIVALS.isEmpty()) {
                Thread.onSpinWait();
            }
            assertFalse(warmup.result.isDone(), "warm-up ended before the sender reported it sent");
            role.senderFinished(WARMUP);
            PhaseDone w = warmup.result.get(10, TimeUnit.SECONDS);
            assertEquals(60, w.getReceived());

            Listener measure = new Listener();
            role.start(Phase.MEASURE, measure);
            for (long s = 0; s < COUNT; s++) {
                ScriptedDriver.ARRIVALS.add(s);
            }
            ScriptedDriver.ARRIVALS.add(-61L); // a late warm-up message is counted as warm-up, not measured
            role.senderFinished(COUNT);
            PhaseDone m = measure.result.get(10, TimeUnit.SECONDS);
            assertEquals(COUNT, m.getReceived());
            assertEquals(0, m.getDuplicates());
            assertEquals(0, m.getOutOfRange());
        } finally {
            role.close();
        }
    }
}
