package io.msgscope.coordinator.capacity;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * One rate's runs and verdict, as the capacity search decides a rate (issue 31 item 4): PASS or FAIL by the majority
 * of its deciding runs, FAIL whatever the others did when one lost messages, OPEN on a tie or with none. The search
 * asks it of each rate as it goes; the summary's table of rates lists it for every rate run.
 *
 * @param rate    msg/s asked
 * @param runs    its deciding runs (a superseded or interrupted hold does not decide)
 * @param passed  those that passed
 * @param lost    whether one of them lost messages
 * @param verdict the majority's
 */
public record RateVerdict(double rate, int runs, int passed, boolean lost, CapacitySearch.Verdict verdict) {

    /** Every rate run in {@code steps}, ascending, with its deciding runs and verdict. */
    public static List<RateVerdict> of(List<CapacitySearch.Taken> steps) {
        TreeMap<Double, List<Step>> by = new TreeMap<>();
        for (CapacitySearch.Taken t : steps) {
            List<Step> d = by.computeIfAbsent(t.step().rateAsked(), r -> new ArrayList<>());
            if (t.decides()) {
                d.add(t.step());
            }
        }
        List<RateVerdict> out = new ArrayList<>();
        by.forEach((rate, d) -> out.add(new RateVerdict(rate, d.size(), (int) d.stream().filter(Step::pass).count(),
                d.stream().anyMatch(RateVerdict::lostMessages), verdictOf(d))));
        return out;
    }

    /** The majority's verdict over one rate's deciding runs {@code d}. */
    static CapacitySearch.Verdict verdictOf(List<Step> d) {
        if (d.stream().anyMatch(RateVerdict::lostMessages)) {
            return CapacitySearch.Verdict.FAIL;
        }
        long passed = d.stream().filter(Step::pass).count();
        long failed = d.size() - passed;
        return passed > failed ? CapacitySearch.Verdict.PASS
                : failed > passed ? CapacitySearch.Verdict.FAIL : CapacitySearch.Verdict.OPEN;
    }

    static boolean lostMessages(Step st) {
        return st.lost() != null && st.lost() > 0;
    }
}
