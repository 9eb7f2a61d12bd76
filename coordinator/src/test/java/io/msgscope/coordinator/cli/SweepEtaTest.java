package io.msgscope.coordinator.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The sweep's time left (issue 18): the remaining points at the mean wall time of those done. */
class SweepEtaTest {
    @Test
    void remainingPointsAtTheMeanTimeOfThoseDone() {
        assertEquals("~39 s left", SweepCommand.eta(39.0, 3, 3)); // 13 s a point, 3 to go
        assertEquals("~2 min 10 s left", SweepCommand.eta(26.0, 2, 10));
        assertEquals("~0 s left", SweepCommand.eta(5.0, 1, 0));
    }
}
