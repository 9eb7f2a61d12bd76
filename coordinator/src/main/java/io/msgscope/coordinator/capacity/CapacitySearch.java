package io.msgscope.coordinator.capacity;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The search for the most load within an objective (issue 31 item 4): from {@code from}, the rate doubles (capped at
 * {@code to}) until a step fails; then bisection between the last passing rate L and the first failing U until (U −
 * L)/L ≤ precision; then L and U are each run until they have {@code repeats} runs. A rate passes when every one of
 * its runs passed; when a repeat at L fails, U becomes L, L the largest lower rate that always passed, and the
 * bisection goes on. Each step starts held for {@code holdS} seconds; one whose objective held but whose latency or
 * backlog drifted is held again for twice as long, up to {@code maxHoldS}, before it counts as failed.
 */
public final class CapacitySearch {
    /**
     * The search's settings.
     *
     * @param from      the first rate, msg/s
     * @param to        the highest rate tried, msg/s
     * @param precision the bracket's width relative to L at which bisection stops, e.g. 0.05
     * @param holdS     seconds a step is first held (≥ 3)
     * @param maxHoldS  seconds an unsteady step may be held at most
     * @param repeats   runs at L and at U for the interval (≥ 1)
     * @param maxSteps  runs at most (the search stops there and says so)
     */
    public record Settings(double from, double to, double precision, int holdS, int maxHoldS, int repeats,
                           int maxSteps) {
    }

    /** Runs one step: a trace run at {@code rate} held {@code holdS} s, judged. */
    @FunctionalInterface
    public interface Stepper {
        Step run(double rate, int holdS) throws IOException, InterruptedException;
    }

    /**
     * One run of the search.
     *
     * @param step the step
     * @param role {@code coarse}, {@code bisection} or {@code repeat}; {@code superseded} for a hold whose objective
     *             held but whose latency or backlog drifted, decided by the longer hold that follows it
     */
    public record Taken(Step step, String role) {
        boolean decides() {
            return !role.equals("superseded") && !role.equals(INTERRUPTED);
        }
    }

    /**
     * What the search found.
     *
     * @param steps    every run in order (the holds of an unsteady step each count)
     * @param found    L, the largest rate that passed every run; null when even {@code from} failed
     * @param above    U, the smallest rate that failed; null when {@code to} passed
     * @param interval the edge's interval from the repeats; null when there is no bracket
     * @param stop     why the search ended, in words
     */
    public record Result(List<Taken> steps, Double found, Double above, EdgeInterval interval, String stop,
                         State cutAt) {
        public Result {
            steps = List.copyOf(steps);
        }

        /** A search that ran to its end. */
        public Result(List<Taken> steps, Double found, Double above, EdgeInterval interval, String stop) {
            this(steps, found, above, interval, stop, null);
        }
    }

    /** The role of a step cut by Ctrl-C whose own summary says interrupted: kept, but it decides nothing. */
    public static final String INTERRUPTED = "interrupted";

    /**
     * Where a search stopped by SIGINT or SIGTERM stood (issue 29).
     *
     * @param phase        {@code coarse}, {@code bisection} or {@code repeat}: what the search was doing
     * @param lastPassing  the largest rate whose decided runs all passed, below the first failing; null when none did
     * @param firstFailing the smallest rate with a failed decided run above it; null when none failed yet
     * @param converged    the bracket was already within --precision (or 1 msg/s) with every run at its lower end
     *                     passed: only repeats were left, so {@code lastPassing} is the rate found
     */
    public record State(String phase, Double lastPassing, Double firstFailing, boolean converged) {
    }

    /** Thrown by a {@link Stepper} when Ctrl-C stopped the search; {@code cut} is the step it cut, kept, or null. */
    public static final class Interrupted extends IOException {
        private final transient Step cut;

        public Interrupted(Step cut) {
            super("interrupted");
            this.cut = cut;
        }
    }

    private final Settings s;
    private final Objective objective;
    private final Stepper stepper;
    private final List<Taken> steps = new ArrayList<>();
    private String role = "coarse";
    private Double lo;
    private Double hi;

    public CapacitySearch(Settings settings, Objective objective, Stepper stepper) {
        this.s = settings;
        this.objective = objective;
        this.stepper = stepper;
    }

    /** The search, run to its end, or to the step a {@link Interrupted} stopped. */
    public Result run() throws IOException, InterruptedException {
        try {
            return search();
        } catch (Interrupted e) {
            if (e.cut != null) {
                steps.add(new Taken(e.cut, INTERRUPTED));
            }
            return cutShort();
        }
    }

    /**
     * The steps so far and where the search stood: the rate is claimed found only when it had converged (the edge's
     * interval then over the repeats that ran), else {@code found} and the interval are null.
     */
    private Result cutShort() {
        boolean loHeld = lo != null && alwaysPassed(lo);
        Double pass = lo == null || loHeld ? lo : largestPassBelow(lo);
        Double fail = lo != null && !loHeld ? lo : hi;
        boolean converged = pass != null && fail != null && pass.equals(lo)
                && ((fail - pass) / pass <= s.precision() || fail - pass <= 1);
        State st = new State(role, pass, fail, converged);
        Result r = finish(converged ? pass : null, fail, "interrupted during the " + role + " phase");
        return new Result(r.steps(), r.found(), r.above(), converged ? r.interval() : null, r.stop(), st);
    }

    private Result search() throws IOException, InterruptedException {
        double r = s.from();
        while (budget()) { // coarse: doubling
            if (step(r)) {
                lo = r;
                if (r >= s.to()) {
                    break;
                }
                r = Math.min(2 * r, s.to());
            } else {
                hi = r;
                break;
            }
        }
        if (lo == null || hi == null) {
            return finish(lo, hi, lo == null ? (hi == null ? "step budget spent" : "the first rate failed")
                    : (lo >= s.to() ? "the objective held up to --to" : "step budget spent"));
        }
        while (true) {
            role = "bisection";
            while ((hi - lo) / lo > s.precision() && hi - lo > 1 && budget()) { // bisection
                double m = Math.rint((lo + hi) / 2);
                if (step(m)) {
                    lo = m;
                } else {
                    hi = m;
                }
            }
            role = "repeat";
            while (budget() && (runs(lo) < s.repeats() || runs(hi) < s.repeats())) { // repeats near the edge
                step(runs(lo) <= runs(hi) ? lo : hi);
            }
            if (alwaysPassed(lo)) {
                break;
            }
            hi = lo;
            lo = largestPassBelow(hi);
            if (lo == null || !budget()) {
                return finish(lo, hi, lo == null ? "the first rate failed on a repeat" : "step budget spent");
            }
        }
        return finish(lo, hi, budget() || (runs(lo) >= s.repeats() && runs(hi) >= s.repeats())
                ? String.format(Locale.ROOT, "bracket within %.3g %% and %d run(s) at each end", 100 * s.precision(),
                s.repeats()) : "step budget spent");
    }

    private boolean budget() {
        return steps.size() < s.maxSteps();
    }

    /** Runs one rate, holding an unsteady step longer; whether the last hold passed. */
    private boolean step(double rate) throws IOException, InterruptedException {
        int hold = s.holdS();
        while (true) {
            Step st = stepper.run(rate, hold);
            if (!st.onlyUnsteady() || hold >= s.maxHoldS() || steps.size() + 1 >= s.maxSteps()) {
                steps.add(new Taken(st, role));
                return st.pass();
            }
            steps.add(new Taken(st, "superseded"));
            hold = Math.min(2 * hold, s.maxHoldS());
        }
    }

    /** Decided runs at {@code rate} (an unsteady hold that was held again does not count). */
    private int runs(double rate) {
        return decided(rate).size();
    }

    private List<Step> decided(double rate) {
        List<Step> out = new ArrayList<>();
        for (Taken t : steps) {
            if (t.step().rateAsked() == rate && t.decides()) {
                out.add(t.step());
            }
        }
        return out;
    }

    private boolean alwaysPassed(double rate) {
        List<Step> d = decided(rate);
        return !d.isEmpty() && d.stream().allMatch(Step::pass);
    }

    private Double largestPassBelow(double rate) {
        Double best = null;
        for (Taken t : steps) {
            double r = t.step().rateAsked();
            if (r < rate && alwaysPassed(r) && (best == null || r > best)) {
                best = r;
            }
        }
        return best;
    }

    private Result finish(Double pass, Double fail, String stop) {
        EdgeInterval interval = null;
        if (pass != null && fail != null) {
            interval = EdgeInterval.of(pass, fail, decided(pass).stream().map(x -> x.worstRatio(objective)).toList(),
                    decided(fail).stream().map(x -> x.worstRatio(objective)).toList());
        }
        return new Result(steps, pass, fail, interval, stop);
    }
}
