package io.msgscope.coordinator.agents;

import io.msgscope.core.clock.OffsetFit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClockCorrectionTest {
    private static final long MS = 1_000_000L;

    /** Exact probes every 250 ms from mono 0 to 10 s: −3.7 ms, −20 ppm, −2 ms from 5.1 s; RTT 200 µs. */
    private static ClockTrack track(int allPairs) {
        List<OffsetFit.Sample> s = new ArrayList<>();
        for (long t = 0; t <= 10_000 * MS; t += 250 * MS) {
            double off = -3_700_000 - 20e-6 * t + (t >= 5_100 * MS ? -2_000_000 : 0);
            s.add(new OffsetFit.Sample(t, Math.round(off), 200_000));
        }
        // anchor: mono 0 is epoch ms 1,000,000
        return new ClockTrack(Map.of("p -> s", OffsetFit.of(s, 100_000)), allPairs, 0, 1_000_000, List.of(),
                ClockErrorLimit.DEFAULT);
    }

    @Test
    void anIntervalIsShiftedByTheOffsetAtItsMidpointWithinTheFitAndTheDrift() {
        // 2 s to 3 s: midpoint 2.5 s, offset −3.7 ms − 50 µs; the offset moves ±10 µs within; bound 100 µs + 10 µs
        ClockCorrection.Shift s = ClockCorrection.over(track(1), 1_002_000, 1_003_000);
        assertEquals(-3_750_000, s.offsetNs(), 1);
        assertEquals(100_000 + 10_000, s.errorNs(), 1);
    }

    @Test
    void anIntervalHoldingTheStepCarriesItInItsBound() {
        // the step's time is midway between the probes at 5.0 s and 5.25 s: 5.125 s; interval 4.6 s to 5.6 s, midpoint
        // 5.1 s before it: offset −3.7 ms − 102 µs; just after the step −5.7 ms − 102.5 µs
        ClockCorrection.Shift s = ClockCorrection.over(track(1), 1_004_600, 1_005_600);
        assertEquals(-3_802_000, s.offsetNs(), 1);
        assertEquals(100_000 + 2_000_000 + 10_000, s.errorNs(), 1); // the far end: 5.6 s, −5.812 ms
    }

    /**
     * Few probes, one of them delayed (ClockStampCorrectionTest's case): probes at 0, 1 and 2 s, the first two exact
     * in 200 µs, the third 2.5 ms high in 6 ms; true offset 0. The line is 1,250 ppm through the first and the third,
     * residual 0, so half the best round trip (100 µs) alone would bound the 0.5-1.5 s interval by 100 + 625 µs (the
     * drift's move either side of its midpoint) and miss the truth, 1.25 ms away. The envelope (the third probe's
     * half round trip, 3 ms) widens it to 3.625 ms, which holds it (issue 33: scenario mode as trace mode).
     */
    @Test
    void aDelayedProbeAmongFewWidensTheIntervalBoundToItsEnvelope() {
        List<OffsetFit.Sample> s = List.of(new OffsetFit.Sample(0, 0, 200_000),
                new OffsetFit.Sample(1_000 * MS, 0, 200_000), new OffsetFit.Sample(2_000 * MS, 2_500_000, 6_000_000));
        ClockTrack t = new ClockTrack(Map.of("p -> s", OffsetFit.of(s, 100_000)), 1, 0, 1_000_000, List.of(),
                ClockErrorLimit.DEFAULT);
        ClockCorrection.Shift shift = ClockCorrection.over(t, 1_000_500, 1_001_500);
        assertEquals(1_250_000, shift.offsetNs(), 1);
        assertEquals(3_000_000 + 625_000, shift.errorNs(), 1);
        assertTrue(Math.abs(shift.offsetNs() - 0) <= shift.errorNs(), "the truth (0) lies within the bound");
    }

    @Test
    void aSecondPairOnOneBoxHalvesTheShiftAndWidensTheBound() {
        ClockCorrection.Shift s = ClockCorrection.over(track(2), 1_002_000, 1_003_000);
        assertEquals(-3_750_000 / 2.0, s.offsetNs(), 1);
        assertEquals(110_000 + 3_750_000 / 2.0, s.errorNs(), 1);
    }

    @Test
    void shiftingAHistogramMovesEveryValueAndCountsThoseBelowZero() {
        Histogram h = new Histogram(3_600_000_000_000L, 3);
        h.recordValueWithCount(5_000_000, 3);
        h.recordValue(1_000_000);
        Histogram out = new Histogram(3_600_000_000_000L, 3);
        assertEquals(1, ClockCorrection.shiftInto(h, -3_000_000, out));
        assertEquals(4, out.getTotalCount());
        assertEquals(0, out.getMinValue());
        assertEquals(2_000_000, out.getValueAtPercentile(100), 2_000_000 / 1000.0);
    }

    @Test
    void theLimitIsADurationOrAPercentageOfP50() {
        assertEquals(2_000_000L, ClockErrorLimit.parse("2ms").ns());
        assertEquals(500_000L, ClockErrorLimit.parse("500us").ns());
        assertEquals(1_500_000_000L, ClockErrorLimit.parse("1.5s").ns());
        assertEquals(10.0, ClockErrorLimit.parse("10%").percent());
        assertEquals(20_000, ClockErrorLimit.parse("10%").limitNs(200_000.0), 1e-9);
        assertNull(ClockErrorLimit.parse("10%").limitNs(null));
        assertEquals(2e6, ClockErrorLimit.parse("2ms").limitNs(null), 0);
        assertEquals("10% of p50", ClockErrorLimit.DEFAULT.toString());
        for (String bad : new String[]{"", "2", "ten%", "2 hours", "-1ms", "5m"}) {
            assertThrows(IllegalArgumentException.class, () -> ClockErrorLimit.parse(bad), bad);
        }
    }
}
