package io.msgscope.coordinator.capacity;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The search for the most load within an objective (issue 31 item 4): from {@code from}, the rate doubles (capped at
 * {@code to}) until a rate fails; then bisection between the last passing rate L and the first failing U until (U −
 * L)/L ≤ precision; then L and U are each run until they have {@code repeats} runs. Each step starts held for
 * {@code holdS} seconds; one whose objective held but whose latency or backlog drifted is held again for twice as
 * long, up to {@code maxHoldS}, before it counts as failed.
 *
 * <p>A rate is decided on all of its runs, not on one: it passes when most of them passed and fails when most
 * failed; a tie (an even number of runs split in two) is broken by one more run. One run decides a rate unless it
 * failed below a rate one of whose runs passed, or it is the first rate and failed (which would end the search with no
 * rate found): then it is run until it has a majority of {@value #CONFIRM}. Noise on
 * a shared box adds latency and never takes it away, so a lone failure below a pass is suspect (one such run otherwise
 * drags the bracket down for good, as one did at 150,000 msg/s in the relay searches of BENCHMARKS.md), while a lone
 * pass is not. A run that lost messages fails its rate whatever the others did: a system that loses messages at a
 * rate does not sustain it. When L's repeats fail it, U becomes L and L the largest lower rate that passed, and the
 * bisection goes on below; when U's repeats pass it, L becomes U and U the smallest higher rate that failed (the
 * doubling resumes when there is none), and it goes on above.
 *
 * <p>A grid ({@code --rates}) is the sweep the search is checked against: every rate given run {@code repeats} times,
 * each run held and judged as a search's, each rate decided by the same majority.
 */
public final class CapacitySearch {
    /** A rate's standing on its deciding runs so far: OPEN on a tie or none. */
    public enum Verdict { PASS, FAIL, OPEN }

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
     * @param grid      the rates of a grid ({@code --rates}), ascending, each run {@code repeats} times instead of a
     *                  search; null for a search. A grid has no precision (NaN) and no budget
     *                  ({@link Integer#MAX_VALUE})
     */
    public record Settings(double from, double to, double precision, int holdS, int maxHoldS, int repeats,
                           int maxSteps, List<Double> grid) {
        public Settings {
            grid = grid == null ? null : List.copyOf(grid);
        }

        /** A search's settings. */
        public Settings(double from, double to, double precision, int holdS, int maxHoldS, int repeats, int maxSteps) {
            this(from, to, precision, holdS, maxHoldS, repeats, maxSteps, null);
        }

        /** A grid's settings: every rate of {@code rates} (ascending, distinct) run {@code repeats} times. */
        public static Settings grid(List<Double> rates, int holdS, int maxHoldS, int repeats) {
            return new Settings(rates.get(0), rates.get(rates.size() - 1), Double.NaN, holdS, maxHoldS, repeats,
                    Integer.MAX_VALUE, rates);
        }
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
     * @param role {@code coarse}, {@code bisection} or {@code repeat}, {@code grid} in a grid; {@code superseded} for
     *             a hold whose objective
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
     * @param found    L, the largest rate that passed by the majority of its runs; null when even {@code from} failed
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
     * A rate as capacity runs it: whole msg/s, half up (115,762.5 is 115,763) — the one rule for the options, a grid's
     * rates and a bisection's midpoints.
     */
    public static double wholeRate(double msgPerS) {
        return Math.round(msgPerS);
    }

    /**
     * Where a search stopped by SIGINT or SIGTERM stood (issue 29).
     *
     * @param phase        {@code coarse}, {@code bisection}, {@code repeat} or {@code grid}: what the search was doing
     * @param lastPassing  the largest rate that passed by the majority of its decided runs, below the first failing;
     *                     null when none did
     * @param firstFailing the smallest rate above it that failed by that majority; null when none failed yet
     * @param converged    the bracket was already within --precision (or 1 msg/s) with its lower end passing: only
     *                     repeats were left, so {@code lastPassing} is the rate found; in a grid, the first failing
     *                     rate was decided, every lower one passing, so only higher rates were left
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

    /** Runs that settle a rate whose first run contradicts another rate's: their majority decides. */
    static final int CONFIRM = 3;

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
        boolean loHeld = lo != null && verdict(lo) == Verdict.PASS;
        Double pass = lo == null || loHeld ? lo : largestPassBelow(lo);
        Double fail = lo != null && !loHeld ? lo : hi;
        boolean converged = pass != null && fail != null && pass.equals(lo)
                && (s.grid() != null || (fail - pass) / pass <= s.precision() || fail - pass <= 1);
        State st = new State(role, pass, fail, converged);
        Result r = finish(converged ? pass : null, fail, "interrupted during the " + role + " phase");
        return new Result(r.steps(), r.found(), r.above(), converged ? r.interval() : null, r.stop(), st);
    }

    private Result search() throws IOException, InterruptedException {
        if (s.grid() != null) {
            return grid();
        }
        Result ended = climb(s.from());
        if (ended != null) {
            return ended;
        }
        while (true) {
            role = "bisection";
            while ((hi - lo) / lo > s.precision() && hi - lo > 1 && budget()) {
                double m = wholeRate((lo + hi) / 2);
                if (settle(m) == Verdict.PASS) {
                    lo = m;
                } else {
                    hi = m;
                }
            }
            role = "repeat";
            while (budget() && (runs(lo) < s.repeats() || runs(hi) < s.repeats())) { // repeats near the edge
                step(runs(lo) <= runs(hi) ? lo : hi);
            }
            while (budget() && verdict(lo) == Verdict.OPEN) { // an even number of repeats split in two
                step(lo);
            }
            while (budget() && verdict(hi) == Verdict.OPEN) {
                step(hi);
            }
            if (verdict(lo) != Verdict.PASS) { // L failed on its repeats: the edge lies lower
                hi = lo;
                lo = largestPassBelow(hi);
                if (lo == null || !budget()) {
                    return finish(lo, hi, lo == null ? "the first rate failed on a repeat" : "step budget spent");
                }
            } else if (verdict(hi) == Verdict.PASS) { // U passed on its repeats: the edge lies higher
                lo = hi;
                hi = smallestFailAbove(lo);
                if (hi == null) {
                    if (lo >= s.to()) {
                        return finish(lo, null, "the objective held up to --to");
                    }
                    ended = climb(Math.min(2 * lo, s.to()));
                    if (ended != null) {
                        return ended;
                    }
                }
                if (!budget()) {
                    return finish(lo, hi, "step budget spent");
                }
            } else {
                break;
            }
        }
        return finish(lo, hi, budget() || (runs(lo) >= s.repeats() && runs(hi) >= s.repeats())
                ? String.format(Locale.ROOT, "bracket within %.3g %% and %d run(s) at each end", 100 * s.precision(),
                s.repeats()) : "step budget spent");
    }

    /**
     * A grid: every rate run {@code repeats} times (a tie one more time), in ascending order, whatever the lower ones
     * did. L is the largest rate up to which every rate passed and U the rate after it, so a rate that passed above U
     * (a noisy edge) does not move them; the table of rates shows it.
     */
    private Result grid() throws IOException, InterruptedException {
        role = "grid";
        for (double r : s.grid()) {
            while (runs(r) < s.repeats() || verdict(r) == Verdict.OPEN) {
                step(r);
            }
            if (hi == null && verdict(r) == Verdict.PASS) {
                lo = r;
            } else if (hi == null) {
                hi = r;
            }
        }
        return finish(lo, hi, String.format(Locale.ROOT, "every rate of --rates run %d time(s)%s", s.repeats(),
                hi == null ? ", and the objective held at all of them" : lo == null ? "; the first rate failed" : ""));
    }

    /**
     * The coarse phase from rate {@code r}: doubling (capped at {@code to}) until a rate fails, which sets U; the
     * search's end when there is no bracket (nothing passed, {@code to} passed, or the budget ran out), else null.
     */
    private Result climb(double r) throws IOException, InterruptedException {
        role = "coarse";
        while (budget()) {
            if (settle(r) == Verdict.PASS) {
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
        return null;
    }

    /**
     * Runs {@code rate} once more, then until its verdict stands: a majority, of {@link #CONFIRM} runs when it fails
     * below a rate one of whose runs passed (OPEN only when the budget ran out first).
     */
    private Verdict settle(double rate) throws IOException, InterruptedException {
        step(rate);
        while (budget() && unsettled(rate)) {
            step(rate);
        }
        return verdict(rate);
    }

    private boolean unsettled(double rate) {
        Verdict v = verdict(rate);
        if (v == Verdict.OPEN) {
            return true;
        }
        List<Step> d = decided(rate);
        if (d.stream().anyMatch(RateVerdict::lostMessages)) {
            return false;
        }
        boolean contradicts = v == Verdict.FAIL
                && steps.stream().filter(Taken::decides).anyMatch(o -> o.step().rateAsked() > rate && o.step().pass());
        // the first rate failing would end the search with no capacity at all, on one run
        contradicts |= v == Verdict.FAIL && lo == null && s.grid() == null;
        long majority = Math.max(d.stream().filter(Step::pass).count(), d.stream().filter(x -> !x.pass()).count());
        return contradicts && majority < CONFIRM / 2 + 1;
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

    /** PASS or FAIL by the majority of the rate's deciding runs (FAIL when one lost messages), OPEN on a tie or none. */
    private Verdict verdict(double rate) {
        return RateVerdict.verdictOf(decided(rate));
    }

    private Double largestPassBelow(double rate) {
        return nearest(rate, Verdict.PASS, -1);
    }

    private Double smallestFailAbove(double rate) {
        return nearest(rate, Verdict.FAIL, 1);
    }

    /** The rate run nearest {@code rate} on the side {@code side} (−1 below, +1 above) whose verdict is {@code v}. */
    private Double nearest(double rate, Verdict v, int side) {
        Double best = null;
        for (Taken t : steps) {
            double r = t.step().rateAsked();
            boolean nearer = best == null || Math.abs(r - rate) < Math.abs(best - rate);
            if (Math.signum(r - rate) == side && nearer && verdict(r) == v) {
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
