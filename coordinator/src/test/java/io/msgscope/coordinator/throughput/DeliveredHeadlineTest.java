package io.msgscope.coordinator.throughput;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.coordinator.view.SummaryView;
import io.msgscope.proto.FlowResult;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 27, item 3: the headline of a throughput measurement is the rate delivered over the sampling period (messages
 * / period), not the median of the windows, which a few stalled windows leave untouched.
 */
class DeliveredHeadlineTest {

    /**
     * 20 windows: 18 of 10 ms with 1,000 messages each (100,000 msg/s) and 2 stalled ones of 100 ms with 1,000
     * messages (10,000 msg/s), samples 5 and 14. By hand: 20,000 messages over 18 x 10 + 2 x 100 = 380 ms is
     * 52,631.58 msg/s; the median window runs at 100,000.
     */
    static FlowResult stalled() {
        FlowResult.Builder b = FlowResult.newBuilder().setInFlight(100).setSent(20_000).setReceived(20_000);
        for (int i = 0; i < 20; i++) {
            boolean stall = i == 5 || i == 14;
            b.addSamples(stall ? 10_000.0 : 100_000.0).addSampleNs(stall ? 100_000_000L : 10_000_000L);
        }
        return b.setSampledMessages(20_000).setSamplingNs(380_000_000L).build();
    }

    static final double DELIVERED = 20_000 / 0.380; // 52,631.58 msg/s

    @Test
    void theHeadlineIsMessagesOverThePeriod() throws Exception {
        FlowResult r = stalled();
        ThroughputStats st = ThroughputStats.of(r);
        Map<String, Object> result = FinalMeasurement.of(r, st, 100).toMap();
        assertEquals(DELIVERED, (Double) result.get("delivered_msg_s"), DELIVERED * 0.005);
        assertEquals(DELIVERED * 100, (Double) result.get("delivered_bytes_s"), DELIVERED * 100 * 0.005);
        assertEquals(100_000.0, result.get("window_median_msg_s"));
        assertEquals(100_000.0, result.get("median_msg_s"), "kept one release under its old name");
        assertTrue(((Map<?, ?>) result.get("deprecated")).containsKey("median_msg_s"));

        // what compare, the sweep tables and the report read
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("mode", "throughput");
        root.put("settings", Map.of("size", 100));
        root.put("probes", List.of());
        root.put("result", result);
        SummaryView v = new SummaryView(new ObjectMapper().valueToTree(root));
        assertEquals(DELIVERED, v.msgPerS(), DELIVERED * 0.005);
        assertEquals(DELIVERED * 100, v.bytesPerS(), DELIVERED * 100 * 0.005);
        assertEquals(100_000.0, v.windowMedianMsgPerS());

        // the console's line leads with it
        String line = ThroughputConsole.finalLine("tcp", 100, st);
        assertTrue(line.contains("delivered 52,600 msg/s"), line);
        assertTrue(line.indexOf("delivered") < line.indexOf("median"), line);
    }

    /**
     * Batch means over 10 blocks of 2 samples, by hand: blocks 2 and 7 hold a stall (C = 2,000 messages, S = 0.11 s),
     * the others C = 2,000, S = 0.02 s. R = 52,631.58; residuals C − R·S = 947.37 (x 8) and −3,789.47 (x 2);
     * Σ² = 35,900,277; se = √(Σ² / 90) / 0.038 = 16,620.5; half-width t(0.975, 9) x se = 2.26216 x 16,620.5 = 37,598.
     */
    @Test
    void itsIntervalByBatchMeans() {
        FlowResult r = stalled();
        @SuppressWarnings("unchecked")
        List<Double> ci = (List<Double>) FinalMeasurement.of(r, ThroughputStats.of(r), 100).toMap()
                .get("delivered_ci95_msg_s");
        assertEquals(DELIVERED - 37_598, ci.get(0), 2);
        assertEquals(DELIVERED + 37_598, ci.get(1), 2);
    }

    @Test
    void anAgentWithoutSpansGivesTheRateWithoutAnInterval() throws Exception {
        FlowResult r = stalled().toBuilder().clearSampleNs().build();
        Map<String, Object> result = FinalMeasurement.of(r, ThroughputStats.of(r), 100).toMap();
        assertEquals(DELIVERED, (Double) result.get("delivered_msg_s"), DELIVERED * 0.005);
        assertEquals(null, result.get("delivered_ci95_msg_s"), "unknown is null");
        JsonNode old = new ObjectMapper().readTree("{\"mode\": \"throughput\", \"settings\": {\"size\": 10}, "
                + "\"probes\": [], \"result\": {\"median_msg_s\": 100000.0, \"sampling_period\": {\"rate_msg_s\": "
                + "52631.6}}}");
        SummaryView v = new SummaryView(old); // a summary written before issue 27
        assertEquals(52_631.6, v.msgPerS());
        assertEquals(526_316.0, v.bytesPerS(), 1e-6);
        assertEquals(100_000.0, v.windowMedianMsgPerS());
    }
}
