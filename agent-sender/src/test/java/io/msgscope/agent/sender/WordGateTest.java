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
class WordGateTest {
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
        WordGate gate = new WordGate(ASKED, clock, told);
        assertEquals(200, gate.nextMessage());
        assertEquals(1_020_000_000L, gate.timeline().dueNs(200)); // before: after the cap
        clock.advance(250_000_000L);
        gate.heard(word(2, "drained", 0)); // stamped 250 ms into the drain
        assertTrue(gate.await(START, 200, () -> false));
        assertEquals(0, clock.parks(), "the word was there: no wait");
        assertEquals(270_000_000L, gate.timeline().dueNs(200)); // 20 ms + 250 ms
        assertEquals(270_000_000L + 99 * 100_000L, gate.timeline().dueNs(299));
        assertEquals(Long.MAX_VALUE, gate.nextMessage());
        assertEquals("drained", gate.timeline().wordEnd(2).endedBy());
        assertEquals(0L, gate.timeline().wordEnd(2).missing());
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
        WordGate gate = new WordGate(ASKED, clock, told);
        gate.heard(word(1, "drained", 0)); // a word for another phase changes nothing
        assertTrue(gate.await(START, 200, () -> false));
        assertEquals(DRAIN_START + 1_000_000_000L, clock.nanoTime(), "waited on the clock until the cap's end");
        assertEquals(1_020_000_000L, gate.timeline().dueNs(200));
        assertEquals("cap", told.ends.get(0).getEndedBy());
        assertEquals(-1, told.ends.get(0).getMissing());
        assertEquals(null, gate.timeline().wordEnd(2).missing());
    }

    @Test
    void aWordThatCameAfterTheCapOrASenderLateToItsGateKeepTheCapAndTheFloor() throws Exception {
        FakeClock clock = new FakeClock(DRAIN_START + 1_500_000_000L); // the sender comes to its gate late
        Told told = new Told();
        WordGate gate = new WordGate(ASKED, clock, told);
        gate.heard(word(2, "quiet", 12)); // stamped after the cap's end
        assertTrue(gate.await(START, 200, () -> false));
        assertEquals("cap", told.ends.get(0).getEndedBy());
        // a word stamped before the drain's start (the receiver's clock leads the sender's): the 1 ms floor
        FakeClock early = new FakeClock(DRAIN_START - 3_000_000L);
        Told t2 = new Told();
        WordGate g2 = new WordGate(ASKED, early, t2);
        g2.heard(word(2, "quiet", 12));
        assertTrue(g2.await(START, 200, () -> false));
        assertEquals(1_000_000L, t2.ends.get(0).getDurationNs());
        assertEquals("quiet", t2.ends.get(0).getEndedBy());
        assertEquals(12, t2.ends.get(0).getMissing());
    }

    /**
     * A drain that publishes (issue 31): 10 ms at 10k (0-99), 10 ms paused at 10k (100-199), a drain at 1k of at most
     * 1 s (messages 200-1199 if it ran to its cap, one every ms from 20 ms), 10 ms at 10k after it.
     */
    private static final Timeline PUBLISHING =
            Timeline.parse("--phases", "a:10ms@10k, f:10ms@10k/paused, d:1s@1k/drained, b:10ms@10k");

    @Test
    void aDrainThatPublishesEndsBeforeTheMessageItsWordCameAheadOfAndTheRestAreNumberedOnFromIt() throws Exception {
        FakeClock clock = new FakeClock(DRAIN_START - 1_000_000L); // a ms before its first message is due
        Told told = new Told();
        WordGate gate = new WordGate(PUBLISHING, clock, told);
        assertEquals(1300, PUBLISHING.messages(), "asked: the cap's 1,000 messages");
        assertEquals(200, gate.publishingFrom());
        assertEquals(1200, gate.nextMessage(), "the gate after the cap's last message");
        // messages 200..449 go out at their due times (one every ms) without a word
        for (int seq = 200; seq < 450; seq++) {
            long due = START + gate.timeline().dueNs(seq);
            assertFalse(gate.awaitDue(START, seq, due));
            assertEquals(due - WordGate.POLL_MARGIN_NS, clock.nanoTime(), "waited up to the margin before it");
            clock.advance(WordGate.POLL_MARGIN_NS); // the send's spin
        }
        // the word comes 0.4 ms after message 449 went (at 20 + 249 ms = 269 ms): stamped at 269.4 ms
        clock.advance(400_000L);
        gate.heard(word(2, "drained", 0));
        long due450 = START + gate.timeline().dueNs(450);
        assertTrue(gate.awaitDue(START, 450, due450));
        assertTrue(clock.nanoTime() < due450, "heard before 450 was due");
        // the drain lasted 249.4 ms and sent 250 messages (200-449); message 450 is b's first, due at its start
        assertEquals(249_400_000L, told.ends.get(0).getDurationNs());
        assertEquals(450, told.ends.get(0).getNextMessage());
        Timeline run = gate.timeline();
        assertEquals(550, run.messages(), "450 + b's 100");
        assertEquals(20_000_000L + 249_400_000L, run.dueNs(450));
        assertEquals(20_000_000L + 249_000_000L, run.dueNs(449), "the drain's own messages keep their due times");
        assertEquals(3, run.phaseOf(450));
        assertEquals(2, run.phaseOf(449));
        assertEquals(Long.MAX_VALUE, gate.nextMessage());
        assertEquals(Long.MAX_VALUE, gate.publishingFrom());
    }

    @Test
    void aWordThatCameWhileTheDrainsLastMessageWasSpunForEndsItJustAfterThatMessagesDueTime() throws Exception {
        FakeClock clock = new FakeClock(DRAIN_START - 1_000_000L); // a ms before its first message is due
        Told told = new Told();
        WordGate gate = new WordGate(PUBLISHING, clock, told);
        long due200 = START + gate.timeline().dueNs(200);
        assertFalse(gate.awaitDue(START, 200, due200));
        // the word is stamped in the spin, 20 µs before 200's due time, and 200 goes anyway; 201 finds it
        clock.advance(WordGate.POLL_MARGIN_NS - 20_000L);
        gate.heard(word(2, "drained", 0));
        clock.advance(20_000L);
        assertTrue(gate.awaitDue(START, 201, START + gate.timeline().dueNs(201)));
        // 200 lies inside the drain: its end is 1 ns after 200's due time, lifted to the 1 ms floor
        assertEquals(1_000_000L, told.ends.get(0).getDurationNs());
        assertEquals(201, told.ends.get(0).getNextMessage());
        assertEquals(301, gate.timeline().messages());
        assertEquals(2, gate.timeline().phaseOf(200));
    }

    @Test
    void aDrainThatPublishesWithoutAWordSendsTheCapsMessagesAndEndsOnTheCap() throws Exception {
        FakeClock clock = new FakeClock(DRAIN_START);
        Told told = new Told();
        WordGate gate = new WordGate(PUBLISHING, clock, told);
        for (int seq = 200; seq < 1200; seq++) {
            assertFalse(gate.awaitDue(START, seq, START + gate.timeline().dueNs(seq)));
        }
        assertTrue(gate.await(START, 1200, () -> false));
        assertEquals(START + 1_020_000_000L, clock.nanoTime(), "waited for a word until the cap's end");
        assertEquals("cap", told.ends.get(0).getEndedBy());
        assertEquals(1_000_000_000L, told.ends.get(0).getDurationNs());
        assertEquals(1200, told.ends.get(0).getNextMessage());
        assertEquals(1300, gate.timeline().messages(), "the cap's count");
        assertEquals(1_020_000_000L, gate.timeline().dueNs(1200));
    }

    @Test
    void aPhaseThatEndsOnTheBrokersBacklogEndsAsADrainThatPublishesAndPassesTheCountOn() throws Exception {
        // 10 ms at 10k (0-99), then paused at 10k until the broker holds 500 (at most 1 s: 10,000 messages), 10 ms at 10k
        Timeline asked = Timeline.parse("--phases", "a:10ms@10k, f:1s@10k/paused/backlog=500, b:10ms@10k");
        FakeClock clock = new FakeClock(START + 9_000_000L);
        Told told = new Told();
        WordGate gate = new WordGate(asked, clock, told);
        assertEquals(100, gate.publishingFrom());
        assertEquals(10_100, gate.nextMessage());
        for (int seq = 100; seq < 660; seq++) { // up to message 659, due at 65.9 ms
            assertFalse(gate.awaitDue(START, seq, START + gate.timeline().dueNs(seq)));
        }
        clock.advance(WordGate.POLL_MARGIN_NS + 20_000L); // the word: the broker held 512, 20 µs after 659 was due
        gate.heard(PhaseEnd.newBuilder().setPhase(1).setEndedBy("backlog").setMissing(-1).setBrokerMessages(512).build());
        assertTrue(gate.awaitDue(START, 660, START + gate.timeline().dueNs(660)));
        assertEquals(55_920_000L, told.ends.get(0).getDurationNs()); // from 10 ms to 65.92 ms
        assertEquals(660, told.ends.get(0).getNextMessage());
        assertEquals(512, told.ends.get(0).getBrokerMessages());
        assertEquals("backlog", told.ends.get(0).getEndedBy());
        assertEquals(760, gate.timeline().messages());
        assertEquals(512L, gate.timeline().wordEnd(1).brokerMessages());
        assertFalse(gate.timeline().consumersPausedAt(65_920_000L), "the consumers resume at its end");
    }

    @Test
    void aStoppedRunLeavesTheGateWithoutEndingThePhase() throws Exception {
        FakeClock clock = new FakeClock(DRAIN_START);
        Told told = new Told();
        WordGate gate = new WordGate(ASKED, clock, told);
        assertFalse(gate.await(START, 200, () -> true));
        assertTrue(told.ends.isEmpty());
        assertEquals(200, gate.nextMessage());
    }
}
