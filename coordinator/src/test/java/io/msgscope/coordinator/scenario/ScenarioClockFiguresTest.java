package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.agents.ClockErrorLimit;
import io.msgscope.coordinator.agents.ClockTrack;
import io.msgscope.core.LatencyRange;
import io.msgscope.core.clock.OffsetFit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScenarioClockFiguresTest {
    private static final long MS = 1_000_000L;

    /** The publishers' clock 3 ms behind the subscribers' from 0 to 2 s, then 5 ms (a −2 ms step at 2.125 s). */
    private static ClockTrack track(ClockErrorLimit limit) {
        List<OffsetFit.Sample> s = new java.util.ArrayList<>();
        for (long t = 0; t <= 4_000 * MS; t += 250 * MS) {
            s.add(new OffsetFit.Sample(t, t >= 2_250 * MS ? -5 * MS : -3 * MS, 40_000));
        }
        return new ClockTrack(Map.of("publishers -> subscribers", OffsetFit.of(s, 100_000)), 1, 0, 5_000_000,
                List.of("publishers"), limit);
    }

    private static ScenarioResult.Interval interval(long fromMs, long toMs, long... values) {
        Histogram h = LatencyRange.histogram();
        for (long v : values) {
            h.recordValue(v);
        }
        return ScenarioLinks.interval(fromMs, toMs, null, h);
    }

    @Test
    void eachIntervalCorrectedByItsOwnOffsetAndTheBoundIsTheWidest() {
        // measured 3.1/3.2/3.3 ms in [0.5 s, 1.5 s] (offset −3 ms) and 5.4/5.5 ms in [2.5 s, 3.5 s] (offset −5 ms):
        // corrected 100, 200, 300, 400, 500 µs; p50 = the third of five = 300 µs
        List<ScenarioResult.Interval> in = List.of(interval(5_000_500, 5_001_500, 3_100_000, 3_200_000, 3_300_000),
                interval(5_002_500, 5_003_500, 5_400_000, 5_500_000));
        ScenarioClockFigures f = ScenarioClockFigures.of(track(ClockErrorLimit.parse("10%")), in,
                ClockErrorLimit.parse("10%"));
        // each to the resolution of the measured value's bucket: 2,048 ns from 2^21 to 2^22 ns, 4,096 ns above
        assertEquals(300, f.corrected().p50Us(), 2.048);
        assertEquals(100, f.corrected().minUs(), 2.048);
        assertEquals(500, f.corrected().maxUs(), 4.096);
        // bound: half the best round trip (20 µs), no residual, no move within either interval, plus the resolution
        // at the widest interval's largest value (5.5 ms: 4,096 ns)
        assertEquals(20_000 + 4_096, f.errorBoundNs(), 1);
        assertEquals(0, f.belowZero());
        assertNull(f.warning()); // 20 µs is within 10 % of 300 µs
        ScenarioClockFigures tight = ScenarioClockFigures.of(track(null), in, ClockErrorLimit.parse("5us"));
        assertTrue(tight.warning().contains("24.1 us") && tight.warning().contains("--max-clock-error 0.005 ms"),
                tight.warning());
        Map<String, Object> m = f.toMap();
        @SuppressWarnings("unchecked")
        Map<String, Object> pair = (Map<String, Object>) ((Map<String, Object>) m.get("pairs")).get("publishers -> subscribers");
        assertEquals(-3_000.0, (Double) pair.get("offset_at_first_probe_us"), 1e-9);
        assertEquals(-5_000.0, (Double) pair.get("offset_at_last_probe_us"), 1e-9);
        @SuppressWarnings("unchecked")
        Map<String, Object> step = ((List<Map<String, Object>>) pair.get("steps")).get(0);
        assertEquals(-2_000.0, (Double) step.get("size_us"), 1e-9);
        assertEquals(2.125, (Double) step.get("after_first_probe_s"), 1e-9);
        assertEquals(List.of("publishers"), m.get("test_hook_agents"));
    }

    @Test
    void aRunOnOneBoxHasNoCorrection() {
        assertNull(ScenarioClockFigures.of(null, List.of(), ClockErrorLimit.DEFAULT));
    }
}
