package io.msgscope.coordinator.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.msgscope.coordinator.results.Json;

import java.util.function.BiPredicate;

/**
 * A system whose latency rises at a known rate: below its capacity C the p99 from the intended send time is
 * base/(1 − r/C) µs (a queue's hockey stick) with a steady backlog; at C and above its backlog grows by (r − C)
 * messages a second and the p99 with it. A trace run's summary.json of a step at rate r held h seconds, as
 * {@code msgscope run --phases} writes it (the fields the capacity search reads).
 */
final class SimulatedSystem {
    final double capacity;
    final double baseUs;
    /** Steps (rate, hold) whose latency drifts up by 30 % of the p99 across the hold although the objective holds. */
    BiPredicate<Double, Integer> drifts = (r, h) -> false;
    /** Steps (rate, index of the run at that rate from 1) that lose a message. */
    BiPredicate<Double, Integer> loses = (r, i) -> false;
    /**
     * Noise: the factor on the p99 of a run (rate, index of the run at that rate from 1), e.g. 3 for a run that a
     * busy box slowed; 1 for none.
     */
    java.util.function.BiFunction<Double, Integer, Double> noise = (r, i) -> 1.0;
    /** The sender thread's CPU per message every run reports (its {@code cpu} section); NaN: none. */
    double senderCpuNs = Double.NaN;
    private final java.util.Map<Double, Integer> runs = new java.util.HashMap<>();

    SimulatedSystem(double capacity, double baseUs) {
        this.capacity = capacity;
        this.baseUs = baseUs;
    }

    /** The p99 at rate r below capacity, µs: where it reaches a bound B is the known edge C·(1 − base/B). */
    double p99Us(double r) {
        return r < capacity ? baseUs * capacity / (capacity - r) : 1e6;
    }

    JsonNode summary(double rate, int hold) {
        int run = runs.merge(rate, 1, Integer::sum);
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("mode", "trace");
        s.put("status", "ok");
        boolean lost = loses.test(rate, run);
        s.putObject("counters").put("messages_lost", lost ? 1 : 0);
        s.putObject("throughput").put("send_msg_s", Math.min(rate, rate));
        double p99 = p99Us(rate) * noise.apply(rate, run);
        s.putObject("series").putObject("latency_corrected_ns").put("p99", p99 * 1e3).put("p99_9", 2 * p99 * 1e3);
        ArrayNode phases = s.putArray("phases");
        boolean drift = rate < capacity && drifts.test(rate, hold);
        for (int k = 0; k < hold; k++) {
            ObjectNode p = phases.addObject();
            p.put("start_s", k);
            p.put("end_s", k + 1);
            p.put("sent_in_span_msg_s", rate);
            p.put("received_in_span_msg_s", rate < capacity ? rate : capacity);
            double q = rate < capacity ? p99 * (drift ? 1 + 0.3 * k / (hold - 1) : 1) : p99 * (k + 1);
            p.putObject("latency_from_intended").put("latency_p99_us", q);
        }
        if (!Double.isNaN(senderCpuNs)) {
            s.putObject("cpu").putObject("sender").putObject("time_weighted").put("cpu_ns_per_message",
                    senderCpuNs + rate / 100);
        }
        if (lost) {
            s.put("status", "failed");
            s.put("failure_reason", "1 of " + Math.round(rate * hold) + " messages lost");
        }
        return s;
    }

    CapacitySearch.Stepper stepper(Objective objective) {
        return (rate, hold) -> Step.read(StepMode.TRACE, summary(rate, hold), 0, objective, "step", rate, hold, hold + 6);
    }
}
