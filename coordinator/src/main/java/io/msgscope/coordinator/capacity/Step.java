package io.msgscope.coordinator.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.view.SummaryView;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One step of a capacity search: a trace run or a scenario ({@link StepMode}) at one constant rate, held for
 * {@code holdS} 1-second windows, read back from its summary.json and judged against the objective. Immutable.
 *
 * @param folder        the step's run folder, relative to the search's
 * @param rateAsked     msg/s
 * @param holdS         seconds held (windows)
 * @param status        the run's status ({@code ok}, {@code failed}, ...), or why there is no summary
 * @param rateAchieved  the run's send rate, msg/s; null when unknown
 * @param percentilesUs each objective percentile of the latency from the intended send time over the step, µs (null
 *                      when unknown), in the objective's order
 * @param lost          messages lost (scenario: deliveries expected less those received, at least 0); null when
 *                      unknown
 * @param verdict       the stationarity test; null when the run reported no windows
 * @param pass          every percentile within its bound, nothing lost, stationary, the run ok
 * @param why           why it failed; null when it passed
 * @param seconds       wall seconds the step took, its agents' start and the analysis included
 * @param cpuNsPerMessage the run's CPU per message by role (its {@code cpu} figures); empty when it has none
 */
public record Step(String folder, double rateAsked, int holdS, String status, Double rateAchieved,
                   Map<String, Double> percentilesUs, Long lost, Stationarity.Verdict verdict, boolean pass, String why,
                   double seconds, Map<String, Double> cpuNsPerMessage) {
    public Step {
        percentilesUs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(percentilesUs));
        cpuNsPerMessage = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(cpuNsPerMessage));
    }

    /** The {@code --phases} of a step: {@code holdS} constant 1-second windows at {@code rate}. */
    public static String phases(double rate, int holdS) {
        List<String> w = new ArrayList<>();
        for (int k = 1; k <= holdS; k++) {
            w.add(String.format(Locale.ROOT, "w%d:1s@%.0f", k, rate));
        }
        return String.join(",", w);
    }

    /**
     * A step read from its run's summary.json in {@code mode}'s terms ({@code summary} null: none was written,
     * {@code exit} says how the run ended) and judged against {@code objective}.
     */
    public static Step read(StepMode mode, JsonNode summary, int exit, Objective objective, String folder, double rate,
                            int holdS, double seconds) {
        if (summary == null) {
            Map<String, Double> pct = new LinkedHashMap<>();
            objective.bounds().forEach(b -> pct.put(b.name(), null));
            return new Step(folder, rate, holdS, "no summary.json (exit " + exit + ")", null, pct, null, null, false,
                    "the run wrote no summary.json (exit " + exit + "; see its run.log)", seconds, Map.of());
        }
        StepMode.Reading r = mode.read(summary, objective);
        SummaryView view = new SummaryView(summary);
        String status = view.status();
        Stationarity.Verdict verdict = r.windows().size() < 2 ? null
                : Stationarity.test(r.windows(), rate * r.perMessage(), Stationarity.TOLERANCE * objective.tightestUs());
        String why = judge(objective, r.percentilesUs(), r.lost(), verdict, status,
                summary.path("failure_reason").asText(""));
        return new Step(folder, rate, holdS, status, r.rateAchieved(), r.percentilesUs(), r.lost(), verdict,
                why == null, why, seconds, view.cpuNsPerMessage());
    }

    /** Why a step fails, the first reason found; null when it passes. */
    static String judge(Objective objective, Map<String, Double> pct, Long lost, Stationarity.Verdict verdict,
                        String status, String failure) {
        if (lost == null || lost > 0) {
            return lost == null ? "loss unknown" : lost + " messages lost";
        }
        for (Objective.Bound b : objective.bounds()) {
            Double v = pct.get(b.name());
            if (v == null) {
                return b.name() + " unknown";
            }
            if (v > b.boundUs()) {
                return String.format(Locale.ROOT, "%s = %s > %s", b.name(),
                        io.msgscope.analysis.output.HumanFormat.duration(v * 1e3),
                        io.msgscope.analysis.output.HumanFormat.duration(b.boundUs() * 1e3));
            }
        }
        if (verdict == null) {
            return "no windows to test for stationarity";
        }
        if (!verdict.stationary()) {
            return "not stationary: " + verdict.why();
        }
        if (!"ok".equals(status)) {
            return "the run " + status + ": " + failure;
        }
        return null;
    }

    /**
     * The objective's worst ratio of percentile to bound (1 = at the bound); a step that failed for another reason
     * (loss, backlog) counts at least 1. NaN when a percentile is unknown.
     */
    public double worstRatio(Objective objective) {
        double worst = 0;
        for (Objective.Bound b : objective.bounds()) {
            Double v = percentilesUs.get(b.name());
            if (v == null) {
                return Double.NaN;
            }
            worst = Math.max(worst, v / b.boundUs());
        }
        return pass ? worst : Math.max(1, worst);
    }

    /** Whether the objective held and nothing was lost, so that holding longer could decide stationarity. */
    boolean onlyUnsteady() {
        return !pass && verdict != null && !verdict.stationary() && why.startsWith("not stationary");
    }

    /** One entry of summary.json's {@code steps}. */
    Map<String, Object> toMap(int index, String role) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("index", index);
        m.put("role", role);
        m.put("folder", folder);
        m.put("rate_asked_msg_s", rateAsked);
        m.put("rate_achieved_msg_s", rateAchieved == null ? null : Json.finite(rateAchieved));
        m.put("hold_s", holdS);
        m.put("run_status", status);
        Map<String, Object> p = new LinkedHashMap<>();
        percentilesUs.forEach((k, v) -> p.put(k + "_us", v));
        m.put("latency_from_intended", p);
        m.put("messages_lost", lost);
        m.put("stationarity", verdict == null ? null : verdict.toMap());
        m.put("pass", pass);
        m.put("reason", why);
        m.put("seconds", seconds);
        m.put("cpu_ns_per_message", cpuNsPerMessage.isEmpty() ? null : new LinkedHashMap<>(cpuNsPerMessage));
        return m;
    }
}
