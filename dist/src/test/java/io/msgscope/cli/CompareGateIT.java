package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

/**
 * compare's verdicts and regression gate through the real jar (issue 34 items 3, 4): two relay runs of one spec pass
 * a gate, a run capped at half the rate is "worse" in throughput and fails it with exit 3, a rule that does not parse
 * is exit 2 with one line naming {@code --fail-if}.
 */
class CompareGateIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private Path run(String name, String rate) throws Exception {
        Path out = tmp.resolve(name);
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("w-" + name), "run", "--count", "60000", "--rate", rate,
                "--warmup", "5000", "--out", out.toString());
        p.awaitOkSummary(out, 300);
        return out;
    }

    private static JsonNode figure(JsonNode compare, String name) {
        for (JsonNode f : compare.path("figures")) {
            if (f.path("figure").asText().equals(name)) {
                return f;
            }
        }
        throw new AssertionError("no figure " + name + " in " + compare);
    }

    @Test
    void sameSpecPassesAHalvedRateIsWorseAndFailsTheGate() throws Exception {
        Path a = run("a", "10000");
        Path b = run("b", "10000");
        Path slow = run("slow", "5000");

        // the same spec twice: the throughput gate passes (the samples are each second's messages, at the rate)
        Path same = tmp.resolve("cmp-same");
        MsgscopeProcess c1 = MsgscopeProcess.start(tmp.resolve("w-c1"), "compare", a.toString(), b.toString(),
                "--fail-if", "throughput < -20%", "--out", same.toString());
        assertEquals(0, c1.waitFor(120), () -> "stdout: " + TraceRunIT.safe(c1::out) + " stderr: " + TraceRunIT.safe(c1::err));
        JsonNode j1 = JSON.readTree(same.resolve("compare.json").toFile());
        JsonNode tp = figure(j1, "throughput");
        assertTrue(tp.path("baseline_samples").asInt() >= 5, tp.toString());
        assertTrue(Math.abs(tp.path("change").asDouble()) < 0.2, tp.toString());
        assertEquals(false, j1.path("gate_failed").asBoolean());
        assertEquals(List.of(), JSON.convertValue(j1.path("spec_differences"), List.class));
        assertTrue(c1.out().contains("## Verdict: candidate against baseline"), c1.out());

        // half the rate, judged against both: worse, beyond the threshold, exit 3 with one line for the figure
        Path worse = tmp.resolve("cmp-worse");
        MsgscopeProcess c2 = MsgscopeProcess.start(tmp.resolve("w-c2"), "compare", "--baseline", a.toString(),
                b.toString(), "--candidate", slow.toString(), "--force", "--fail-if", "throughput < -20%",
                "--out", worse.toString());
        assertEquals(3, c2.waitFor(120), () -> "stdout: " + TraceRunIT.safe(c2::out) + " stderr: " + TraceRunIT.safe(c2::err));
        JsonNode j2 = JSON.readTree(worse.resolve("compare.json").toFile());
        JsonNode tp2 = figure(j2, "throughput");
        assertEquals("worse", tp2.path("verdict").asText(), tp2.toString());
        assertEquals(-0.5, tp2.path("change").asDouble(), 0.1, tp2.toString());
        assertTrue(tp2.path("ci95_high").asDouble() < 0, tp2.toString());
        assertEquals(true, j2.path("gate_failed").asBoolean());
        assertEquals(List.of("rate"), JSON.convertValue(j2.path("spec_differences"), List.class));
        List<String> lines = c2.out().lines().filter(l -> l.startsWith("REGRESSION")).toList();
        assertEquals(1, lines.size(), c2.out());
        assertTrue(lines.get(0).startsWith("REGRESSION throughput: -"), lines.get(0));
        assertTrue(c2.out().contains("warning: the runs' specs differ in rate"), c2.out());

        // a rule that does not parse: exit 2, one line naming the option, nothing on stdout
        MsgscopeProcess c3 = MsgscopeProcess.start(tmp.resolve("w-c3"), "compare", a.toString(), b.toString(),
                "--fail-if", "p99 is worse");
        assertEquals(2, c3.waitFor(120));
        assertEquals("msgscope compare: --fail-if: 'p99 is worse' is not FIGURE > +N% or FIGURE < -N% (e.g. 'p99 > +10%')",
                c3.err().strip());
    }
}
