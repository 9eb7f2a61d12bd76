package io.msgscope.agent.receiver;

import io.msgscope.core.WireHeader;
import io.msgscope.core.timeline.Timeline;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Deliveries counted by the phase their intended send time is in (issue 31: a scenario's drain ends when every message
 * scheduled before it arrived): on the timeline asked until a word phase ends, on the timeline as run after; warm-up
 * messages never; every I/O thread's count summed.
 */
class RecordingPhasesTest {
    private static final long ORIGIN = 5_000_000_000L;
    private static final Timeline ASKED = Timeline.parse("--phases",
            "fill:10ms@1k/paused, drain:100ms@1k/drained, after:5ms@2k");

    private static void deliver(Recording r, long intendedOffsetNs, long seq) {
        ByteBuffer b = WireHeader.allocate(64);
        b.putLong(WireHeader.EPOCH_NS_OFFSET, ORIGIN + intendedOffsetNs).putLong(WireHeader.SEQUENCE_OFFSET, seq)
                .putLong(WireHeader.INTENDED_NS_OFFSET, ORIGIN + intendedOffsetNs);
        r.onMessage(b, 0);
    }

    @Test
    void eachDeliveryCountsInThePhaseOfItsIntendedTimeOnTheTimelineAsRunSoFar() throws Exception {
        Recording r = new Recording(0);
        r.phaseCount(3);
        deliver(r, 5_000_000L, 0); // not classified yet: counted as received only
        assertArrayEquals(new long[] {0, 0, 0}, r.byPhase());
        r.classify(ASKED, ORIGIN);
        deliver(r, 5_000_000L, 1);
        deliver(r, 9_999_999L, 2);
        deliver(r, -1_000_000L, 3);      // before the start (a clock step): the first phase
        deliver(r, 10_000_000L, 4);      // the drain's first instant
        deliver(r, 50_000_000L, 5);
        deliver(r, 112_000_000L, 6);     // "after" on the cap's timeline (110-115 ms)
        deliver(r, 20_000_000L, -7);     // warm-up: never by phase
        assertArrayEquals(new long[] {3, 2, 1}, r.byPhase());
        // the drain ended after 10 ms: "after" runs 20-25 ms, and whatever is due from 20 ms on is in it
        r.classify(ASKED.asRun(List.of(new Timeline.WordEnd(1, 10_000_000L, "drained", 0L))), ORIGIN);
        deliver(r, 50_000_000L, 8);
        deliver(r, 15_000_000L, 9);
        Thread other = new Thread(() -> deliver(r, 21_000_000L, 10)); // a second I/O thread: its own slot
        other.start();
        other.join();
        assertArrayEquals(new long[] {3, 3, 3}, r.byPhase());
        assertEquals(10, r.counts()[0], "every measured delivery received");
        assertEquals(1, r.counts()[1], "the warm-up one");
    }

    @Test
    void aTimelineOfMorePhasesThanCountedIsRefused() {
        Recording r = new Recording(0);
        r.phaseCount(2);
        assertThrows(IllegalArgumentException.class, () -> r.classify(ASKED, ORIGIN));
    }
}
