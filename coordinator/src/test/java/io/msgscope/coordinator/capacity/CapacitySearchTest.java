package io.msgscope.coordinator.capacity;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The search on a simulated system whose latency rises at a known rate (issue 31 item 4). */
class CapacitySearchTest {
    private static final Objective P99_2MS = Objective.parse("--objective", "p99=2ms");

    private static List<Double> rates(CapacitySearch.Result r) {
        return r.steps().stream().map(t -> t.step().rateAsked()).toList();
    }

    @Test
    void findsTheKnownEdgeWithinOneStep() throws Exception {
        // p99 = 200 µs / (1 - r/1000) reaches 2 ms at r = 900 msg/s exactly: the known edge
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        CapacitySearch.Settings set = new CapacitySearch.Settings(100, 5000, 0.05, 5, 20, 3, 40);
        CapacitySearch.Result r = new CapacitySearch(set, P99_2MS, sys.stepper(P99_2MS)).run();
        double edge = 900;
        assertTrue(r.found() <= edge && r.found() >= edge / 1.05, "found " + r.found());
        assertTrue(r.above() > edge && r.above() <= r.found() * 1.05 + 1, "above " + r.above());
        // doubling 100..1600 (1600 fails), bisection 1200, 1000, 900 (p99 = 2 ms exactly: within), 950, 925 (2.8 %)
        assertEquals(List.of(100.0, 200.0, 400.0, 800.0, 1600.0, 1200.0, 1000.0, 900.0, 950.0, 925.0),
                rates(r).subList(0, 10));
        assertEquals(900, r.found());
        assertEquals(925, r.above());
        // then two more runs at 900 and at 925 (3 each)
        assertEquals(14, r.steps().size());
        assertEquals(3, rates(r).stream().filter(x -> x == 900).count());
        assertEquals(3, rates(r).stream().filter(x -> x == 925).count());
        assertEquals("repeat", r.steps().get(13).role());
        // each pair: x(900) = 1.0, x(925) = 200/(1-0.925)/2000 = 1.3333: the edge estimate is 900 every time, s = 0
        assertEquals(List.of(900.0, 900.0, 900.0), r.interval().estimates());
        assertEquals(900, r.interval().low(), 1e-9);
        assertEquals(900, r.interval().high(), 1e-9);
    }

    @Test
    void toPassingAndFromFailing() throws Exception {
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        CapacitySearch.Result all = new CapacitySearch(new CapacitySearch.Settings(100, 300, 0.05, 5, 20, 2, 40),
                P99_2MS, sys.stepper(P99_2MS)).run();
        assertEquals(300, all.found());
        assertNull(all.above());
        assertNull(all.interval());
        assertEquals(List.of(100.0, 200.0, 300.0), rates(all));
        assertEquals("the objective held up to --to", all.stop());
        CapacitySearch.Result none = new CapacitySearch(new CapacitySearch.Settings(2000, 4000, 0.05, 5, 20, 2, 40),
                P99_2MS, sys.stepper(P99_2MS)).run();
        assertNull(none.found());
        assertEquals(2000, none.above());
        assertEquals("the first rate failed", none.stop());
    }

    @Test
    void anUnsteadyStepIsHeldLongerAndARepeatThatFailsMovesTheEdgeDown() throws Exception {
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        sys.drifts = (rate, hold) -> rate == 800 && hold < 10; // drifts at 5 s, settles at 10 s
        sys.loses = (rate, run) -> rate == 900 && run == 2; // the second run at 900 loses a message
        CapacitySearch.Settings set = new CapacitySearch.Settings(100, 5000, 0.05, 5, 20, 3, 40);
        CapacitySearch.Result r = new CapacitySearch(set, P99_2MS, sys.stepper(P99_2MS)).run();
        CapacitySearch.Taken first800 = r.steps().get(3);
        assertEquals(800, first800.step().rateAsked());
        assertEquals("superseded", first800.role());
        assertEquals(5, first800.step().holdS());
        assertTrue(first800.step().why().startsWith("not stationary: p99 from the intended time rose"));
        assertEquals(10, r.steps().get(4).step().holdS());
        assertTrue(r.steps().get(4).step().pass());
        // 900 lost a message on a repeat, which fails it whatever its other runs did: the found rate is the largest
        // lower rate that passed, bisected again
        assertTrue(r.found() < 900 && r.found() >= 900 / 1.05 / 1.05, "found " + r.found());
        assertNotNull(r.interval());
    }

    private static CapacitySearch.Result search(SimulatedSystem sys, int repeats) throws Exception {
        return new CapacitySearch(new CapacitySearch.Settings(100, 5000, 0.05, 5, 20, repeats, 60), P99_2MS,
                sys.stepper(P99_2MS)).run();
    }

    private static long count(CapacitySearch.Result r, double rate) {
        return rates(r).stream().filter(x -> x == rate).count();
    }

    @Test
    void aNoisyRepeatAtTheFoundRateIsOutvoted() throws Exception {
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        sys.noise = (rate, run) -> rate == 900 && run == 2 ? 3.0 : 1.0; // p99 6 ms on the second run at 900
        CapacitySearch.Result r = search(sys, 3);
        // the clean search's 14 runs: 900 passed 2 of 3, which is a pass (every-run-passes would have made it U)
        assertEquals(14, r.steps().size());
        assertFalse(r.steps().get(11).step().pass(), r.steps().get(11).toString()); // the 2nd run at 900 (index 11)
        assertEquals(900, r.found());
        assertEquals(925, r.above());
        assertEquals("bracket within 5.00 % and 3 run(s) at each end", r.stop());
    }

    @Test
    void anEvenNumberOfRepeatsSplitInTwoIsBrokenByOneMoreRun() throws Exception {
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        sys.noise = (rate, run) -> rate == 900 && run == 2 ? 3.0 : 1.0;
        CapacitySearch.Result r = search(sys, 2);
        // 10 runs to the bracket, then 900 and 925 once more each: 900 stands 1 to 1, so a third run at 900 decides
        assertEquals(13, r.steps().size());
        assertEquals(3, count(r, 900));
        assertEquals(2, count(r, 925));
        assertEquals(900, r.steps().get(12).step().rateAsked());
        assertEquals(900, r.found());
    }

    @Test
    void aLoneFailureBelowARateThatPassedIsRunAgainBeforeItLowersTheBracket() throws Exception {
        // the relay searches' story (BENCHMARKS.md): L = 900 fails its repeats for real (2 of 3), the search goes
        // below, and one noisy run at the next midpoint, 850, would have made it U for good
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        sys.noise = (rate, run) -> (rate == 900 && run >= 2) || (rate == 850 && run == 1) ? 3.0 : 1.0;
        CapacitySearch.Result r = search(sys, 3);
        // ... 900, 950, 925 (10 runs), repeats 900, 925, 900, 925 (the 900s fail): U = 900, L = 800;
        // 850 fails once below 900's passing run, so it runs twice more and passes 2 of 3; then 875 (2.9 %)
        assertEquals(List.of(900.0, 925.0, 900.0, 925.0, 850.0, 850.0, 850.0, 875.0), rates(r).subList(10, 18));
        assertEquals(List.of("bisection", "bisection", "bisection"),
                r.steps().subList(14, 17).stream().map(CapacitySearch.Taken::role).toList());
        assertEquals(875, r.found());
        assertEquals(900, r.above());
        // repeats at 875 until 3, 900 has its 3
        assertEquals(3, count(r, 875));
        assertEquals(3, count(r, 900));
        assertEquals(20, r.steps().size());
    }

    @Test
    void aLoneFailureWithNothingPassedAboveItDecidesAlone() throws Exception {
        // a failure above every pass is what a search expects: 1600, 1200, 1000, 950 and 925 are run once each
        CapacitySearch.Result r = search(new SimulatedSystem(1000, 200), 1);
        assertEquals(List.of(100.0, 200.0, 400.0, 800.0, 1600.0, 1200.0, 1000.0, 900.0, 950.0, 925.0), rates(r));
    }

    @Test
    void aNoisyCoarseFailureThatItsRepeatsPassDoesNotCapTheSearch() throws Exception {
        // the first run at 200 fails (noise): U = 200 after one run, the bisection below finds 194 (3.1 %), and
        // 200's repeats pass 2 of 3: L becomes 200, nothing failed above it, so the doubling resumes at 400
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        sys.noise = (rate, run) -> rate == 200 && run == 1 ? 20.0 : 1.0;
        CapacitySearch.Result r = search(sys, 3);
        assertEquals(List.of(100.0, 200.0, 150.0, 175.0, 188.0, 194.0), rates(r).subList(0, 6));
        int resumed = rates(r).indexOf(400.0);
        assertEquals("coarse", r.steps().get(resumed).role());
        assertEquals(900, r.found());
        assertEquals(925, r.above());
    }

    @Test
    void aRunThatLostMessagesFailsItsRateWhateverTheOthersDid() throws Exception {
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        sys.loses = (rate, run) -> rate == 900 && run == 3; // 900 passes twice, then loses one message
        CapacitySearch.Result r = search(sys, 3);
        assertTrue(r.found() < 900, "found " + r.found());
        assertEquals(900, r.above());
    }

    @Test
    void theBudgetEndsTheSearch() throws Exception {
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        CapacitySearch.Result r = new CapacitySearch(new CapacitySearch.Settings(100, 5000, 0.001, 5, 20, 3, 7),
                P99_2MS, sys.stepper(P99_2MS)).run();
        assertEquals(7, r.steps().size());
        assertEquals("step budget spent", r.stop());
    }

    @Test
    void aGridRunsEveryRateItsRepeatsAndFindsTheEdgeFromBelow() throws Exception {
        // p99 = 200 µs / (1 - r/1000): 800 → 1 ms, 900 → 2 ms (within), 925 → 2.67 ms, 950 → 4 ms
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        sys.noise = (rate, run) -> rate == 800 && run == 2 ? 3.0 // one slow run at 800: outvoted 2 to 1
                : rate == 950 ? 0.4 : 1.0; // 950 passes every run (1.6 ms) above the failing 925: a noisy edge
        CapacitySearch.Settings set = CapacitySearch.Settings.grid(List.of(800.0, 900.0, 925.0, 950.0), 5, 20, 3);
        CapacitySearch.Result r = new CapacitySearch(set, P99_2MS, sys.stepper(P99_2MS)).run();
        assertEquals(List.of(800.0, 800.0, 800.0, 900.0, 900.0, 900.0, 925.0, 925.0, 925.0, 950.0, 950.0, 950.0),
                rates(r));
        assertTrue(r.steps().stream().allMatch(t -> t.role().equals("grid")));
        assertEquals(900, r.found());
        assertEquals(925, r.above());
        assertEquals("every rate of --rates run 3 time(s)", r.stop());
        assertEquals(3, r.interval().estimates().size()); // the three runs at 900 against the three at 925
        List<RateVerdict> v = RateVerdict.of(r.steps());
        assertEquals(new RateVerdict(800, 3, 2, false, CapacitySearch.Verdict.PASS), v.get(0));
        assertEquals(new RateVerdict(925, 3, 0, false, CapacitySearch.Verdict.FAIL), v.get(2));
        assertEquals(new RateVerdict(950, 3, 3, false, CapacitySearch.Verdict.PASS), v.get(3));
    }

    @Test
    void aGridBreaksATieWithOneMoreRunAndFailsARateThatLostAMessage() throws Exception {
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        sys.noise = (rate, run) -> rate == 500 && run == 2 ? 10.0 : 1.0; // 1 of 2 fails: a third run decides
        sys.loses = (rate, run) -> rate == 600 && run == 1; // 600 passes on latency but lost a message once
        CapacitySearch.Settings set = CapacitySearch.Settings.grid(List.of(500.0, 600.0, 700.0), 5, 20, 2);
        CapacitySearch.Result r = new CapacitySearch(set, P99_2MS, sys.stepper(P99_2MS)).run();
        assertEquals(List.of(500.0, 500.0, 500.0, 600.0, 600.0, 700.0, 700.0), rates(r));
        assertEquals(500, r.found());
        assertEquals(600, r.above());
        List<RateVerdict> v = RateVerdict.of(r.steps());
        assertEquals(new RateVerdict(500, 3, 2, false, CapacitySearch.Verdict.PASS), v.get(0));
        assertEquals(new RateVerdict(600, 2, 1, true, CapacitySearch.Verdict.FAIL), v.get(1));
        assertEquals(new RateVerdict(700, 2, 2, false, CapacitySearch.Verdict.PASS), v.get(2));
    }

    @Test
    void aGridThatPassesEverywhereOrNowhere() throws Exception {
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        CapacitySearch.Result all = new CapacitySearch(CapacitySearch.Settings.grid(List.of(100.0, 200.0), 5, 20, 1),
                P99_2MS, sys.stepper(P99_2MS)).run();
        assertEquals(200, all.found());
        assertNull(all.above());
        assertNull(all.interval());
        assertEquals("every rate of --rates run 1 time(s), and the objective held at all of them", all.stop());
        CapacitySearch.Result none = new CapacitySearch(CapacitySearch.Settings.grid(List.of(950.0, 990.0), 5, 20,
                1), P99_2MS, sys.stepper(P99_2MS)).run();
        assertNull(none.found());
        assertEquals(950, none.above());
        assertEquals(List.of(950.0, 990.0), rates(none)); // a grid runs every rate, the failing ones too
        assertEquals("every rate of --rates run 1 time(s); the first rate failed", none.stop());
    }

    @Test
    void aFirstRateThatFailsOnceIsRunUntilAMajorityDecidesIt() throws Exception {
        // RabbitMQ's second search of 2026-11-28 17:26 ended on one run of --from at p99 50.3 ms against 50 ms
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        sys.noise = (rate, run) -> rate == 100 && run == 1 ? 20.0 : 1.0; // one slow first run: 4.4 ms > 2 ms
        CapacitySearch.Result r = new CapacitySearch(new CapacitySearch.Settings(100, 5000, 0.05, 5, 20, 3, 40),
                P99_2MS, sys.stepper(P99_2MS)).run();
        assertEquals(List.of(100.0, 100.0, 100.0, 200.0), rates(r).subList(0, 4)); // 1 of 3 failed: it passes
        assertEquals(900, r.found());
        // a first rate that truly fails is run until its majority fails (2 of 2), then the search ends
        CapacitySearch.Result none = new CapacitySearch(new CapacitySearch.Settings(2000, 4000, 0.05, 5, 20, 2, 40),
                P99_2MS, sys.stepper(P99_2MS)).run();
        assertEquals(List.of(2000.0, 2000.0), rates(none));
        assertNull(none.found());
    }
}
