package io.msgscope.agent.receiver;

import org.junit.jupiter.api.Test;

import static io.msgscope.agent.receiver.SequenceBook.DUPLICATE;
import static io.msgscope.agent.receiver.SequenceBook.LATE;
import static io.msgscope.agent.receiver.SequenceBook.NEW;
import static io.msgscope.agent.receiver.SequenceBook.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertEquals;

class SequenceBookTest {
    @Test
    void eachArrivalIsNewLateOrSeenBeforePerPublisher() {
        SequenceBook b = new SequenceBook();
        assertEquals(NEW, b.see(7, 0));
        assertEquals(NEW, b.see(7, 1));
        assertEquals(NEW, b.see(9, 0));          // another publisher's own sequence
        assertEquals(NEW, b.see(7, 5));          // gap 2..4
        assertEquals(1, b.openGaps());
        assertEquals(LATE, b.see(7, 3));         // splits it: 2, 4
        assertEquals(2, b.openGaps());
        assertEquals(DUPLICATE, b.see(7, 3));
        assertEquals(LATE, b.see(7, 2));
        assertEquals(LATE, b.see(7, 4));         // every gap filled
        assertEquals(0, b.openGaps());
        assertEquals(DUPLICATE, b.see(7, 5));
        assertEquals(DUPLICATE, b.see(7, 0));
        assertEquals(DUPLICATE, b.see(9, 0));
        assertEquals(NEW, b.see(9, 1));
    }

    @Test
    void gapsAreFilledFromEitherEnd() {
        SequenceBook b = new SequenceBook();
        b.see(1, 0);
        b.see(1, 10);                            // gap 1..9
        assertEquals(LATE, b.see(1, 1));
        assertEquals(LATE, b.see(1, 9));
        assertEquals(1, b.openGaps());           // 2..8 left
        for (int s = 2; s <= 8; s++) {
            assertEquals(LATE, b.see(1, s));
        }
        assertEquals(0, b.openGaps());
        assertEquals(NEW, b.see(1, 11));
    }

    @Test
    void manyPublishersEachKeepTheirOwnStream() {
        SequenceBook b = new SequenceBook();
        for (long p = 0; p < 10_000; p++) {
            assertEquals(NEW, b.see(p, 0));
        }
        for (long p = 0; p < 10_000; p++) {
            assertEquals(DUPLICATE, b.see(p, 0));
            assertEquals(NEW, b.see(p, 1));
        }
    }

    @Test
    void aStreamWithTooManyGapsIsNoLongerToldApart() {
        SequenceBook b = new SequenceBook();
        for (int k = 0; k < SequenceBook.MAX_GAPS; k++) {
            assertEquals(NEW, b.see(3, 2L * k + 1)); // every other message missing
        }
        assertEquals(SequenceBook.MAX_GAPS, b.openGaps());
        assertEquals(UNKNOWN, b.see(3, 2L * SequenceBook.MAX_GAPS + 1));
        assertEquals(UNKNOWN, b.see(3, 0));
        assertEquals(0, b.openGaps());           // its gaps dropped with it
        assertEquals(NEW, b.see(4, 0));          // the others go on
    }
}
