package io.msgscope.coordinator.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.coordinator.cli.ExitCodes;
import io.msgscope.coordinator.report.ComparisonTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** {@code msgscope compare} with verdicts and the regression gate on tiny fixture folders (issue 34). */
class CompareVerdictTest {
    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int compare(String... args) {
        return ComparisonTest.compare(out, err, args);
    }

    private static String row(JsonNode json, String figure) {
        for (JsonNode f : json.path("figures")) {
            if (f.path("figure").asText().equals(figure)) {
                return f.path("verdict").asText();
            }
        }
        throw new AssertionError("no " + figure);
    }

    @Test
    void sameRunsAreNoSignificantDifferenceAndPassTheGate() throws IOException {
        Path a = Fixtures.traceRun(tmp, "a", "tcp", 6, v -> v);
        Path b = Fixtures.traceRun(tmp, "b", "tcp", 6, v -> v);
        Path o = tmp.resolve("cmp");
        assertEquals(ExitCodes.OK, compare(a.toString(), b.toString(), "--fail-if", "p99 > +10%", "--out", o.toString()));
        String s = out.toString();
        assertTrue(s.contains("| throughput [msg/s] | 100 | 100 | +0.0 % | +0.0 % … +0.0 % | 1.00 | 6 / 6 | "
                + "no significant difference |"), s);
        assertTrue(s.contains("| p99 [µs] | 1.1 | 1.1 | +0.0 % |"), s);
        assertTrue(!s.contains("REGRESSION") && !s.contains("specs differ"), s);
        JsonNode j = new ObjectMapper().readTree(o.resolve("compare.json").toFile());
        assertEquals("no significant difference", row(j, "p99"));
        assertEquals(1.098, j.path("figures").get(5).path("baseline").asDouble(), 1e-12);
        assertEquals(List.of(), new ObjectMapper().convertValue(j.path("spec_differences"), List.class));
        assertEquals(false, j.path("gate_failed").asBoolean());
        assertTrue(Files.readString(o.resolve("compare.md")).contains("## Verdict: candidate against baseline"));
        assertTrue(Files.readString(o.resolve("compare.html")).contains("<h2>Verdict: candidate against baseline</h2>"));
    }

    @Test
    void aSlowerCandidateIsWorseAndFailsTheGateWithExitThree() throws IOException {
        Path a = Fixtures.traceRun(tmp, "a", "tcp", 6, v -> v);
        Path b = Fixtures.traceRun(tmp, "b", "tcp", 6, v -> v);
        Path c = Fixtures.traceRun(tmp, "c", "tcp", 6, v -> v * 3 / 2);
        Path d = Fixtures.traceRun(tmp, "d", "tcp", 6, v -> v * 3 / 2);
        Path o = tmp.resolve("cmp");
        int code = compare("--baseline", a.toString(), b.toString(), "--candidate", c.toString(), d.toString(),
                "--fail-if", "p99 > +10%", "--fail-if", "throughput < -5%", "--fail-if", "p50 > +60%", "--out",
                o.toString());
        assertEquals(ExitCodes.REGRESSION, code, out.toString());
        assertEquals(3, ExitCodes.REGRESSION);
        List<String> lines = out.toString().lines().filter(l -> l.startsWith("REGRESSION")).toList();
        // p50: 1049 → 1573 ns (+50.0 %), within +60 %; p99 1098 → 1647 ns, +50.0 % beyond +10 %
        assertEquals(List.of("REGRESSION p99: +50.0 % (95 % interval +50.0 % … +50.0 %), worse, beyond 'p99 > +10%'"),
                lines);
        assertTrue(out.toString().contains("baseline: a, b · candidate: c, d"), out.toString());
        JsonNode j = new ObjectMapper().readTree(o.resolve("compare.json").toFile());
        assertEquals("worse", row(j, "p99"));
        assertEquals("no significant difference", row(j, "throughput"));
        assertEquals(true, j.path("gate_failed").asBoolean());
        assertEquals(true, j.path("gate").get(0).path("breached").asBoolean());
        assertEquals(false, j.path("method").path("one_run_a_side").asBoolean());
        assertEquals(12, j.path("figures").get(0).path("baseline_samples").asInt());
    }

    @Test
    void tooFewIntervalsAreSaidAndTheGateDoesNotJudge() throws IOException {
        Path a = Fixtures.traceRun(tmp, "a", "tcp", 3, v -> v);
        Path b = Fixtures.traceRun(tmp, "b", "tcp", 3, v -> v * 2);
        assertEquals(ExitCodes.OK, compare(a.toString(), b.toString(), "--fail-if", "p99 > +10%"));
        // 1098 ns against 2196 ns, which HdrHistogram keeps in a bucket of 2 ns read at its top, 2197: +100.1 %
        assertTrue(out.toString().contains("| p99 [µs] | 1.1 | 2.2 | +100.1 % | – | – | 3 / 3 | too few repeats to tell |"),
                out.toString());
        assertTrue(out.toString().contains("gate: 'p99 > +10%' not judged: p99 is too few repeats to tell"));
    }

    @Test
    void differentDriversAreComparedWithAWarningNamingTheFields() throws IOException {
        Path a = Fixtures.traceRun(tmp, "a", "tcp", 6, v -> v);
        Path b = Fixtures.traceRun(tmp, "b", "amqp", 6, v -> v);
        assertEquals(ExitCodes.OK, compare(a.toString(), b.toString()));
        assertTrue(out.toString().contains("warning: the runs' specs differ in driver: the verdicts compare different "
                + "set-ups, not one set-up over time"), out.toString());
        Files.writeString(b.resolve("summary.json"), Files.readString(b.resolve("summary.json"))
                .replace("\"status\": \"ok\"", "\"status\": \"failed\""));
        assertEquals(ExitCodes.OK, compare(a.toString(), b.toString()));
        assertTrue(out.toString().contains("warning: b has status failed: its figures are over the part that ran"),
                out.toString());
    }

    @Test
    void aRuleThatDoesNotParseIsOneLineNamingTheOptionExitTwo() throws IOException {
        Path a = Fixtures.traceRun(tmp, "a", "tcp", 6, v -> v);
        Path b = Fixtures.traceRun(tmp, "b", "tcp", 6, v -> v);
        assertEquals(ExitCodes.USAGE, compare(a.toString(), b.toString(), "--fail-if", "p99 over 10%"));
        assertEquals("msgscope compare: --fail-if: 'p99 over 10%' is not FIGURE > +N% or FIGURE < -N% (e.g. 'p99 > +10%')",
                err.toString().strip());
        assertEquals("", out.toString());
    }

    @Test
    void aGateNeedsAVerdictAndGroupsNeedBothSides() throws IOException {
        Path a = Fixtures.traceRun(tmp, "a", "tcp", 6, v -> v);
        Path b = Fixtures.traceRun(tmp, "b", "tcp", 6, v -> v);
        Path c = Fixtures.traceRun(tmp, "c", "tcp", 6, v -> v);
        assertEquals(ExitCodes.USAGE, compare(a.toString(), b.toString(), c.toString(), "--fail-if", "p99 > 10%"));
        assertTrue(err.toString().startsWith("msgscope compare: --fail-if: needs two run folders"), err.toString());
        assertEquals(ExitCodes.USAGE, compare("--baseline", a.toString()));
        assertTrue(err.toString().contains("msgscope compare: --candidate: needs at least one run folder"), err.toString());
        // three folders without a gate: the table as before, no verdict
        assertEquals(ExitCodes.OK, compare(a.toString(), b.toString(), c.toString()));
        assertTrue(!out.toString().contains("Verdict"), out.toString());
    }
}
