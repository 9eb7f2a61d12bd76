package io.msgscope.driver.amqp;

import io.msgscope.core.driver.Confirmations;
import io.msgscope.core.driver.Reconnects;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The AMQP publisher's messages sent again (issue 32 item 3), on a held clock: nacked messages go out in rounds, the
 * first at once, then 100 ms, 200 ms, 400 ms, 800 ms and at most 1.6 s apart while the broker acknowledges nothing;
 * a round after an acknowledgement waits 100 ms again. Every figure counted by hand.
 */
class ResendsTest {
    private static final long MS = 1_000_000L;

    private final Confirmations confirmations = new Confirmations();
    private final ConfirmWindow window = new ConfirmWindow(10_000, confirmations, true);
    private final Resends resends = new Resends(confirmations);
    private long nextTag = 1;

    /** Publishes measured message {@code seq} on the window (its next tag), as the publisher does. */
    private long track(long seq) {
        confirmations.sent(seq);
        long tag = nextTag++;
        window.track(tag, seq, new byte[] {(byte) seq});
        return tag;
    }

    /** The sequences at the head of the queue, each published (taken out), in order. */
    private List<Long> publishAll() {
        List<Long> out = new ArrayList<>();
        while (!resends.isEmpty()) {
            out.add(resends.head().seq());
            resends.published();
        }
        return out;
    }

    @Test
    void nackedMessagesGoOutInRoundsThatBackOffWhileNothingIsAcknowledged() {
        window.measuredFrom(1);
        // a quorum queue without a leader: every publish nacked, one every 10 ms, for 3.2 s; a look every 10 ms
        List<Long> roundsAtMs = new ArrayList<>();
        long taken = 0;
        long seq = 0;
        for (long t = 0; t <= 3_200; t += 10) {
            window.handleNack(track(seq++), false);
            int n = resends.nackedIfDue(window, 0, t * MS);
            if (n > 0) {
                roundsAtMs.add(t);
                taken += n;
            }
        }
        // waits 100, 200, 400, 800, then 1,600 (the most)
        assertEquals(List.of(0L, 100L, 300L, 700L, 1_500L, 3_100L), roundsAtMs);
        // each round takes every nack since the one before: at 3,100 ms all 311 nacked by then
        assertEquals(311, taken);
        assertEquals(311, publishAll().size());
        assertEquals(311L, confirmations.counters().get(Reconnects.REPUBLISHED));
        // one at 3,110 .. 3,200 ms is still waiting for the next round (at 4,700 ms)
        assertTrue(window.hasNacked());
    }

    @Test
    void anAcknowledgementBringsTheWaitBackToTheFirst() {
        window.measuredFrom(1);
        window.handleNack(track(0), false);
        assertEquals(1, resends.nackedIfDue(window, 0, 0)); // the first round at once; the next waits 100 ms
        window.handleNack(track(1), false);
        assertEquals(0, resends.nackedIfDue(window, 0, 99 * MS));
        assertEquals(1, resends.nackedIfDue(window, 0, 100 * MS)); // nothing acked: the next waits 200 ms
        window.handleNack(track(2), false);
        assertEquals(0, resends.nackedIfDue(window, 0, 299 * MS));
        assertEquals(1, resends.nackedIfDue(window, 0, 300 * MS)); // the next waits 400 ms
        window.handleAck(track(3), false);
        window.handleNack(track(4), false);
        // the ack (1 acknowledged so far) does not shorten the wait under way, only the one after it
        assertEquals(0, resends.nackedIfDue(window, 1, 699 * MS));
        assertEquals(1, resends.nackedIfDue(window, 1, 700 * MS)); // acked since the last round: the next waits 100
        window.handleNack(track(5), false);
        assertEquals(0, resends.nackedIfDue(window, 1, 799 * MS));
        assertEquals(1, resends.nackedIfDue(window, 1, 800 * MS));
        assertEquals(List.of(5L, 4L, 2L, 1L, 0L), publishAll(), "each round at the head, the latest first");
        assertEquals(5L, confirmations.counters().get(Reconnects.REPUBLISHED));
    }

    @Test
    void aLostConnectionsMessagesGoFirstAtOnceAndNewOnesAfter() {
        resends.add(7, new byte[] {7});
        resends.add(8, new byte[] {8});
        resends.firstAgain(List.of(new ConfirmWindow.Pending(3, new byte[] {3}),
                new ConfirmWindow.Pending(4, new byte[] {4})));
        assertEquals(0, resends.nackedIfDue(window, 0, 0), "none nacked: no round taken");
        assertEquals(List.of(3L, 4L, 7L, 8L), publishAll());
        assertEquals(2L, confirmations.counters().get(Reconnects.REPUBLISHED), "3 and 4; 7 and 8 are new");
    }
}
