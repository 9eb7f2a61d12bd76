package io.msgscope.coordinator.scenario;

import io.msgscope.core.driver.Fault;

import java.util.Map;

/** Sums and verdicts over a scenario's counters, as the agents report them (Q5, issue 13). */
final class ScenarioCounters {
    private ScenarioCounters() {
    }

    static long failedConnections(Map<String, Long> counters) {
        long n = 0;
        for (Map.Entry<String, Long> e : counters.entrySet()) {
            if (e.getKey().startsWith("connect_failed_")) {
                n += e.getValue();
            }
        }
        return n;
    }

    /** Every {@code errors_<kind>} counter summed. */
    static long errors(Map<String, Long> counters) {
        long n = 0;
        for (Fault.Kind k : Fault.Kind.values()) {
            n += counters.getOrDefault(k.field(), 0L);
        }
        return n;
    }

    static boolean allLost(Map<String, Long> subCounters) {
        long n = subCounters.getOrDefault("subscriptions", 0L);
        return n > 0 && subCounters.getOrDefault("subscriptions_lost", 0L) >= n;
    }

    static boolean allStopped(Map<String, Long> pubCounters) {
        long n = pubCounters.getOrDefault("publishers", 0L);
        return n > 0 && pubCounters.getOrDefault("publishers_stopped", 0L) >= n;
    }
}
