package io.msgscope.coordinator.scenario;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The scenario's in-flight wait "until drained" (Q9, issue 31 item 1), fed by hand every 100 ms as the coordinator
 * polls: progress keeps it going however long, a stall of the timeout ends it, the expected count or every
 * subscription lost ends it at once.
 */
class DrainWaitTest {
    /** Feeds a poll every 100 ms from 0 to {@code untilMs} with {@code received(t)}, returns the first end, or WAITING. */
    private static DrainWait.End feed(DrainWait w, long untilMs, java.util.function.LongUnaryOperator received,
                                      long[] endedAt) {
        for (long t = 0; t <= untilMs; t += 100) {
            DrainWait.End e = w.at(t, received.applyAsLong(t), false);
            if (e != DrainWait.End.WAITING) {
                endedAt[0] = t;
                return e;
            }
        }
        return DrainWait.End.WAITING;
    }

    @Test
    void aBacklogDrainingFor12sAtASteadyPaceIsWaitedOutFully() {
        // 120,000 expected, 10,000 arriving each second: every poll (100 ms) sees 1,000 more; drained at 12.0 s
        DrainWait w = new DrainWait(120_000, 5_000);
        long[] at = {-1};
        assertEquals(DrainWait.End.DRAINED, feed(w, 20_000, t -> t * 10, at));
        assertEquals(12_000, at[0]);
    }

    @Test
    void aStallOfTheTimeoutEndsIt() {
        // 3,000 of 10,000 by 1 s, then nothing: the last delivery seen at 1.0 s, so the wait ends at 1.0 + 5.0 = 6.0 s
        DrainWait w = new DrainWait(10_000, 5_000);
        long[] at = {-1};
        assertEquals(DrainWait.End.STALLED, feed(w, 20_000, t -> Math.min(t, 1_000) * 3, at));
        assertEquals(6_000, at[0]);
    }

    @Test
    void aStallFromTheStartEndsAfterTheTimeoutFromTheFirstPoll() {
        DrainWait w = new DrainWait(10, 5_000);
        assertEquals(DrainWait.End.WAITING, w.at(0, 4, false));
        assertEquals(DrainWait.End.WAITING, w.at(4_999, 4, false));
        assertEquals(DrainWait.End.STALLED, w.at(5_000, 4, false));
    }

    @Test
    void slowProgressEveryFewSecondsKeepsItGoing() {
        // one delivery every 4.9 s against a 5 s timeout: never a stall, drained at the 5th (24.5 s)
        DrainWait w = new DrainWait(5, 5_000);
        long[] at = {-1};
        assertEquals(DrainWait.End.DRAINED, feed(w, 60_000, t -> t / 4_900, at));
        assertEquals(5 * 4_900, at[0]);
    }

    @Test
    void theExpectedCountEndsItAtOnce() {
        DrainWait w = new DrainWait(400, 5_000);
        assertEquals(DrainWait.End.DRAINED, w.at(0, 400, false));
        assertEquals(DrainWait.End.DRAINED, new DrainWait(400, 5_000).at(0, 403, false), "duplicates too");
    }

    @Test
    void everySubscriptionLostEndsItAtOnce() {
        DrainWait w = new DrainWait(400, 5_000);
        assertEquals(DrainWait.End.WAITING, w.at(0, 100, false));
        assertEquals(DrainWait.End.ALL_LOST, w.at(100, 150, true));
    }

    @Test
    void aTimeoutOf0EndsAtTheFirstPollShortOfTheCount() {
        assertEquals(DrainWait.End.STALLED, new DrainWait(400, 0).at(30, 399, false));
        assertEquals(DrainWait.End.DRAINED, new DrainWait(400, 0).at(30, 400, false));
    }

    /**
     * A backlog the warm-up left in the queue comes out first: 8 s of its deliveries (1,000 a second), with no measured
     * delivery, are progress; then the 400 measured ones, by 8.4 s. Counting the measured ones alone, the wait would
     * have stalled at 5.0 s with all 400 missing.
     */
    @Test
    void theWarmUpsLeftoversArrivingAreProgress() {
        DrainWait w = new DrainWait(400, 5_000);
        for (long t = 0; t <= 8_000; t += 100) {
            assertEquals(DrainWait.End.WAITING, w.at(t, 0, t, false), "at " + t + " ms");
        }
        assertEquals(DrainWait.End.WAITING, w.at(8_200, 200, 8_200, false));
        assertEquals(DrainWait.End.DRAINED, w.at(8_400, 400, 8_400, false));
        long[] at = {-1};
        assertEquals(DrainWait.End.STALLED, feed(new DrainWait(400, 5_000), 8_000, t -> 0, at), "measured alone");
        assertEquals(5_000, at[0]);
    }

    @Test
    void quietTimeIsSinceTheLastDelivery() {
        DrainWait w = new DrainWait(100, 5_000);
        org.junit.jupiter.api.Assertions.assertEquals(0, w.quietMs(0), "before the first poll");
        w.at(0, 10, false);
        w.at(300, 20, false);
        w.at(700, 20, false);
        org.junit.jupiter.api.Assertions.assertEquals(400, w.quietMs(700));
        org.junit.jupiter.api.Assertions.assertEquals(100, w.expected());
        org.junit.jupiter.api.Assertions.assertEquals(5_000, w.timeoutMs());
    }
}
