package io.msgscope.coordinator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

import java.util.Map;

/**
 * Issue 29: a scenario stopped by SIGINT keeps what was measured; its rates are over the seconds measured, not the
 * duration scheduled, the nominal count too, and its summary says how far it got.
 */
class ScenarioInterruptionTest {
    @Test
    void ratesAreOverTheSecondsMeasured() {
        // the golden run: 2 publishers x 100 msg/s for 2 s scheduled; 400 sent, 399 received — cut after 1.6 s
        ScenarioCollector o = ScenarioGoldenTest.goldenOutcome();
        o.interrupted("SIGINT", "measurement", 1.6, 2.0);
        ScenarioResult r = ScenarioSummary.build(ScenarioGoldenTest.goldenConfig(), o.outcome(), "QoS 1", true);
        Map<String, Object> s = r.toMap();
        assertEquals("interrupted", s.get("status"));
        assertEquals("measurement", s.get("failed_during"));
        assertEquals("interrupted by SIGINT during the measurement after 1.6 of 2 measured seconds; every figure is "
                + "over the part that ran", s.get("failure_reason"));
        Map<?, ?> results = (Map<?, ?>) s.get("results");
        assertEquals(400 / 1.6, (Double) results.get("send_rate"), 1e-9);
        assertEquals(399 / 1.6, (Double) results.get("receive_rate"), 1e-9);
        assertEquals(25_536 / 1.6, (Double) results.get("receive_bytes_rate"), 1e-9);
        assertEquals(2 * 100 * 1.6, ((Number) results.get("expected_nominal")).doubleValue(), 1.0);
        Map<?, ?> cut = (Map<?, ?>) s.get("interrupted");
        assertEquals("SIGINT", cut.get("signal"));
        assertEquals(1.6, cut.get("measured_s"));
        assertEquals(2.0, cut.get("duration_s"));
    }

    @Test
    void beforeTheMeasurementNothingWasMeasured() {
        ScenarioCollector o = new ScenarioCollector();
        o.interrupted("SIGTERM", "warm-up", null, 30);
        assertEquals("interrupted by SIGTERM during the warm-up; nothing was measured", o.failure);
        assertEquals("warm-up", o.failedDuring);
        assertNull(o.interruption.measuredS());
    }

    @Test
    void aFailureBeforeTheSignalStaysTheVerdict() {
        ScenarioCollector o = new ScenarioCollector();
        o.fail("all 1 subscriptions lost", "measurement");
        o.interrupted("SIGINT", "measurement", 3.0, 30);
        assertEquals("all 1 subscriptions lost", o.failure);
        assertNull(o.interruption);
    }
}
