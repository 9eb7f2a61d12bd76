package io.msgscope.agent.sender;

import io.msgscope.control.AgentRole;
import io.msgscope.core.test.FakeClock;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.PhaseEnd;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sender's wait at a phase that lasts until drained (issue 31), on a clock that moves only when the gate waits:
 * 10 ms at 10k (messages 0-99), 10 ms at 10k with the consumers paused (100-199), a drain of at most 1 s, 10 ms at 10k
 * (200-299). The timeline starts at 5 s on the clock, so the drain starts at 5.020 s.
 */
class DrainGateTest {
    private static final long START = 5_000_000_000L;
    private static final long DRAIN_START = START + 20_000_000L;
    private static final Timeline ASKED =
            Timeline.parse("--phases", "a:10ms@10k, f:10ms@10k/paused, d:1s@0/drained, b:10ms@10k");

    private static final class Told implements AgentRole.PhaseListener {
        final List<PhaseEnd> ends = new ArrayList<>();

        @Override
        public void done(PhaseDone done) {
        }

        @Override
        public void failed(String message) {
        }

        @Override
        public void phaseEnded(PhaseEnd end) {
            ends.add(end);
        }
    }

    private static PhaseEnd word(int phase, String by, long missing) {
        return PhaseEnd.newBuilder().setPhase(phase).setEndedBy(by).setMissing(missing).build();
    }

    @Test
    void theDrainLastsUntilTheReceiversWordArrivedAndTheNextPhaseStartsThen() throws Exception {
        FakeClock clock = new FakeClock(DRAIN_START);
        Told told = new Told();
        DrainGate gate = new DrainGate(ASKED, clock, told);
        assertEquals(200, gate.nextMessage());
        assertEquals(1_020_000_000L, gate.timeline().dueNs(200)); // before: after the cap
        clock.advance(250_000_000L);
        gate.heard(word(2, "drained", 0)); // stamped 250 ms into the drain
        assertTrue(gate.await(START, () -> false));
        assertEquals(0, clock.parks(), "the word was there: no wait");
        assertEquals(270_000_000L, gate.timeline().dueNs(200)); // 20 ms + 250 ms
        assertEquals(270_000_000L + 99 * 100_000L, gate.timeline().dueNs(299));
        assertEquals(Long.MAX_VALUE, gate.nextMessage());
        assertEquals("drained", gate.timeline().drainEnd(2).endedBy());
        assertEquals(0L, gate.timeline().drainEnd(2).missing());
        // the receiver is told the length, so that it follows phase b from 270 ms
        assertEquals(1, told.ends.size());
        assertEquals(250_000_000L, told.ends.get(0).getDurationNs());
        assertEquals(2, told.ends.get(0).getPhase());
        assertEquals("drained", told.ends.get(0).getEndedBy());
    }

    @Test
    void withoutAWordTheCapEndsTheDrain() throws Exception {
        FakeClock clock = new FakeClock(DRAIN_START);
        Told told = new Told();
        DrainGate gate = new DrainGate(ASKED, clock, told);
        gate.heard(word(1, "drained", 0)); // a word for another phase changes nothing
        assertTrue(gate.await(START, () -> false));
        assertEquals(DRAIN_START + 1_000_000_000L, clock.nanoTime(), "waited on the clock until the cap's end");
        assertEquals(1_020_000_000L, gate.timeline().dueNs(200));
        assertEquals("cap", told.ends.get(0).getEndedBy());
        assertEquals(-1, told.ends.get(0).getMissing());
        assertEquals(null, gate.timeline().drainEnd(2).missing());
    }

    @Test
    void aWordThatCameAfterTheCapOrASenderLateToItsGateKeepTheCapAndTheFloor() throws Exception {
        FakeClock clock = new FakeClock(DRAIN_START + 1_500_000_000L); // the sender comes to its gate late
        Told told = new Told();
        DrainGate gate = new DrainGate(ASKED, clock, told);
        gate.heard(word(2, "quiet", 12)); // stamped after the cap's end
        assertTrue(gate.await(START, () -> false));
        assertEquals("cap", told.ends.get(0).getEndedBy());
        // a word stamped before the drain's start (the receiver's clock leads the sender's): the 1 ms floor
        FakeClock early = new FakeClock(DRAIN_START - 3_000_000L);
        Told t2 = new Told();
        DrainGate g2 = new DrainGate(ASKED, early, t2);
        g2.heard(word(2, "quiet", 12));
        assertTrue(g2.await(START, () -> false));
        assertEquals(1_000_000L, t2.ends.get(0).getDurationNs());
        assertEquals("quiet", t2.ends.get(0).getEndedBy());
        assertEquals(12, t2.ends.get(0).getMissing());
    }

    @Test
    void aStoppedRunLeavesTheGateWithoutEndingThePhase() throws Exception {
        FakeClock clock = new FakeClock(DRAIN_START);
        Told told = new Told();
        DrainGate gate = new DrainGate(ASKED, clock, told);
        assertFalse(gate.await(START, () -> true));
        assertTrue(told.ends.isEmpty());
        assertEquals(200, gate.nextMessage());
    }
}
