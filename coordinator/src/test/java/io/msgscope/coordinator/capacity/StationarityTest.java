package io.msgscope.coordinator.capacity;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stationarity test computed by hand on four windows (docs/statistics.md). */
class StationarityTest {
    @Test
    void latencyRiseByHand() {
        // q = 100, 110, 130, 160 µs over k = 1..4: k̄ = 2.5, d = -1.5, -0.5, 0.5, 1.5, Σd² = 5, q̄ = 125,
        // Σd(q - q̄) = 37.5 + 7.5 + 2.5 + 52.5 = 100, slope 20 µs per window, rise 20 × 3 = 60 µs
        List<Stationarity.Window> w = List.of(new Stationarity.Window(100, 1000, 990),
                new Stationarity.Window(110, 1000, 1000), new Stationarity.Window(130, 1000, 1000),
                new Stationarity.Window(160, 1000, 1010));
        Stationarity.Verdict v = Stationarity.test(w, 1000, 50);
        assertEquals(60, v.latencyRiseUs(), 1e-9);
        // F = 10, 10, 10, 0: F̄ = 7.5, Σd(F - F̄) = -3.75 - 1.25 + 1.25 - 11.25 = -15, slope -3, growth -9 messages
        assertEquals(List.of(10L, 10L, 10L, 0L), v.inFlight());
        assertEquals(-9, v.backlogGrowth(), 1e-9);
        assertEquals(-9000, v.backlogGrowthUs(), 1e-9); // -9 messages at 1000 msg/s: -9 ms
        assertFalse(v.stationary()); // 60 µs > τ = 50 µs
        assertTrue(v.why().startsWith("p99 from the intended time rose 60 µs across the hold (tolerance 50 µs)"));
        assertTrue(Stationarity.test(w, 1000, 60).stationary()); // ΔQ ≤ τ: exactly at the tolerance passes
    }

    @Test
    void growingBacklogByHand() {
        // 1000 sent, 900 received a window: F = 100, 200, 300, 400, slope 100, growth 300 messages = 0.3 s at 1000/s
        List<Stationarity.Window> w = List.of(new Stationarity.Window(50, 1000, 900),
                new Stationarity.Window(50, 1000, 900), new Stationarity.Window(50, 1000, 900),
                new Stationarity.Window(50, 1000, 900));
        Stationarity.Verdict v = Stationarity.test(w, 1000, 500);
        assertEquals(0, v.latencyRiseUs(), 1e-9);
        assertEquals(300, v.backlogGrowth(), 1e-9);
        assertEquals(300_000, v.backlogGrowthUs(), 1e-6);
        assertFalse(v.stationary());
        assertEquals("the backlog grew by 300 messages across the hold, 300 ms of waiting at the rate asked (tolerance "
                + "500 µs)", v.why());
    }

    @Test
    void aWindowWithoutLatencyIsNotStationaryAndOneWindowIsTooFew() {
        Stationarity.Verdict v = Stationarity.test(List.of(new Stationarity.Window(50, 10, 10),
                new Stationarity.Window(Double.NaN, 10, 0)), 10, 500);
        assertFalse(v.stationary());
        assertEquals("a window received nothing", v.why());
        assertTrue(Double.isNaN(v.latencyRiseUs()));
        assertThrows(IllegalArgumentException.class, () -> Stationarity.test(List.of(new Stationarity.Window(1, 1, 1)),
                1, 1));
    }
}
