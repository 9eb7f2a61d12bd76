package io.msgscope.coordinator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.function.IntToLongFunction;

/**
 * The golden scenario's latency percentiles computed here from its raw latencies (issue 36), so that
 * scenario-summary.json is not guarded only by a file the code wrote. The rule, written out:
 * <ol>
 *   <li>sort the N = 399 latencies; the p-th percentile is the k-th smallest, k = ⌈p/100 × N⌉ (nearest rank,
 *       what HdrHistogram's getValueAtPercentile does);</li>
 *   <li>the histogram (Q3: 1 µs to 10 s, 3 significant digits) keeps values below 2048 × 512 ns in steps of
 *       512 ns (1 µs lowest: 512 ns, the largest power of two not above it, is its unit), and reports a
 *       step's highest value: (⌊v / 512⌋ + 1) × 512 − 1 ns;</li>
 *   <li>in µs: divided by 1,000.</li>
 * </ol>
 * On today's input that gives p50 68.095, p95 85.503, p99 86.015 µs (the figures), written below too.
 */
class ScenarioPercentilesByHandTest {
    private static final long STEP_NS = 512;

    /** The {@code permille}-th percentile of the golden scenario's values, by the rule above, in µs. */
    private static double byHand(IntToLongFunction latencyOfMessage, int permille) {
        int n = ScenarioGoldenTest.SCENARIO_RECEIVED;
        long[] v = new long[n];
        for (int i = 1; i <= n; i++) {
            v[i - 1] = latencyOfMessage.applyAsLong(i);
        }
        Arrays.sort(v);
        int k = (permille * n + 999) / 1000; // ⌈permille × n / 1000⌉ in integers
        long value = v[k - 1];
        assertTrue(value < 2048 * STEP_NS, "the rule's step holds below 1,048,576 ns only");
        return ((value / STEP_NS + 1) * STEP_NS - 1) / 1000.0;
    }

    private static JsonNode results() throws Exception {
        return new ObjectMapper().readTree(ScenarioWriters.json(ScenarioGoldenTest.goldenScenario())).path("results");
    }

    @Test
    void latencyPercentilesAreTheNearestRanksOfTheRawLatencies() throws Exception {
        JsonNode r = results();
        IntToLongFunction latency = ScenarioGoldenTest::scenarioLatencyNs;
        assertEquals(68.095, byHand(latency, 500), 1e-9, "the rule itself, against the issue's figure");
        assertEquals(85.503, byHand(latency, 950), 1e-9);
        assertEquals(86.015, byHand(latency, 990), 1e-9);
        assertEquals(byHand(latency, 500), r.path("latency_p50_us").asDouble(), 1e-9);
        assertEquals(byHand(latency, 950), r.path("latency_p95_us").asDouble(), 1e-9);
        assertEquals(byHand(latency, 990), r.path("latency_p99_us").asDouble(), 1e-9);
        assertEquals(byHand(latency, 999), r.path("latency_p999_us").asDouble(), 1e-9);
        assertEquals(byHand(latency, 1000), r.path("latency_max_us").asDouble(), 1e-9);
    }

    @Test
    void intendedLatencyPercentilesAreTheNearestRanksOfTheRawLatencies() throws Exception {
        JsonNode r = results();
        IntToLongFunction intended = ScenarioGoldenTest::scenarioIntendedLatencyNs;
        assertEquals(byHand(intended, 500), r.path("intended_latency_p50_us").asDouble(), 1e-9);
        assertEquals(byHand(intended, 950), r.path("intended_latency_p95_us").asDouble(), 1e-9);
        assertEquals(byHand(intended, 990), r.path("intended_latency_p99_us").asDouble(), 1e-9);
        assertEquals(byHand(intended, 999), r.path("intended_latency_p999_us").asDouble(), 1e-9);
    }
}
