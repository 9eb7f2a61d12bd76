package io.msgscope.core.clock;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClockShiftTest {
    @Test
    void offsetDriftAndStepFromTheFirstReading() {
        ClockShift s = ClockShift.parse("offset=-3.7ms, drift=-20ppm, step=-2ms@4s");
        long t0 = 1_000_000_000L;
        assertEquals(-3_700_000, s.at(5)); // before any stamp: the offset alone
        assertEquals(-3_700_000, s.atStamp(t0)); // the first stamp is the origin
        assertEquals(-3_700_000 - 60_000, s.at(t0 + 3_000_000_000L)); // 3 s × −20 µs/s
        assertEquals(-3_700_000 - 80_000 - 2_000_000, s.at(t0 + 4_000_000_000L)); // stepped at 4 s
    }

    @Test
    void unitsAndBadValues() {
        assertEquals(1_500, ClockShift.nanos("1.5us"));
        assertEquals(2_000_000_000L, ClockShift.nanos("2s"));
        assertEquals(7, ClockShift.nanos("7ns"));
        assertEquals(0, ClockShift.parse("drift=0ppm").at(5));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClockShift.parse("offset=3"));
        assertTrue(e.getMessage().startsWith(ClockShift.ENV), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClockShift.parse("skew=3ms"));
        assertThrows(IllegalArgumentException.class, () -> ClockShift.parse("step=3ms"));
        assertThrows(IllegalArgumentException.class, () -> ClockShift.parse("drift=3"));
    }
}
