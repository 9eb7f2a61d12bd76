package io.msgscope.coordinator.capacity;

import io.msgscope.coordinator.results.Envelope;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A capacity search's typed, immutable result (issue 31 item 4) and its summary.json after the envelope.
 *
 * @param envelope  tool, mode {@code capacity}, run id, driver, status, spec
 * @param objective the objective
 * @param settings  the search's settings
 * @param mode      what each step ran: {@code trace} or {@code scenario} (the rate the total over all publishers)
 * @param search    what the search found
 * @param knee      a throughput run's knee on the same set-up; null when none was given
 * @param seconds   wall seconds of the whole search
 * @param cut       how Ctrl-C stopped the search; null when it ran to its end
 */
public record CapacityResult(Envelope envelope, Objective objective, CapacitySearch.Settings settings,
                             StepMode mode, CapacitySearch.Result search, Knee knee, double seconds,
                             Cut cut) {

    /**
     * A search stopped by SIGINT or SIGTERM (issue 29); where it stood is {@code search().cutAt()}.
     *
     * @param signal      SIGINT or SIGTERM
     * @param notFinished the step cut before it kept anything (its folder), or empty
     */
    public record Cut(String signal, List<String> notFinished) {
        public Cut {
            notFinished = List.copyOf(notFinished);
        }
    }

    /** summary.json's {@code interrupted} section; null when the search ran to its end. */
    public Map<String, Object> interruptedMap() {
        if (cut == null) {
            return null;
        }
        CapacitySearch.State st = search.cutAt();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("signal", cut.signal());
        m.put("steps_finished", search.steps().size());
        m.put("not_finished", cut.notFinished());
        m.put("during", st.phase());
        m.put("last_passing_msg_s", st.lastPassing());
        m.put("first_failing_msg_s", st.firstFailing());
        m.put("converged", st.converged());
        return m;
    }

    /** The step that decided the found rate (its last run), or null. */
    public Step atFound() {
        return last(search.found());
    }

    /** The last decided run at the first failing rate, or null. */
    public Step atAbove() {
        return last(search.above());
    }

    private Step last(Double rate) {
        Step out = null;
        if (rate != null) {
            for (CapacitySearch.Taken t : search.steps()) {
                if (t.decides() && t.step().rateAsked() == rate) {
                    out = t.step();
                }
            }
        }
        return out;
    }

    /** Each rate run, ascending: its deciding runs, how many passed, whether one lost messages, and the verdict. */
    List<Map<String, Object>> rates() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (RateVerdict v : RateVerdict.of(search.steps())) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rate_msg_s", v.rate());
            m.put("runs", v.runs());
            m.put("runs_passed", v.passed());
            m.put("lost_messages", v.lost());
            m.put("verdict", switch (v.verdict()) {
                case PASS -> "pass";
                case FAIL -> "fail";
                case OPEN -> v.runs() == 0 ? "undecided" : "tie";
            });
            out.add(m);
        }
        return out;
    }

    /** The rates above the first failing one that passed by their majority (a noisy edge); empty when none did. */
    public List<Double> passedAbove() {
        List<Double> out = new ArrayList<>();
        for (RateVerdict v : RateVerdict.of(search.steps())) {
            if (search.above() != null && v.rate() > search.above() && v.verdict() == CapacitySearch.Verdict.PASS) {
                out.add(v.rate());
            }
        }
        return out;
    }

    /** summary.json: the envelope, then the objective, the settings, the found rate with its interval, every step. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = envelope.toMap();
        if (cut != null) {
            m.put("interrupted", interruptedMap());
        }
        m.put("objective", objective.toMap());
        Map<String, Object> set = new LinkedHashMap<>();
        boolean grid = settings.grid() != null;
        set.put("step_mode", mode.key());
        set.put("kind", grid ? "grid" : "search");
        set.put("rates_msg_s", settings.grid());
        set.put("from_msg_s", settings.from());
        set.put("to_msg_s", settings.to());
        set.put("precision", grid ? null : settings.precision());
        set.put("hold_s", settings.holdS());
        set.put("max_hold_s", settings.maxHoldS());
        set.put("repeats", settings.repeats());
        set.put("max_steps", grid ? null : settings.maxSteps());
        set.put("window_s", 1);
        set.put("stationarity_tolerance_of_tightest_bound", Stationarity.TOLERANCE);
        m.put("search", set);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("found_msg_s", search.found());
        c.put("first_failing_msg_s", search.above());
        c.put("edge", search.interval() == null ? null : search.interval().toMap());
        Step at = atFound();
        c.put("cpu_ns_per_message_at_found", at == null || at.cpuNsPerMessage().isEmpty() ? null
                : new LinkedHashMap<>(at.cpuNsPerMessage()));
        c.put("stop_reason", search.stop());
        c.put("rates", rates());
        c.put("passed_above_first_failing_msg_s", passedAbove());
        c.put("steps_taken", search.steps().size());
        c.put("seconds", seconds);
        m.put("capacity", c);
        m.put("throughput_knee", knee == null ? null : knee.toMap());
        List<Map<String, Object>> steps = new ArrayList<>();
        int i = 0;
        for (CapacitySearch.Taken t : search.steps()) {
            steps.add(t.step().toMap(++i, t.role()));
        }
        m.put("steps", steps);
        return m;
    }
}
