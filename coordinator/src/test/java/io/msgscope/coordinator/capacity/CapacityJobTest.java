package io.msgscope.coordinator.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.coordinator.results.JobOutcome;
import io.msgscope.coordinator.results.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The job from its folder to its files and answer, each step's run a simulated summary.json. */
class CapacityJobTest {
    private static JobOutcome run(Path dir, SimulatedSystem sys, Objective o, CapacitySearch.Settings set,
                                  StringWriter console) throws Exception {
        CapacityJob.StepRunner runner = (phases, stepDir) -> {
            String[] w = phases.split(",");
            double rate = Double.parseDouble(w[0].substring(w[0].indexOf('@') + 1));
            Files.createDirectories(stepDir);
            Json.write(stepDir.resolve("summary.json"), sys.summary(rate, w.length));
            return 0;
        };
        return new CapacityJob(o, set, StepMode.TRACE, null, runner, Map.of("objective", "p99=2ms"), "tcp", dir,
                () -> null)
                .run(new PrintWriter(console));
    }

    @Test
    void writesTheSummaryTheHockeyStickAndTheAnswer(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("cap");
        StringWriter console = new StringWriter();
        Objective o = Objective.parse("--objective", "p99=2ms,p999=10ms");
        JobOutcome out = run(dir, new SimulatedSystem(1000, 200), o,
                new CapacitySearch.Settings(100, 5000, 0.05, 3, 6, 2, 40), console);
        assertEquals(JobOutcome.Ending.OK, out.ending());
        JsonNode s = Json.MAPPER.readTree(dir.resolve("summary.json").toFile());
        assertEquals("capacity", s.path("mode").asText());
        assertEquals("ok", s.path("status").asText());
        assertEquals(2000.0, s.path("objective").path("p99_us").asDouble());
        assertEquals(900.0, s.path("capacity").path("found_msg_s").asDouble());
        assertEquals(925.0, s.path("capacity").path("first_failing_msg_s").asDouble());
        assertEquals(2, s.path("capacity").path("edge").path("estimates_msg_s").size());
        assertTrue(s.path("capacity").path("cpu_ns_per_message_at_found").isNull()); // the simulated runs have no cpu
        JsonNode steps = s.path("steps");
        assertEquals(12, steps.size());
        JsonNode first = steps.get(0);
        assertEquals(100.0, first.path("rate_asked_msg_s").asDouble());
        assertEquals(100.0, first.path("rate_achieved_msg_s").asDouble());
        // p99 = 200 × 1000 / (1000 - 100) = 222.2 µs; p999 twice that
        assertEquals(200.0 * 1000 / 900, first.path("latency_from_intended").path("p99_us").asDouble(), 1e-9);
        assertEquals(400.0 * 1000 / 900, first.path("latency_from_intended").path("p999_us").asDouble(), 1e-9);
        assertTrue(first.path("pass").asBoolean());
        assertTrue(first.path("stationarity").path("stationary").asBoolean());
        assertEquals(3, first.path("hold_s").asInt());
        assertEquals(9.0, first.path("seconds").asDouble(), 9.0); // wall time of a simulated step: about none
        JsonNode fail = steps.get(4); // 1600 msg/s, above capacity: backlog grows 600 a second
        assertFalse(fail.path("pass").asBoolean());
        assertEquals("p99 = 1 s > 2 ms", fail.path("reason").asText());
        assertEquals(List.of(600L, 1200L, 1800L), List.of(fail.path("stationarity").path("in_flight_at_window_end")
                .get(0).asLong(), fail.path("stationarity").path("in_flight_at_window_end").get(1).asLong(),
                fail.path("stationarity").path("in_flight_at_window_end").get(2).asLong()));
        String dat = Files.readString(dir.resolve("capacity.dat"));
        assertTrue(dat.contains("\n1 100 100.0 1 1 3 0.2222 0.4444\n"), dat);
        assertTrue(Files.readString(dir.resolve("capacity.gp")).contains("found 900 msg/s"));
        String said = console.toString();
        assertTrue(said.contains("sustains 900 msg/s within p99 ≤ 2 ms, p999 ≤ 10 ms (edge 95 % interval 900–900 "
                + "msg/s); one step above, 925 msg/s: p99 = 2.67 ms, p999 = 5.33 ms"), said);
        assertTrue(said.contains("[1] 100 msg/s held 3 s: pass (p99 222 µs, p999 444 µs;"), said);
    }

    @Test
    void notEvenFromFails(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("cap");
        StringWriter console = new StringWriter();
        Objective o = Objective.parse("--objective", "p99=2ms");
        JobOutcome out = run(dir, new SimulatedSystem(1000, 200), o,
                new CapacitySearch.Settings(2000, 5000, 0.05, 3, 6, 2, 40), console);
        assertEquals(JobOutcome.Ending.FAILED, out.ending());
        assertTrue(out.written());
        JsonNode s = Json.MAPPER.readTree(dir.resolve("summary.json").toFile());
        assertEquals("failed", s.path("status").asText());
        assertTrue(s.path("capacity").path("found_msg_s").isNull());
        assertTrue(console.toString().contains("does not sustain even --from 2,000 msg/s within p99 ≤ 2 ms"));
    }

    @Test
    void aGridWritesItsRatesTheirVerdictsAndSaysThem(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("grid");
        StringWriter console = new StringWriter();
        Objective o = Objective.parse("--objective", "p99=2ms");
        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        sys.noise = (rate, run) -> rate == 950 ? 0.4 : 1.0; // passes above the failing 925
        JobOutcome out = run(dir, sys, o, CapacitySearch.Settings.grid(List.of(800.0, 900.0, 925.0, 950.0), 3, 6, 2),
                console);
        assertEquals(JobOutcome.Ending.OK, out.ending());
        JsonNode s = Json.MAPPER.readTree(dir.resolve("summary.json").toFile());
        JsonNode search = s.path("search");
        assertEquals("grid", search.path("kind").asText());
        assertEquals(4, search.path("rates_msg_s").size());
        assertTrue(search.path("precision").isNull(), "a grid has no precision: null, never 0");
        assertTrue(search.path("max_steps").isNull());
        JsonNode c = s.path("capacity");
        assertEquals(900.0, c.path("found_msg_s").asDouble());
        assertEquals(925.0, c.path("first_failing_msg_s").asDouble());
        assertEquals(8, c.path("steps_taken").asInt());
        JsonNode rates = c.path("rates");
        assertEquals(4, rates.size());
        assertEquals(950.0, rates.get(3).path("rate_msg_s").asDouble());
        assertEquals(2, rates.get(3).path("runs").asInt());
        assertEquals(2, rates.get(3).path("runs_passed").asInt());
        assertEquals("pass", rates.get(3).path("verdict").asText());
        assertEquals("fail", rates.get(2).path("verdict").asText());
        assertEquals(0, rates.get(2).path("runs_passed").asInt());
        assertEquals(List.of(950.0), List.of(c.path("passed_above_first_failing_msg_s").get(0).asDouble()));
        assertEquals("grid", s.path("steps").get(0).path("role").asText());
        String said = console.toString();
        assertTrue(said.contains("  925 msg/s: fail, 0 of 2 run(s) passed\n"), said);
        assertTrue(said.contains("sustains 900 msg/s within p99 ≤ 2 ms (edge 95 % interval 900–900 msg/s), and at "
                + "every lower rate of --rates, each by the majority of its runs; one step above, 925 msg/s: p99 = "
                + "2.67 ms; passed again above it, so the edge is noisy: 950 msg/s"), said);
    }
}
