package io.msgscope.coordinator.scenario;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * latency.hlog sums to the summary's latency: what the subscribers recorded between the drain's last PROGRESS
 * answer and their FINAL one goes into the drain interval (CI on 2026-11-27 saw 1,599 of 1,600 in the hlog).
 */
class ScenarioDrainTest {
    private static Histogram of(long... valuesNs) {
        Histogram h = io.msgscope.core.LatencyRange.histogram();
        for (long v : valuesNs) {
            h.recordValue(v);
        }
        return h;
    }

    private static Histogram decode(ScenarioResult.Interval i) throws Exception {
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(i.histogram()), 0);
    }

    @Test
    void aLateRecordingJoinsTheDrainInterval() throws Exception {
        ScenarioCollector o = new ScenarioCollector();
        o.intervals.add(ScenarioLinks.interval(1_000, 2_000, null, of(1_000, 2_000, 3_000)));
        o.intervals.add(ScenarioLinks.interval(2_000, 2_300, "drain", of(4_000)));
        o.latency = of(1_000, 2_000, 3_000, 4_000, 9_000_000); // FINAL: one more, 9 ms, after the last poll
        o.closeDrain(2_500);
        assertEquals(2, o.intervals.size());
        ScenarioResult.Interval drain = o.intervals.get(1);
        assertEquals("drain", drain.tag());
        assertEquals(2_000, drain.startEpochMs());
        assertEquals(2_500, drain.endEpochMs());
        Histogram h = decode(drain);
        assertEquals(2, h.getTotalCount());
        assertEquals(9_000_000, h.getMaxValue(), 9_000_000 * 0.001); // HdrHistogram's 3 digits
    }

    @Test
    void withoutADrainIntervalOneIsAdded() throws Exception {
        ScenarioCollector o = new ScenarioCollector();
        o.intervals.add(ScenarioLinks.interval(1_000, 2_000, null, of(1_000, 2_000)));
        o.latency = of(1_000, 2_000, 5_000);
        o.closeDrain(2_100);
        assertEquals(2, o.intervals.size());
        assertEquals(1, decode(o.intervals.get(1)).getTotalCount());
        assertEquals(2_000, o.intervals.get(1).startEpochMs());
    }

    @Test
    void nothingChangesWhenTheIntervalsAlreadySumToTheTotalOrAnAgentIsMissing() throws Exception {
        ScenarioCollector o = new ScenarioCollector();
        o.intervals.add(ScenarioLinks.interval(1_000, 2_000, null, of(1_000, 2_000)));
        o.latency = of(1_000, 2_000);
        o.closeDrain(2_100);
        assertEquals(1, o.intervals.size());
        o.latency = of(1_000, 2_000, 3_000);
        o.missingAgents.add("subscribers b: gone");
        o.closeDrain(2_100);
        assertEquals(1, o.intervals.size());
    }
}
