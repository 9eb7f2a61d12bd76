package io.msgscope.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ClockTest {

    @Test
    void fixedOffsetConversions() {
        Clock c = Clock.withOffset(1_000);
        assertEquals(1_000, c.epochMinusMono());
        assertEquals(1_500, c.toEpoch(500));
        assertEquals(500, c.toMono(1_500));
    }

    @Test
    void toEpochAndToMonoAreInverse() {
        Clock c = Clock.calibrate();
        long[] samples = {0, 1, -1, 123_456_789L, System.nanoTime(), Long.MAX_VALUE / 4};
        for (long mono : samples) {
            assertEquals(mono, c.toMono(c.toEpoch(mono)));
            assertEquals(mono, c.toEpoch(c.toMono(mono)));
        }
    }

    @Test
    void calibratedEpochIsNearWallClock() {
        Clock c = Clock.calibrate();
        long epochNs = c.toEpoch(c.monoNow());
        long wallNs = System.currentTimeMillis() * 1_000_000L;
        long diff = Math.abs(epochNs - wallNs);
        assertTrue(diff < 50_000_000L, "calibrated epoch off the wall clock by " + diff + " ns");
    }
}
