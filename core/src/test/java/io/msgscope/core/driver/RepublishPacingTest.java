package io.msgscope.core.driver;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link RepublishPacing} on a clock the test holds: rounds 100, 200, 400 ... ms apart while nothing is acknowledged. */
class RepublishPacingTest {
    private static final long MS = 1_000_000L;

    @Test
    void roundsWaitTwiceAsLongWhileNothingIsAcknowledgedUpToTheMost() {
        RepublishPacing p = new RepublishPacing(100 * MS, 1_600 * MS);
        long t = 5_000 * MS;
        assertTrue(p.due(t), "the first round at once");
        assertFalse(p.due(t + 99 * MS));
        // each round starts at the first look after its wait; rounds at +100, +300, +700, +1500, +3100, +4700 ms
        long[] rounds = {100, 300, 700, 1_500, 3_100, 4_700, 6_300};
        long[] waits = {200, 400, 800, 1_600, 1_600, 1_600, 1_600};
        for (int i = 0; i < rounds.length; i++) {
            assertFalse(p.due(t + rounds[i] * MS - 1), "round " + i + " not before its time");
            assertTrue(p.due(t + rounds[i] * MS), "round " + i);
            assertEquals(waits[i] * MS, p.waitNs(), "the wait after round " + i);
        }
        // 7 rounds in 6.3 s where a fixed 100 ms wait makes 63
    }

    @Test
    void anAcknowledgementBringsTheFirstWaitBack() {
        RepublishPacing p = new RepublishPacing(100 * MS, 1_600 * MS);
        assertTrue(p.due(0));
        assertTrue(p.due(100 * MS));
        assertTrue(p.due(300 * MS));
        assertEquals(400 * MS, p.waitNs());
        p.acked(); // before the next round: that round starts after the wait set, and the one after it 100 ms later
        assertFalse(p.due(699 * MS));
        assertTrue(p.due(700 * MS));
        assertEquals(100 * MS, p.waitNs());
        assertTrue(p.due(800 * MS));
        assertEquals(200 * MS, p.waitNs(), "nothing acknowledged since: doubling again");
    }

    @Test
    void waitsMustBePositiveAndOrdered() {
        assertThrows(IllegalArgumentException.class, () -> new RepublishPacing(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new RepublishPacing(2, 1));
    }
}
