package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code msgscope capacity --scenario} end to end on NATS (issue 31 item 4): each step a fan-in scenario of 2
 * publishers and 1 subscriber at a TOTAL rate, read back from the step's scenario summary.json. The objective is loose
 * (p99 from the intended send time ≤ 2 s, on a shared 2-core box) and --to low, so both steps pass: the search reads
 * 200 msg/s, doubles to --to 400, which passes too, and stops. About 30 s.
 */
class CapacityScenarioIT {
    @TempDir
    Path tmp;

    @Test
    void searchesTheTotalRateOfAScenario() throws Exception {
        ScenarioIT.requireBroker(4222, "nats-server");
        Path out = tmp.resolve("cap");
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "capacity", "--scenario", "fan-in", "--driver", "nats",
                "--publishers", "2", "--subscribers", "1", "--objective", "p99=2s", "--from", "200", "--to", "400",
                "--precision", "100%", "--hold", "3", "--max-hold", "3", "--repeats", "1", "--warmup", "1",
                "--out", out.toString());
        int code = p.waitFor(180);
        String said = p.out();
        String err = p.err();
        assertEquals(0, code, () -> said + err);
        System.out.println(said);
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("scenario", s.get("search").get("step_mode").asText());
        assertEquals("fan-in", s.get("spec").get("scenario").asText());
        assertEquals(400, s.get("capacity").get("found_msg_s").asDouble(), "--to passed: the search ends there");
        JsonNode steps = s.get("steps");
        assertEquals(2, steps.size(), steps::toString);
        double[] rates = {200, 400};
        for (int i = 0; i < 2; i++) {
            JsonNode st = steps.get(i);
            assertEquals(rates[i], st.get("rate_asked_msg_s").asDouble());
            JsonNode rs = new ObjectMapper().readTree(out.resolve(st.get("folder").asText()).resolve("summary.json")
                    .toFile());
            assertEquals("scenario", rs.get("mode").asText());
            JsonNode r = rs.get("results");
            assertEquals(2, rs.get("spec").get("publishers").asInt(), "the rate is the total over the publishers");
            assertEquals(r.get("intended_latency_p99_us").asDouble(),
                    st.get("latency_from_intended").get("p99_us").asDouble(), 1e-9, "the step's p99 is its scenario's");
            assertEquals(Math.max(0, r.get("expected_messages").asLong() - r.get("messages_received").asLong()),
                    st.get("messages_lost").asLong());
            assertEquals(r.get("send_rate").asDouble(), st.get("rate_achieved_msg_s").asDouble(), 1e-9);
            long windows = 0;
            for (JsonNode ph : rs.get("phases")) {
                windows += ph.get("windows").asLong() > 0 ? 1 : 0;
            }
            assertEquals(windows, st.get("stationarity").get("in_flight_at_window_end").size(),
                    "one stationarity window per phase a poll window fell in");
            assertTrue(st.get("pass").asBoolean(), st::toString);
        }
        assertTrue(said.contains("sustains 400 msg/s in total over the publishers within p99 ≤ 2 s"), said);
    }
}
