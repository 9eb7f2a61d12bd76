package io.msgscope.coordinator.throughput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.msgscope.coordinator.Golden;
import io.msgscope.core.RunSpec;
import io.msgscope.proto.FlowResult;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

/**
 * Issue 29: a throughput run stopped by SIGINT keeps what was measured — the search's probes that finished, a final
 * measurement cut short with the samples it took — and its summary says how far it got, its figures over that part.
 */
class ThroughputInterruptionTest {
    private static final RunSpec SPEC = RunSpec.builder().count(2).window(1).size(64).pin(false).driver("amqp")
            .uri("amqp://127.0.0.1:5672/%2f").build();
    private static final ThroughputResults.Given GIVEN = new ThroughputResults.Given(64, "zeros", 0, 20, "auto", 10, 2,
            200, 3000, 20000, 3, "knee", 2, 12);

    private static Map<String, Object> summary(ThroughputCollector c) {
        return ThroughputResults.summary(SPEC, GIVEN, c.outcome(), Golden.ENV, "t", "2026-01-02T03:04:05Z", List.of());
    }

    @Test
    void cutDuringTheSearchKeepsTheProbesThatFinishedAndNoResult() {
        ThroughputCollector c = new ThroughputCollector();
        for (long f : new long[] {1, 10, 100}) {
            c.probed(ThroughputStats.of(ThroughputGoldenTest.flow(f, 1_000.0 * f, 0)), "step", 1_000 * f);
        }
        c.interrupted("SIGINT", "search");
        c.interrupted("SIGTERM", "measurement"); // the first signal and stage stay
        c.failure = c.interruptedReason();
        c.failedDuring = "search";
        Map<String, Object> s = summary(c);
        assertEquals("interrupted", s.get("status"));
        assertEquals("interrupted by SIGINT during the search after 3 probes (the probe under way discarded); no "
                + "final measurement", s.get("failure_reason"));
        assertEquals(3, ((List<?>) s.get("probes")).size());
        assertFalse(s.containsKey("result"));
        Map<?, ?> cut = (Map<?, ?>) s.get("interrupted");
        assertEquals("SIGINT", cut.get("signal"));
        assertEquals("search", cut.get("during"));
        assertEquals(3, cut.get("probes_finished"));
        assertNull(cut.get("final_samples"));
        assertNull(cut.get("final_samples_asked"));
    }

    @Test
    void cutDuringTheFinalMeasurementKeepsItsSamples() {
        ThroughputCollector c = new ThroughputCollector();
        c.probed(ThroughputStats.of(ThroughputGoldenTest.flow(50, 40_000, 0)), "step", 1_000);
        FlowResult cut = ThroughputGoldenTest.flow(50, 40_000, 1); // 20 samples of the 3,000 asked
        c.finalCut(cut, 3000);
        c.interrupted("SIGINT", "measurement");
        c.failure = c.interruptedReason();
        c.failedDuring = "measurement";
        Map<String, Object> s = summary(c);
        assertEquals("interrupted by SIGINT during the measurement at F = 50 after 20 of 3000 samples (the search's 1 "
                + "probe finished); every figure is over the part that ran", s.get("failure_reason"));
        Map<?, ?> r = (Map<?, ?>) s.get("result");
        assertEquals(20, r.get("samples"));
        // the headline by hand: the sampled messages over the sampling period of the cut probe
        assertEquals(cut.getSampledMessages() * 1e9 / cut.getSamplingNs(), (Double) r.get("delivered_msg_s"), 1e-9);
        Map<?, ?> section = (Map<?, ?>) s.get("interrupted");
        assertEquals(20, section.get("final_samples"));
        assertEquals(3000, section.get("final_samples_asked"));
    }

    @Test
    void aFinalMeasurementCutBeforeItsFirstSampleIsNoResult() {
        ThroughputCollector c = new ThroughputCollector();
        c.finalCut(FlowResult.newBuilder().setInFlight(50).build(), 100);
        c.interrupted("SIGTERM", "measurement");
        c.failure = c.interruptedReason();
        c.failedDuring = "measurement";
        Map<String, Object> s = summary(c);
        assertFalse(s.containsKey("result"));
        assertEquals("interrupted by SIGTERM during the measurement at F = 50 after 0 of 100 samples; every figure is "
                + "over the part that ran", s.get("failure_reason"));
    }

    @Test
    void cutBeforeAnythingWasMeasured() {
        ThroughputCollector c = new ThroughputCollector();
        c.interrupted("SIGINT", "warm-up");
        assertEquals("interrupted by SIGINT during the warm-up; nothing was measured", c.interruptedReason());
    }
}
