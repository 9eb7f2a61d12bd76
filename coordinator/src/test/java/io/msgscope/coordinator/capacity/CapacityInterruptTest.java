package io.msgscope.coordinator.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.msgscope.coordinator.results.JobOutcome;
import io.msgscope.coordinator.results.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ctrl-C during a capacity search (issue 29): the steps that finished are kept, the cut one when its own summary says
 * interrupted, the search's state is said and no rate is claimed unless the bracket had converged. The simulated
 * system (capacity 1000 msg/s) and the settings are CapacityJobTest's, so the steps' order is known: 100, 200, 400,
 * 800 pass, 1600 fails, then bisection 1200, 1000 fail, 900 passes, 950, 925 fail, then repeats at 900 and 925.
 */
class CapacityInterruptTest {
    private static final Objective O = Objective.parse("--objective", "p99=2ms,p999=10ms");
    private static final CapacitySearch.Settings SET = new CapacitySearch.Settings(100, 5000, 0.05, 3, 6, 2, 40);

    /** The search with SIGINT arriving during step {@code at}, whose summary says {@code cutStatus}. */
    private static JobOutcome run(Path dir, int at, String cutStatus, StringWriter console) throws Exception {
        return run(dir, SET, at, cutStatus, console);
    }

    private static JobOutcome run(Path dir, CapacitySearch.Settings set, int at, String cutStatus,
                                  StringWriter console) throws Exception {
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        AtomicInteger n = new AtomicInteger();
        AtomicReference<String> signal = new AtomicReference<>();
        AtomicInteger started = new AtomicInteger();
        CapacityJob.StepRunner runner = (phases, stepDir) -> {
            started.incrementAndGet();
            String[] w = phases.split(",");
            double rate = Double.parseDouble(w[0].substring(w[0].indexOf('@') + 1));
            Files.createDirectories(stepDir);
            ObjectNode s = (ObjectNode) sys.summary(rate, w.length);
            if (n.incrementAndGet() == at) {
                signal.set("SIGINT");
                s.put("status", cutStatus);
            }
            Json.write(stepDir.resolve("summary.json"), s);
            return n.get() == at ? 130 : 0;
        };
        JobOutcome out = new CapacityJob(O, set, StepMode.TRACE, null, runner, Map.of(), "tcp", dir, signal::get)
                .run(new PrintWriter(console));
        assertEquals(at, started.get()); // no step started after the signal
        return out;
    }

    @Test
    void cutDuringTheCoarsePhaseKeepsTheInterruptedStepAndClaimsNoRate(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("cap");
        StringWriter console = new StringWriter();
        JobOutcome out = run(dir, 3, "interrupted", console);
        assertEquals(JobOutcome.Ending.INTERRUPTED, out.ending());
        assertTrue(out.written());
        JsonNode s = Json.MAPPER.readTree(dir.resolve("summary.json").toFile());
        assertEquals("interrupted", s.path("status").asText());
        assertEquals("interrupted by SIGINT after 3 step(s) during the coarse phase; so far 200 msg/s passed and no "
                + "rate failed; not converged, no capacity found", s.path("failure_reason").asText());
        JsonNode i = s.path("interrupted");
        assertEquals("SIGINT", i.path("signal").asText());
        assertEquals(3, i.path("steps_finished").asInt()); // 100, 200 and the cut 400
        assertEquals(0, i.path("not_finished").size());
        assertEquals("coarse", i.path("during").asText());
        assertEquals(200.0, i.path("last_passing_msg_s").asDouble()); // 400 was cut: it decides nothing
        assertTrue(i.path("first_failing_msg_s").isNull());
        assertFalse(i.path("converged").asBoolean());
        assertTrue(s.path("capacity").path("found_msg_s").isNull());
        assertTrue(s.path("capacity").path("first_failing_msg_s").isNull());
        assertTrue(s.path("capacity").path("edge").isNull());
        assertEquals("interrupted during the coarse phase", s.path("capacity").path("stop_reason").asText());
        assertEquals(3, s.path("steps").size());
        assertEquals("interrupted", s.path("steps").get(2).path("role").asText());
        assertEquals("interrupted", s.path("steps").get(2).path("run_status").asText());
        assertEquals(400.0, s.path("steps").get(2).path("rate_asked_msg_s").asDouble());
        String dat = Files.readString(dir.resolve("capacity.dat"));
        // index, rate, achieved, pass, decides, hold, p99 ms = 0.2 × 1000 / (1000 − 400), p999 twice that
        assertTrue(dat.contains("\n3 400 400.0 0 0 3 0.3333 0.6667\n"), dat);
        assertFalse(dat.contains("\n4 "), dat);
        String said = console.toString();
        assertTrue(said.contains("INTERRUPTED: interrupted by SIGINT after 3 step(s) during the coarse phase; so far "
                + "200 msg/s passed and no rate failed; not converged, no capacity found"), said);
        assertFalse(said.contains("sustains"), said);
    }

    @Test
    void aStepCutBeforeItKeptAnythingIsNamedNotFinished(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("cap");
        StringWriter console = new StringWriter();
        JobOutcome out = run(dir, 7, "failed", console); // step 7 (1000 msg/s, bisection) ended without "interrupted"
        assertEquals(JobOutcome.Ending.INTERRUPTED, out.ending());
        JsonNode s = Json.MAPPER.readTree(dir.resolve("summary.json").toFile());
        JsonNode i = s.path("interrupted");
        assertEquals(6, i.path("steps_finished").asInt());
        assertEquals("step-07-1000", i.path("not_finished").get(0).asText());
        assertEquals("bisection", i.path("during").asText());
        assertEquals(800.0, i.path("last_passing_msg_s").asDouble());
        assertEquals(1200.0, i.path("first_failing_msg_s").asDouble()); // 1600 failed, then 1200
        assertFalse(i.path("converged").asBoolean()); // (1200 − 800) / 800 = 50 % > 5 %
        assertTrue(s.path("capacity").path("found_msg_s").isNull());
        assertEquals(1200.0, s.path("capacity").path("first_failing_msg_s").asDouble());
        assertEquals(6, s.path("steps").size());
        assertTrue(console.toString().contains("after 6 step(s) (not finished: step-07-1000) during the bisection "
                + "phase; so far 800 msg/s passed and 1,200 msg/s failed; not converged"), console.toString());
    }

    @Test
    void aCutDuringTheRepeatsOfAConvergedBracketStandsByItsRate(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("cap");
        StringWriter console = new StringWriter();
        JobOutcome out = run(dir, 12, "failed", console); // the last repeat, cut
        assertEquals(JobOutcome.Ending.INTERRUPTED, out.ending());
        JsonNode s = Json.MAPPER.readTree(dir.resolve("summary.json").toFile());
        JsonNode i = s.path("interrupted");
        assertEquals("repeat", i.path("during").asText());
        assertEquals(900.0, i.path("last_passing_msg_s").asDouble());
        assertEquals(925.0, i.path("first_failing_msg_s").asDouble());
        assertTrue(i.path("converged").asBoolean()); // (925 − 900) / 900 = 2.8 % ≤ 5 %, 900 passed every run
        assertEquals(900.0, s.path("capacity").path("found_msg_s").asDouble());
        assertEquals(11, s.path("steps").size());
        assertTrue(console.toString().contains("sustains 900 msg/s"), console.toString());
    }

    @Test
    void aGridCutAfterItsFirstFailingRateStandsByTheRateBelowIt(@TempDir Path tmp) throws Exception {
        CapacitySearch.Settings grid = CapacitySearch.Settings.grid(java.util.List.of(800.0, 900.0, 925.0, 950.0), 3,
                6, 1);
        StringWriter console = new StringWriter();
        run(tmp.resolve("late"), grid, 4, "failed", console); // 950 cut: 800, 900 passed, 925 failed
        JsonNode late = Json.MAPPER.readTree(tmp.resolve("late/summary.json").toFile());
        JsonNode i = late.path("interrupted");
        assertEquals("grid", i.path("during").asText());
        assertEquals(900.0, i.path("last_passing_msg_s").asDouble());
        assertEquals(925.0, i.path("first_failing_msg_s").asDouble());
        assertTrue(i.path("converged").asBoolean()); // the edge lay between two rates of the grid, each decided
        assertEquals(900.0, late.path("capacity").path("found_msg_s").asDouble());
        assertEquals("step-04-950", i.path("not_finished").get(0).asText());
        StringWriter early = new StringWriter();
        run(tmp.resolve("early"), grid, 2, "interrupted", early); // 900 cut, kept: it decides nothing
        JsonNode e = Json.MAPPER.readTree(tmp.resolve("early/summary.json").toFile()).path("interrupted");
        assertEquals(800.0, e.path("last_passing_msg_s").asDouble());
        assertTrue(e.path("first_failing_msg_s").isNull());
        assertFalse(e.path("converged").asBoolean());
    }
}
