package io.msgscope.coordinator.trace;

import io.msgscope.analysis.SeriesStats;
import io.msgscope.analysis.Trace;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Trace mode's cross-host detection and its uncorrected latency (issue 33 item 3), by hand. */
class TraceClocksTest {
    @Test
    void aRunIsCrossHostUnlessBothBootIdsAreKnownAndEqual() {
        assertNull(TraceClocks.why("boot-a", "boot-a"));
        assertTrue(TraceClocks.why("boot-a", "boot-b").contains("boot ids differ (boot-a, boot-b)"));
        assertTrue(TraceClocks.why("", "boot-b").contains("unknown"));
        assertTrue(TraceClocks.why("boot-a", "").contains("unknown"));
        // the clock test hook's agent is another box on the same machine
        assertTrue(TraceClocks.why("boot-a+clock-shift-test-hook", "boot-a").contains("differ"));
    }

    @Test
    void theUncorrectedLatencySubtractsTheTwoClocksAsRecordedNegativeOnesKept() {
        long a = Trace.ABSENT;
        // I − O: 100, −50, (lost), 300, (not sent) → sorted −50, 100, 300
        long[] send = {1_000, 2_000, 3_000, 4_000, a};
        long[] recv = {1_100, 1_950, a, 4_300, 5_000};
        SeriesStats s = TraceClocks.uncorrected(send, recv);
        assertEquals(3, s.n());
        assertEquals(-50, s.min());
        assertEquals(300, s.max());
        assertEquals(100, s.p50());
        assertEquals(350 / 3.0, s.mean(), 1e-9);
    }
}
