package io.msgscope.coordinator.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.core.SpecException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What each step of a capacity search runs (issue 31 item 4) and how its summary.json is read: a trace run
 * ({@code msgscope run}, one sender at the rate) or a scenario ({@code msgscope scenario}, the rate the TOTAL over all
 * publishers). Both read the same figures, judged alike by {@link Step}: the objective's percentiles of the latency
 * from the intended send time over the step, the messages lost, and one stationarity window per second held.
 */
public enum StepMode {
    /** Each step a trace run: {@code series.latency_corrected_ns}, {@code counters.messages_lost}, 1 s phases. */
    TRACE("trace", "run") {
        @Override
        Reading read(JsonNode s, Objective objective) {
            Map<String, Double> pct = new LinkedHashMap<>();
            for (Objective.Bound b : objective.bounds()) {
                pct.put(b.name(), number(s.path("series").path("latency_corrected_ns").path(b.seriesKey()), 1e-3));
            }
            Double lostN = number(s.path("counters").path("messages_lost"), 1);
            List<Stationarity.Window> windows = new ArrayList<>();
            for (JsonNode p : s.path("phases")) {
                double span = p.path("end_s").asDouble() - p.path("start_s").asDouble();
                windows.add(new Stationarity.Window(p99(p),
                        Math.round(p.path("sent_in_span_msg_s").asDouble(0) * span),
                        Math.round(p.path("received_in_span_msg_s").asDouble(0) * span)));
            }
            return new Reading(number(s.path("throughput").path("send_msg_s"), 1), pct,
                    lostN == null ? null : Math.round(lostN), windows, 1);
        }
    },
    /**
     * Each step a scenario: {@code results.intended_latency_*}, the deliveries expected ({@code expected_messages},
     * fan-out included) less those received, and the phases' poll windows — a phase no window fell in is left out,
     * and a window's backlog is counted in deliveries (expected − received), so its rate is the asked rate times the
     * deliveries expected per message sent.
     */
    SCENARIO("scenario", "scenario") {
        @Override
        Reading read(JsonNode s, Objective objective) {
            JsonNode r = s.path("results");
            Map<String, Double> pct = new LinkedHashMap<>();
            for (Objective.Bound b : objective.bounds()) {
                pct.put(b.name(), number(r.path("intended_latency_" + b.name() + "_us"), 1));
            }
            Double sent = number(r.path("messages_sent"), 1);
            Double expected = number(r.path("expected_messages"), 1);
            Double received = number(r.path("messages_received"), 1);
            Long lost = expected == null || received == null ? null : Math.max(0, Math.round(expected - received));
            List<Stationarity.Window> windows = new ArrayList<>();
            for (JsonNode p : s.path("phases")) {
                if (p.path("windows").asInt(0) > 0) {
                    windows.add(new Stationarity.Window(p99(p), p.path("expected_messages").asLong(0),
                            p.path("messages_received").asLong(0)));
                }
            }
            double perMessage = sent == null || expected == null || sent == 0 ? 1 : expected / sent;
            return new Reading(number(r.path("send_rate"), 1), pct, lost, windows, perMessage);
        }
    };

    /** The percentiles a scenario's summary reports from the intended send time. */
    static final Set<String> SCENARIO_PERCENTILES = Set.of("p50", "p95", "p99", "p999");

    /**
     * One step's summary read in its mode's terms.
     *
     * @param rateAchieved  the send rate, msg/s; null when unknown
     * @param percentilesUs each objective percentile from the intended send time, µs (null when unknown)
     * @param lost          messages (scenario: deliveries) lost; null when unknown
     * @param windows       the stationarity windows
     * @param perMessage    backlog units per message sent: 1 in trace mode, the deliveries expected per message sent
     *                      in scenario mode (the subscribers a message fans out to)
     */
    record Reading(Double rateAchieved, Map<String, Double> percentilesUs, Long lost,
                   List<Stationarity.Window> windows, double perMessage) {
    }

    private final String key;
    private final String command;

    StepMode(String key, String command) {
        this.key = key;
        this.command = command;
    }

    /** summary.json's {@code step_mode}. */
    public String key() {
        return key;
    }

    /** The msgscope command each step runs. */
    public String command() {
        return command;
    }

    abstract Reading read(JsonNode summary, Objective objective);

    /** Refuses an objective whose percentiles this mode's steps do not report, naming {@code option}. */
    public void check(String option, Objective objective) {
        if (this == SCENARIO) {
            for (Objective.Bound b : objective.bounds()) {
                if (!SCENARIO_PERCENTILES.contains(b.name())) {
                    throw new SpecException(option, "a scenario reports p50, p95, p99 and p999 from the intended send "
                            + "time, not " + b.name());
                }
            }
        }
    }

    private static double p99(JsonNode phase) {
        Double v = number(phase.path("latency_from_intended").path("latency_p99_us"), 1);
        return v == null ? Double.NaN : v;
    }

    static Double number(JsonNode n, double scale) {
        return n.isNumber() ? n.asDouble() * scale : null;
    }
}
