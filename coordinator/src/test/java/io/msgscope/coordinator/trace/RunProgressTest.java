package io.msgscope.coordinator.trace;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The trace run's progress line (issue 18), figures checked by hand. */
class RunProgressTest {
    @Test
    void fullSpeedEstimatesTheRestAtTheAverageRateSoFar() {
        // 448,900 of 1,000,000 received in 5 s: 89,780 msg/s on average, 551,100 left take 6.14 s
        assertEquals("measuring ━━━━━━━━──────────── 448,900/1,000,000 received  450,000 sent  92,300 msg/s  5.0 s, ~6.1 s left",
                RunProgress.line(450_000, 448_900, 1_000_000, 92_300, 5.0, 0));
    }

    @Test
    void rateModeEstimatesAtThePlannedRateAndTheEndSaysDone() {
        assertEquals("measuring ━━━━━─────────────── 2,500/10,000 received  2,500 sent  1,000 msg/s  2.5 s, ~7.5 s left",
                RunProgress.line(2_500, 2_500, 10_000, 1_000, 2.5, 1_000));
        assertEquals("measuring ━━━━━━━━━━━━━━━━━━━━ 10,000/10,000 received  10,000 sent  0 msg/s  10.2 s, done",
                RunProgress.line(10_000, 10_000, 10_000, 0, 10.2, 1_000));
    }

    /**
     * Issue 27: the sender's count is its last heartbeat answer, older than the receiver's: 92,133 sent next to 98,847
     * received is never printed; what arrived was sent, so the sender is shown at least there.
     */
    @Test
    void receivedNeverExceedsSent() {
        assertEquals("measuring ━━━━━━━━━─────────── 98,847/200,000 received  ≥98,847 sent  20,000 msg/s  4.9 s, ~5.1 s left",
                RunProgress.line(92_133, 98_847, 200_000, 20_000, 4.9, 20_000));
    }
}
