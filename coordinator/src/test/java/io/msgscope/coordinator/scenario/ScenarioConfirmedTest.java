package io.msgscope.coordinator.scenario;

import io.msgscope.core.LatencyRange;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The publishers agents' confirmed count on the coordinator (issue 31 item 3): summed over the agents only when every one
 * reported it, and kept at each poll window's end as the running total the backlog's floor is made of.
 */
class ScenarioConfirmedTest {
    private static final String C = ScenarioCollector.CONFIRMED_SO_FAR;

    @Test
    void theSumStandsOnlyWhenEveryAgentReportedIt() {
        Map<String, Long> sums = new TreeMap<>(Map.of(C, 700L, "messages_sent", 900L));
        ScenarioCounters.confirmedOnlyFromAll(sums, List.of(Map.of(C, 400L), Map.of(C, 300L)));
        assertEquals(700L, sums.get(C));
        sums.put(C, 400L); // the second agent's publishers confirm nothing: it sent no such counter
        ScenarioCounters.confirmedOnlyFromAll(sums, List.of(Map.of(C, 400L), Map.of("messages_sent", 500L)));
        assertFalse(sums.containsKey(C));
        assertEquals(900L, sums.get("messages_sent"));
    }

    @Test
    void eachWindowKeepsTheConfirmedCountAtItsEnd() throws Exception {
        ScenarioCollector o = new ScenarioCollector();
        o.publisherCounters.put("messages_sent", 1_000L);
        o.publisherCounters.put(C, 940L);
        o.window(0, 1_000, List.of(), LatencyRange.histogram());
        o.publisherCounters.put("messages_sent", 2_500L);
        o.publisherCounters.put(C, 2_410L);
        o.window(1_000, 2_000, List.of(), LatencyRange.histogram());
        o.publisherCounters.remove(C); // an agent without it joined the sums
        o.publisherCounters.put("messages_sent", 3_000L);
        o.window(2_000, 3_000, List.of(), LatencyRange.histogram());
        assertEquals(940L, o.windows.get(0).confirmedByEnd()); // a running total, not the window's own
        assertEquals(2_410L, o.windows.get(1).confirmedByEnd());
        assertEquals(1_500L, o.windows.get(1).sent()); // sends stay per window: 2,500 - 1,000
        assertNull(o.windows.get(2).confirmedByEnd());
    }
}
