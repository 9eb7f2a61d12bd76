package io.msgscope.agent.sender;

import io.msgscope.core.WireHeader;
import io.msgscope.core.test.FakeClock;
import io.msgscope.core.driver.ErrorTally;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pacer's schedule (issue 13, Q1, coordinated omission): every publisher sends exactly its count,
 * message i stamped with sequence i (negative in the warm-up) and intended time start + offset + i x period
 * (epoch ns), never sent before it; a full window defers the same message with its intended time
 * unchanged; a failing publisher counts one error and stops while the others go on.
 */
class PacerTest {
    /** Records what it was offered; refuses the offers listed, throws at the failing one. */
    static class Recorder implements Publisher {
        final List<long[]> taken = new ArrayList<>(); // seq, intended epoch, actual epoch, nanoTime at offer
        int offers;
        int refuseAt = -1;
        int failAt = -1;

        @Override
        public void send(ByteBuffer buffer, int offset, int length) {
            throw new AssertionError("the pacer offers, never sends");
        }

        @Override
        public boolean offer(ByteBuffer b, int offset, int length) throws IOException {
            int k = offers++;
            if (k == failAt) {
                throw new Fault(Fault.Kind.CONNECTION_LOST, "gone after " + k);
            }
            if (k == refuseAt) {
                return false;
            }
            assertEquals(64, length);
            taken.add(new long[] {b.getLong(WireHeader.SEQUENCE_OFFSET), b.getLong(WireHeader.PROBE_CPU_OFFSET),
                    b.getLong(WireHeader.EPOCH_NS_OFFSET), System.nanoTime(), b.getLong(WireHeader.PUBLISHER_OFFSET)});
            return true;
        }

        @Override
        public void close() {
        }
    }

    private static final long EPOCH_MINUS_MONO = 1_000_000_000_000L;

    @Test
    void everyPublisherSendsItsCountOnItsOwnScheduleAndAWindowDefersWithoutMovingTheIntendedTime() {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        Recorder c = new Recorder();
        b.refuseAt = 3; // the 4th offer finds the window full: the same message again, later
        long period = 2_000_000; // 500 msg/s
        long[] offsets = {0, period / 3, 2 * period / 3};
        ErrorTally errors = new ErrorTally();
        long[] ids = {7, 8, 9}; // their places among the run's publishers
        Pacer p = new Pacer(new Publisher[] {a, b, c}, offsets, ids, WireHeader.allocate(64), 64, EPOCH_MINUS_MONO,
                errors);
        long start = System.nanoTime() + 5_000_000;
        p.arm(false, 10, 500, start);
        p.run();
        assertEquals(30, p.sent());
        assertEquals(1, p.deferred());
        assertEquals(0, errors.total());
        Recorder[] all = {a, b, c};
        for (int k = 0; k < 3; k++) {
            assertEquals(10, all[k].taken.size());
            for (int i = 0; i < 10; i++) {
                long[] m = all[k].taken.get(i);
                long intended = start + offsets[k] + i * period;
                assertEquals(i, m[0], "sequence");
                assertEquals(ids[k], m[4], "publisher index (issue 32: sequences per publisher)");
                assertEquals(intended + EPOCH_MINUS_MONO, m[1], "intended time of message " + i);
                assertTrue(m[3] >= intended, "message " + i + " went out before its time");
                assertTrue(m[2] - EPOCH_MINUS_MONO >= intended, "actual stamp before the intended time");
            }
        }
        // the deferred message went out at least the retry delay after its first offer
        assertTrue(b.taken.get(3)[3] - (start + offsets[1] + 3 * period) >= Pacer.RETRY_NS);
    }

    @Test
    void warmUpSequencesAreNegativeAndAFailingPublisherStopsAlone() {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        b.failAt = 2;
        ErrorTally errors = new ErrorTally();
        Pacer p = new Pacer(new Publisher[] {a, b, null}, new long[3], new long[3],
                WireHeader.allocate(64), 64, 0, errors);
        p.arm(true, 5, 10_000, System.nanoTime());
        p.run();
        assertEquals(5, a.taken.size());
        assertEquals(List.of(-1L, -2L, -3L, -4L, -5L), a.taken.stream().map(m -> m[0]).toList());
        assertEquals(2, b.taken.size());
        assertEquals(1, p.stopped());
        assertEquals(1, errors.total());
        assertEquals("gone after 2", errors.first());
        assertEquals(7, p.sent());
        // a second phase starts from 0 again
        p.arm(false, 2, 10_000, System.nanoTime());
        p.run();
        assertEquals(2 + 1, a.taken.size() - 4); // 5 warm-up + 2 measured, sequences 0 and 1
        assertEquals(0, a.taken.get(5)[0]);
    }

    /**
     * On a clock that moves only while the pacer waits (issue 15): every message is stamped exactly at its intended
     * time, a deferred one exactly {@code RETRY_NS} after its refused offer, and the pacer parks through the gaps,
     * spinning only their last {@code SPIN_NS}.
     */
    @Test
    void onAFakeClockEveryStampIsExactAndTheGapsArePassedParked() {
        FakeClock clock = new FakeClock(1_000_000_000L);
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        b.refuseAt = 2;
        long period = 1_000_000; // 1,000 msg/s
        long[] offsets = {0, period / 2};
        Pacer p = new Pacer(new Publisher[] {a, b}, offsets, new long[2], WireHeader.allocate(64), 64, EPOCH_MINUS_MONO,
                new ErrorTally(), clock);
        long start = clock.nanoTime() + 3_000_000;
        p.arm(false, 5, 1_000, start);
        p.run();
        assertEquals(10, p.sent());
        assertEquals(1, p.deferred());
        Recorder[] all = {a, b};
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < 5; i++) {
                long[] m = all[k].taken.get(i);
                long intended = start + offsets[k] + i * period;
                assertEquals(intended + EPOCH_MINUS_MONO, m[1], "intended time of message " + i);
                long expected = k == 1 && i == 2 ? intended + Pacer.RETRY_NS : intended;
                assertEquals(expected + EPOCH_MINUS_MONO, m[2], "publisher " + k + " message " + i + " stamped");
            }
        }
        // every gap but the deferral's is parked through: at most one park per message (and the retry), and the
        // spins cover at most SPIN_NS of each
        assertTrue(clock.parks() <= 11, "parks " + clock.parks());
        assertTrue(clock.spins() <= 11 * (Pacer.SPIN_NS / FakeClock.SPIN_STEP_NS), "spins " + clock.spins());
        assertTrue(clock.parkedNs() >= 3_000_000 + 4 * period - 11 * Pacer.SPIN_NS, "parked " + clock.parkedNs());
    }

    /**
     * Load phases (issue 31): "a:10ms@1k, pause:5ms@0, b:10ms@2k" is the TOTAL rate over the run's 3 publishers; the
     * timeline schedules 10 + 0 + 20 = 30 messages, due (from the start) at 0, 1, ..., 9 ms (a, 1 ms apart), then
     * 15, 15.5, ..., 24.5 ms (b, 0.5 ms apart after the 5 ms pause). Publisher g of 3 sends messages g, g + 3, ... —
     * 10 each, here as two pacers (publishers 0 and 2 in one, 1 in the other) on a fake clock, each stamped exactly.
     */
    @Test
    void onLoadPhasesThePublishersShareTheTotalTimelineInTurn() {
        io.msgscope.core.timeline.Timeline t = io.msgscope.core.timeline.Timeline.parse("--phases",
                "a:10ms@1k, pause:5ms@0, b:10ms@2k");
        assertEquals(30, t.messages());
        long[] dueMs2 = new long[30]; // due times in half milliseconds, by hand
        for (int j = 0; j < 10; j++) {
            dueMs2[j] = 2L * j;
        }
        for (int j = 10; j < 30; j++) {
            dueMs2[j] = 30 + (j - 10);
        }
        FakeClock clock = new FakeClock(1_000_000_000L);
        Recorder p0 = new Recorder();
        Recorder p1 = new Recorder();
        Recorder p2 = new Recorder();
        Pacer first = new Pacer(new Publisher[] {p0, p2}, new long[2], new long[2],
                WireHeader.allocate(64), 64, EPOCH_MINUS_MONO,
                new ErrorTally(), clock);
        Pacer second = new Pacer(new Publisher[] {p1}, new long[1], new long[1],
                WireHeader.allocate(64), 64, EPOCH_MINUS_MONO,
                new ErrorTally(), clock);
        long start = clock.nanoTime() + 1_000_000;
        first.armTimeline(t, new long[] {0, 2}, 3, start);
        second.armTimeline(t, new long[] {1}, 3, start);
        assertEquals(10, first.count(0));
        assertEquals(10, first.count(1));
        assertEquals(10, second.count(0));
        first.run();
        second.run();
        assertEquals(20, first.sent());
        assertEquals(10, second.sent());
        Recorder[] byG = {p0, p1, p2};
        for (int g = 0; g < 3; g++) {
            assertEquals(10, byG[g].taken.size());
            for (int i = 0; i < 10; i++) {
                long due = start + dueMs2[g + 3 * i] * 500_000L;
                assertEquals(i, byG[g].taken.get(i)[0], "sequence");
                assertEquals(due + EPOCH_MINUS_MONO, byG[g].taken.get(i)[1], "intended of publisher " + g + " msg " + i);
            }
        }
    }

    /** 31 messages over 3 publishers: the first gets 11, the others 10 (g < 31 - 3 * 10). */
    @Test
    void anUnevenTimelineGivesTheFirstPublishersOneMore() {
        io.msgscope.core.timeline.Timeline t = io.msgscope.core.timeline.Timeline.parse("--phases", "31ms@1k");
        assertEquals(31, t.messages());
        Pacer p = new Pacer(new Publisher[] {new Recorder(), new Recorder(), new Recorder()}, new long[3],
                new long[3], WireHeader.allocate(64), 64, 0, new ErrorTally());
        p.armTimeline(t, new long[] {0, 1, 2}, 3, System.nanoTime());
        assertEquals(List.of(11L, 10L, 10L), List.of(p.count(0), p.count(1), p.count(2)));
    }

    /**
     * A word phase ended by the coordinator (issue 31): a drain at 1k msg/s frozen while publisher 0 sends message 24
     * (due 24 ms), and ended 3 ms later at 25.5 ms (another agent froze later). Message 25, due 25 ms, is held and sent
     * at the end, late with its intended time unchanged; from message 26 on the phase after it (2k msg/s) runs from
     * 25.5 ms, 0.5 ms apart; the pacers send the 36 messages of the timeline as run instead of the cap's 120.
     */
    @Test
    void aWordPhaseFrozenAndEndedHoldsWhatIsDueAfterTheFreezeAndMovesTheLaterPhasesUp() {
        io.msgscope.core.timeline.Timeline t = io.msgscope.core.timeline.Timeline.parse("--phases",
                "fill:10ms@1k/paused, drain:100ms@1k/drained, after:5ms@2k");
        assertEquals(120, t.messages());
        FakeClock fake = new FakeClock(1_000_000_000L);
        long start = fake.nanoTime() + 1_000_000;
        long[] frozen = {0};
        Pacer[] pacer = new Pacer[1];
        io.msgscope.core.timeline.Timeline[] asRun = new io.msgscope.core.timeline.Timeline[1];
        io.msgscope.core.NanoClock clock = new io.msgscope.core.test.OnFakeClock(fake) {
            @Override
            public void park(long ns) {
                fake.park(ns);
                if (frozen[0] != 0 && asRun[0] == null && fake.nanoTime() >= frozen[0] + 3_000_000L) {
                    long end = 25_500_000L; // the latest agent's freeze, as the coordinator takes it
                    asRun[0] = t.asRun(List.of(new io.msgscope.core.timeline.Timeline.WordEnd(1, end - 10_000_000L,
                            "drained", 0L, t.firstDueFrom(1, end))));
                    pacer[0].endPhase(asRun[0]);
                }
            }
        };
        Recorder p1 = new Recorder();
        Recorder p0 = new Recorder() {
            @Override
            public boolean offer(ByteBuffer b, int offset, int length) throws IOException {
                if (b.getLong(WireHeader.SEQUENCE_OFFSET) == 12 && frozen[0] == 0) { // global 24, due 24 ms
                    long now = fake.nanoTime();
                    long claimed = pacer[0].freeze(now);
                    assertEquals(start + 24_000_000L, claimed, "the message being sent is claimed first");
                    frozen[0] = now;
                }
                return super.offer(b, offset, length);
            }
        };
        pacer[0] = new Pacer(new Publisher[] {p0, p1}, new long[2], new long[2],
                WireHeader.allocate(64), 64, EPOCH_MINUS_MONO,
                new ErrorTally(), clock);
        pacer[0].armTimeline(t, new long[] {0, 1}, 2, start);
        pacer[0].run();
        assertEquals(36, asRun[0].messages());
        assertEquals(26, asRun[0].firstMessage(2));
        assertEquals(36, pacer[0].sent());
        Recorder[] byG = {p0, p1};
        for (int g = 0; g < 2; g++) {
            assertEquals(18, byG[g].taken.size(), "publisher " + g);
            for (int i = 0; i < 18; i++) {
                long m = g + 2L * i;
                long[] x = byG[g].taken.get(i);
                long dueMs100 = m < 26 ? m * 100 : 2550 + (m - 26) * 50; // hundredths of a ms, by hand
                assertEquals(start + dueMs100 * 10_000L + EPOCH_MINUS_MONO, x[1], "intended of message " + m);
                assertTrue(x[2] >= x[1], "message " + m + " sent before it was due");
                long endCame = frozen[0] + 3_000_000L + EPOCH_MINUS_MONO;
                if (m >= 25 && x[1] < endCame) { // held by the freeze until the end came (25), or due before it came
                    assertTrue(x[2] >= endCame, "message " + m + " held");
                } else {
                    assertTrue(x[2] - x[1] < 200_000, "message " + m + " late by " + (x[2] - x[1]) + " ns");
                }
            }
        }
    }
}
