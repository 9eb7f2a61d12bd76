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

    /**
     * Drops the publishers agents' summed {@link ScenarioCollector#CONFIRMED_SO_FAR} from {@code sums} unless every one
     * of {@code agents} (each agent's latest counters) reported it: a part of the confirmed count is no floor.
     */
    static void confirmedOnlyFromAll(Map<String, Long> sums, java.util.List<Map<String, Long>> agents) {
        for (Map<String, Long> a : agents) {
            if (!a.containsKey(ScenarioCollector.CONFIRMED_SO_FAR)) {
                sums.remove(ScenarioCollector.CONFIRMED_SO_FAR);
            }
        }
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
