package io.msgscope.coordinator.capacity;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The edge's interval computed by hand (docs/statistics.md). */
class EdgeIntervalTest {
    @Test
    void threePairsByHand() {
        // L = 1000, U = 1100; e = 1000 + 100 (1 - xL)/(xU - xL):
        // (0.8, 1.2) → 1050, (0.9, 1.4) → 1020, (0.7, 1.1) → 1075
        EdgeInterval e = EdgeInterval.of(1000, 1100, List.of(0.8, 0.9, 0.7), List.of(1.2, 1.4, 1.1));
        assertEquals(1050, e.estimates().get(0), 1e-9);
        assertEquals(1020, e.estimates().get(1), 1e-9);
        assertEquals(1075, e.estimates().get(2), 1e-9);
        double mean = 3145 / 3.0; // 1048.333
        assertEquals(mean, e.mean(), 1e-9);
        // deviations 1.667, -28.333, 26.667: Σ² = 1516.667, s² = 758.333, half = t(0.975, 2) = 4.303 × √(758.333/3)
        double half = 4.303 * Math.sqrt(1516.6666666666667 / 2 / 3);
        assertEquals(68.41, half, 0.01);
        assertEquals(mean - half, e.low(), 1e-9);
        assertEquals(mean + half, e.high(), 1e-9);
    }

    @Test
    void clampsAndNeedsTwoPairs() {
        // both runs within the objective: extrapolated 1000 + 100 (1 - 0.5)/(0.6 - 0.5) = 1500, kept to U + (U - L)
        EdgeInterval one = EdgeInterval.of(1000, 1100, List.of(0.5), List.of(0.6));
        assertEquals(List.of(1200.0), one.estimates());
        assertEquals(1200, one.mean());
        assertNull(one.low());
        assertEquals(List.of(1100.0), EdgeInterval.of(1000, 1100, List.of(1.0), List.of(1.0)).estimates());
        assertNull(EdgeInterval.of(1000, 1100, List.of(Double.NaN), List.of(1.2)).mean());
        assertEquals(12.706, EdgeInterval.t975(1));
        assertEquals(1.96, EdgeInterval.t975(31));
    }
}
