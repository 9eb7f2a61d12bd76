package io.msgscope.coordinator.agents;

import io.msgscope.core.clock.OffsetFit;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Trace mode's per-message correction (issue 33 item 3) on two monotonic clocks that started far apart: the receiver
 * booted 1,000 s before the run, the sender 5,000 s before it — and its clock is 3.7 ms further ahead, gains 20 ppm
 * and steps back 2 ms 5.1 s into the run. Every expected figure is worked out by hand below from those numbers.
 */
class ClockStampCorrectionTest {
    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;
    /** The receiver's clock at the run's start. */
    private static final long T0 = 1_000 * S;
    /** The sender's clock − the receiver's, apart from the 3.7 ms, the drift and the step. */
    private static final long BOOTS = 4_000 * S;

    /** The true offset sender − receiver at receiver time {@code t}. */
    private static double offset(long t) {
        long since = t - T0;
        return BOOTS + 3_700_000 + 20e-6 * since + (since >= 5_100 * MS ? -2_000_000 : 0);
    }

    /** Exact probes every 250 ms over 10 s on the receiver's clock, each round trip 200 µs. */
    private static ClockStampCorrection correction() {
        List<OffsetFit.Sample> s = new ArrayList<>();
        for (long t = T0; t <= T0 + 10 * S; t += 250 * MS) {
            s.add(new OffsetFit.Sample(t, Math.round(offset(t)), 200_000));
        }
        return new ClockStampCorrection(OffsetFit.of(s, 100_000));
    }

    @Test
    void theOffsetIsInterpolatedAtEachMessagesOwnArrival() {
        ClockStampCorrection c = correction();
        // 2 s in: 4,000 s + 3.7 ms + 20 ppm × 2 s = 4,000 s + 3,740,000 ns
        assertEquals(BOOTS + 3_740_000, c.offsetAt(T0 + 2 * S), 2);
        // 7 s in, past the step: 3.7 ms + 140 µs − 2 ms = 1,840,000 ns
        assertEquals(BOOTS + 1_840_000, c.offsetAt(T0 + 7 * S), 2);
    }

    @Test
    void sendStampsMoveOntoTheReceiversClockAndTheLatencyComesOutTrue() {
        ClockStampCorrection c = correction();
        // message 0 sent 2 s in, 50 µs in flight; message 1 sent 7 s in, 80 µs; message 2 sent 3 s in, lost
        long[] trueSend = {T0 + 2 * S, T0 + 7 * S, T0 + 3 * S};
        long[] send = new long[3];
        long[] intended = new long[3];
        for (int i = 0; i < 3; i++) {
            send[i] = trueSend[i] + Math.round(offset(trueSend[i])); // the sender's clock
            intended[i] = send[i] - 1_000; // due 1 µs before it went
        }
        long[] recv = {T0 + 2 * S + 50_000, T0 + 7 * S + 80_000, ClockStampCorrection.ABSENT};
        // uncorrected, message 0's latency is the two boots apart: 50 µs − 4,000 s − 3.74 ms
        assertEquals(50_000 - BOOTS - 3_740_000, recv[0] - send[0]);

        ClockStampCorrection.Moved m = c.moveSends(send, intended, recv);

        // corrected: the offset at the arrival, 50 µs × 20 ppm = 1 ns more than at the send: 50,001 ns (± rounding)
        assertEquals(50_001, recv[0] - send[0], 2);
        // past the step: 80 µs × 20 ppm = 1.6 ns more: 80,002 ns (± rounding)
        assertEquals(80_002, recv[1] - send[1], 2);
        // the lost message: moved by the offset at its own time, back to 3 s in on the receiver's clock
        assertEquals(T0 + 3 * S, send[2], 2);
        // intended times move with their message
        for (int i = 0; i < 3; i++) {
            assertEquals(1_000, send[i] - intended[i]);
        }
        assertEquals(3, m.messages());
        // neither arrival lies between the probes around the step: the bound is half the 200 µs round trip
        assertEquals(100_000, m.errorBoundNs(), 5);
    }

    @Test
    void aMessageBetweenTheProbesAroundAStepCarriesTheStepInItsBound() {
        ClockStampCorrection c = correction();
        // the probes either side of the step are at 5.0 s and 5.25 s: between them the bound adds the 2 ms step
        assertEquals(100_000 + 2_000_000, c.errorAt(T0 + 5_200 * MS), 5);
        assertEquals(100_000, c.errorAt(T0 + 5_000 * MS), 5);
        assertEquals(100_000, c.errorAt(T0 + 5_250 * MS), 5);
        long[] send = {T0 + 5_200 * MS + Math.round(offset(T0 + 5_200 * MS))};
        long[] recv = {T0 + 5_200 * MS + 30_000};
        assertEquals(2_100_000, c.moveSends(send, null, recv).errorBoundNs(), 5);
    }

    @Test
    void withFewSamplesADelayedProbeWidensTheBoundToItsOwnHalfRoundTrip() {
        // three probes 1 s apart, true offset 0: the first two answered in 200 µs and exact, the third took 6 ms
        // and reads 2.5 ms high (within its own 3 ms half round trip). Theil–Sen: slopes 0, 1,250 and 2,500 ppm,
        // median 1,250 ppm; intercepts 0, −1.25 ms, 0 → median 0: the line 1,250 ppm × t from the first probe passes
        // through the first and the third, so the robust residual is 0 and the fit's bound is half the best round
        // trip, 100 µs. The truth at 1 s is 0, the line 1.25 ms: the fit's bound misses it. The envelope: the first
        // sample 0 + 100 µs, the second 1.25 ms + 100 µs, the third 0 + 3 ms → 3 ms, which holds the truth.
        List<OffsetFit.Sample> s = List.of(new OffsetFit.Sample(T0, 0, 200_000),
                new OffsetFit.Sample(T0 + S, 0, 200_000), new OffsetFit.Sample(T0 + 2 * S, 2_500_000, 6_000_000));
        OffsetFit fit = OffsetFit.of(s, 100_000);
        assertEquals(1_250, fit.driftPpm(), 1e-6);
        assertEquals(0, fit.residualNs(), 1e-9);
        assertEquals(3_000_000, fit.errorAt(T0 + S), 1e-3); // the fit's own bound holds the envelope (issue 33)
        assertEquals(3_000_000, fit.errorBoundNs(), 1e-3);
        ClockStampCorrection c = new ClockStampCorrection(fit);
        assertEquals(1_250_000, c.offsetAt(T0 + S), 1e-3);
        assertEquals(3_000_000, c.errorAt(T0 + S), 1e-3);
        assertTrue(Math.abs(c.offsetAt(T0 + S) - 0) <= c.errorAt(T0 + S), "the truth (0) lies within the bound");
    }

    @Test
    void aSenderTimeFindsItsReceiverTime() {
        ClockStampCorrection c = correction();
        long t = T0 + 8 * S;
        assertEquals(t, c.receiverTimeOf(t + Math.round(offset(t))), 2);
        long[] samples = {t + Math.round(offset(t)), ClockStampCorrection.ABSENT};
        c.moveSenderTimes(samples);
        assertEquals(t, samples[0], 2);
        assertEquals(ClockStampCorrection.ABSENT, samples[1]);
    }

    @Test
    void twoBootIdsAreOneBoxOnlyWhenBothAreKnownAndEqual() {
        assertTrue(ClockTracker.sameBoot("b1", "b1"));
        assertFalse(ClockTracker.sameBoot("b1", "b2"));
        assertFalse(ClockTracker.sameBoot("", ""));
        assertFalse(ClockTracker.sameBoot("b1", ""));
        assertFalse(ClockTracker.sameBoot("b1", "b1+clock-shift-test-hook"));
    }
}
