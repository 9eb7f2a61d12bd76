package io.msgscope.coordinator.capacity;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.msgscope.coordinator.results.Json;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A capacity step in scenario mode (issue 31 item 4) read from a hand-made scenario summary.json: fan-out to 2
 * subscribers at a total of 1,000 msg/s, objective p99 ≤ 1 ms and p999 ≤ 2 ms, so τ = 100 µs. Every figure is worked
 * out by hand in the comments.
 */
class ScenarioStepTest {
    private static final Objective OBJECTIVE = Objective.parse("--objective", "p99=1ms,p999=2ms");

    /** The step: 3,000 sent, 6,000 deliveries expected (2 each), {@code received} received; windows as given. */
    private static ObjectNode summary(long received, long[][] phases) {
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("mode", "scenario");
        s.put("status", "ok");
        ObjectNode r = s.putObject("results");
        r.put("intended_latency_p50_us", 300.0);
        r.put("intended_latency_p99_us", 800.0);
        r.put("intended_latency_p999_us", 1500.0);
        r.put("messages_sent", 3000);
        r.put("expected_messages", 6000);
        r.put("messages_received", received);
        r.put("send_rate", 1000.5);
        r.put("publishers_cpu_us_per_message", 2.5);
        ArrayNode ps = s.putArray("phases");
        for (long[] p : phases) { // windows, expected, received, p99 µs
            ObjectNode o = ps.addObject();
            o.put("windows", p[0]);
            if (p[0] == 0) {
                o.putNull("expected_messages");
                o.putNull("messages_received");
                o.putObject("latency_from_intended").putNull("latency_p99_us");
            } else {
                o.put("expected_messages", p[1]);
                o.put("messages_received", p[2]);
                o.putObject("latency_from_intended").put("latency_p99_us", (double) p[3]);
            }
        }
        return s;
    }

    @Test
    void aSteadyFanOutStepPassesOnItsDeliveries() {
        // phase 2 had no poll window: left out. F = [2000-1990, +2000-2010, +2000-2000] = [10, 0, 0]:
        // slope = ((-1)(10 - 10/3) + (1)(0 - 10/3)) / 2 = -5, ΔF = -5 · 2 = -10 deliveries, at 1,000 msg/s × 2
        // deliveries per message: -10 / 2000 s = -5,000 µs. q = [700, 720, 710]: slope = ((-1)(-10) + (1)(0)) / 2 = 5,
        // ΔQ = 10 µs ≤ 100 µs.
        Step st = Step.read(StepMode.SCENARIO, summary(6000, new long[][]{
            {1, 2000, 1990, 700}, {0, 0, 0, 0}, {2, 2000, 2010, 720}, {1, 2000, 2000, 710}}),
                0, OBJECTIVE, "step-01-1000", 1000, 4, 9.5);
        assertTrue(st.pass(), st::why);
        assertNull(st.why());
        assertEquals(Map.of("p99", 800.0, "p999", 1500.0), st.percentilesUs());
        assertEquals(0L, st.lost());
        assertEquals(1000.5, st.rateAchieved());
        assertEquals("ok", st.status());
        assertEquals(List.of(10L, 0L, 0L), st.verdict().inFlight());
        assertEquals(10, st.verdict().latencyRiseUs(), 1e-9);
        assertEquals(-10, st.verdict().backlogGrowth(), 1e-9);
        assertEquals(-5000, st.verdict().backlogGrowthUs(), 1e-9);
        assertEquals(100, st.verdict().toleranceUs(), 1e-9);
        assertEquals(Map.of("publishers agents", 2500.0), st.cpuNsPerMessage());
        assertEquals(0.8, st.worstRatio(OBJECTIVE), 1e-12); // 800 / 1000 above 1500 / 2000
    }

    @Test
    void deliveriesShortOfTheExpectedAreLost() {
        // 6,000 expected − 5,990 received = 10 lost
        Step st = Step.read(StepMode.SCENARIO, summary(5990, new long[][]{
            {1, 2000, 2000, 700}, {1, 2000, 2000, 700}, {1, 2000, 1990, 700}}), 0, OBJECTIVE, "s", 1000, 3, 8);
        assertEquals(10L, st.lost());
        assertFalse(st.pass());
        assertEquals("10 messages lost", st.why());
        // more received than expected (duplicates) loses nothing
        assertEquals(0L, Step.read(StepMode.SCENARIO, summary(6003, new long[][]{{1, 2000, 2000, 700},
            {1, 2000, 2000, 700}}), 0, OBJECTIVE, "s", 1000, 2, 8).lost());
    }

    @Test
    void aGrowingBacklogOfDeliveriesIsNotStationary() {
        // F = [100, 200, 300]: slope 100, ΔF = 200 deliveries, / (1,000 × 2 per s) = 100,000 µs > 100 µs
        Step st = Step.read(StepMode.SCENARIO, summary(6000, new long[][]{
            {1, 2000, 1900, 700}, {1, 2000, 1900, 700}, {1, 2000, 1900, 700}}), 0, OBJECTIVE, "s", 1000, 3, 8);
        assertFalse(st.verdict().stationary());
        assertEquals(200, st.verdict().backlogGrowth(), 1e-9);
        assertEquals(100_000, st.verdict().backlogGrowthUs(), 1e-6);
        assertTrue(st.why().startsWith("not stationary: the backlog grew by 200 messages"), st.why());
        assertTrue(st.onlyUnsteady());
    }

    @Test
    void aPercentileTheScenarioDoesNotReportIsRefused() {
        StepMode.SCENARIO.check("--objective", OBJECTIVE);
        StepMode.TRACE.check("--objective", Objective.parse("--objective", "p90=1ms"));
        io.msgscope.core.SpecException e = org.junit.jupiter.api.Assertions.assertThrows(
                io.msgscope.core.SpecException.class,
                () -> StepMode.SCENARIO.check("--objective", Objective.parse("--objective", "p9999=1ms")));
        assertTrue(e.getMessage().contains("not p9999"), e.getMessage());
    }
}
