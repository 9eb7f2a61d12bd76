package io.msgscope.core.driver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import java.util.Map;

/** {@link Confirmations}: the counts and the unconfirmed ranges, worked out by hand. */
class ConfirmationsTest {
    @Test
    void unconfirmedSequencesComeBackAsRanges() {
        Confirmations c = new Confirmations();
        for (long s = -3; s < 10; s++) {
            c.sent(s); // the warm-up (negative) is not tracked
        }
        for (long s : new long[] {0, 1, 2, 5, 6, 7, 8, 5}) { // 5 twice: a republished message acked twice
            c.confirm(s);
        }
        c.republished();
        // sent 0-9, confirmed 0,1,2,5,6,7,8: unconfirmed 3,4 and 9
        assertArrayEquals(new long[] {3, 5, 9, 10}, c.unconfirmedRanges());
        assertEquals(Map.of(Reconnects.CONFIRMED, 7L, Reconnects.UNCONFIRMED, 3L, Reconnects.REPUBLISHED, 1L),
                c.counters());
        assertTrue(c.isConfirmed(8));
        assertFalse(c.isConfirmed(9));
        assertFalse(c.confirm(-1));
    }

    @Test
    void everythingConfirmedIsNoRangeAndNothingSentIsNone() {
        Confirmations c = new Confirmations();
        assertArrayEquals(new long[0], c.unconfirmedRanges());
        for (long s = 0; s < 200_000; s++) { // across chunks of 65,536
            c.sent(s);
            c.confirm(s);
        }
        assertArrayEquals(new long[0], c.unconfirmedRanges());
        assertEquals(0, c.unconfirmed());
        assertEquals(200_000, c.confirmed());
    }

    @Test
    void tooManyRangesAreUnknown() {
        Confirmations c = new Confirmations();
        for (long s = 0; s < 2L * Confirmations.MAX_RANGES + 2; s++) {
            c.sent(s);
            if (s % 2 == 1) {
                c.confirm(s); // every even sequence unconfirmed: one range each, MAX_RANGES + 1 of them
            }
        }
        assertNull(c.unconfirmedRanges());
    }

    @Test
    void theOptionReadsAsABoolean() {
        assertTrue(Reconnects.on(Map.of("reconnect", "true")));
        assertTrue(Reconnects.on(Map.of("reconnect", "Yes")));
        assertFalse(Reconnects.on(Map.of("reconnect", "false")));
        assertFalse(Reconnects.on(Map.of()));
    }
}
