package io.msgscope.coordinator.capacity;

import io.msgscope.analysis.output.HumanFormat;

import java.util.List;
import java.util.Locale;

/** What a capacity search says on the terminal: one line per run as it ends, and the answer. */
public final class CapacityConsole {
    private CapacityConsole() {
    }

    /** {@code [3] 4,000 msg/s held 5 s: pass (p99 1.2 ms; 61 s)}. */
    static String stepLine(int index, Step s) {
        StringBuilder p = new StringBuilder();
        s.percentilesUs().forEach((k, v) -> p.append(p.length() == 0 ? "" : ", ").append(k).append(' ')
                .append(v == null ? "-" : HumanFormat.duration(v * 1e3)));
        return String.format(Locale.ROOT, "[%d] %s msg/s held %d s: %s (%s; %.1f s)", index,
                HumanFormat.rate(s.rateAsked()), s.holdS(), s.pass() ? "pass" : "fail: " + s.why(), p, s.seconds());
    }

    /**
     * A grid's table, a line per rate, the rate exact (a grid's FROM..TO/STEP% rates are not round, and three
     * significant digits would show 252,695 as 253,000): {@code   252,695 msg/s: pass, 2 of 3 run(s) passed}.
     */
    public static List<String> rateLines(CapacityResult r) {
        return RateVerdict.of(r.search().steps()).stream().map(v -> String.format(Locale.ROOT,
                "  %,.0f msg/s: %s, %d of %d run(s) passed%s", v.rate(), switch (v.verdict()) {
                    case PASS -> "pass";
                    case FAIL -> "fail";
                    case OPEN -> "undecided";
                }, v.passed(), v.runs(), v.lost() ? " (a run lost messages)" : "")).toList();
    }

    /**
     * Ctrl-C's line and failure reason (issue 29): {@code interrupted by SIGINT after 3 steps (not finished: step-04-8000) during the
     * bisection phase; so far 4,000 msg/s passed and 8,000 msg/s failed; not converged, no capacity found}.
     */
    public static String interrupted(CapacitySearch.Result search, CapacityResult.Cut cut) {
        CapacitySearch.State st = search.cutAt();
        List<String> nf = cut.notFinished();
        return String.format(Locale.ROOT, "interrupted by %s after %d step(s)%s during the %s phase; so far %s and %s; %s",
                cut.signal(), search.steps().size(), nf.isEmpty() ? "" : " (not finished: "
                        + String.join(", ", nf) + ")", st.phase(),
                st.lastPassing() == null ? "no rate passed" : HumanFormat.rate(st.lastPassing()) + " msg/s passed",
                st.firstFailing() == null ? "no rate failed" : HumanFormat.rate(st.firstFailing()) + " msg/s failed",
                st.converged() ? "the bracket had converged, so the rate found stands (with fewer repeats)"
                        : "not converged, no capacity found");
    }

    /**
     * The answer: {@code sustains 4,000 msg/s within p99 ≤ 5 ms (edge 95 % interval 4,100–4,600 msg/s); one step
     * above, 4,500 msg/s: p99 = 7.2 ms}; a scenario's rate says {@code in total over the publishers}.
     */
    public static String answer(CapacityResult r) {
        CapacitySearch.Result s = r.search();
        String obj = r.objective().text();
        boolean grid = r.settings().grid() != null;
        if (s.found() == null) {
            return "does not sustain even " + (grid ? "the lowest of --rates, " : "--from ")
                    + HumanFormat.rate(r.settings().from()) + " msg/s within " + obj
                    + (r.atAbove() == null ? "" : " (" + r.atAbove().why() + ")");
        }
        StringBuilder sb = new StringBuilder("sustains " + HumanFormat.rate(s.found()) + " msg/s"
                + (r.mode() == StepMode.SCENARIO ? " in total over the publishers" : "") + " within " + obj);
        EdgeInterval e = s.interval();
        if (e != null && e.low() != null) {
            sb.append(" (edge 95 % interval ").append(HumanFormat.rate(e.low())).append('–')
                    .append(HumanFormat.rate(e.high())).append(" msg/s)");
        }
        Step above = r.atAbove();
        if (grid) {
            sb.append(", and at every lower rate of --rates, each by the majority of its runs");
        }
        if (above == null) {
            sb.append(grid ? "; the objective held at every rate of --rates, so the capacity may be higher"
                    : "; the objective held up to --to, so the capacity may be higher");
        } else {
            sb.append("; one step above, ").append(HumanFormat.rate(above.rateAsked())).append(" msg/s: ");
            StringBuilder p = new StringBuilder();
            above.percentilesUs().forEach((k, v) -> p.append(p.length() == 0 ? "" : ", ").append(k).append(" = ")
                    .append(v == null ? "unknown" : HumanFormat.duration(v * 1e3)));
            sb.append(p);
            if (above.why() != null && !above.why().startsWith("p")) {
                sb.append(" (").append(above.why()).append(')');
            }
        }
        List<Double> passedAbove = r.passedAbove();
        if (!passedAbove.isEmpty()) {
            sb.append("; passed again above it, so the edge is noisy: ");
            for (int i = 0; i < passedAbove.size(); i++) {
                sb.append(i == 0 ? "" : ", ").append(HumanFormat.rate(passedAbove.get(i)));
            }
            sb.append(" msg/s");
        }
        if (r.knee() != null) {
            sb.append(String.format(Locale.ROOT, "; the closed-loop knee (throughput mode) was %s msg/s at F = %d",
                    HumanFormat.rate(r.knee().msgPerS()), r.knee().inFlight()));
        }
        return sb.toString();
    }
}
