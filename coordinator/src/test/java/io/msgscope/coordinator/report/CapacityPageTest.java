package io.msgscope.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** report on a capacity search's folder (issue 31 item 4): a hand-made summary.json in the shape capacity writes. */
class CapacityPageTest {
    @TempDir
    Path tmp;

    private Path capacity(String status, String extra, String found, String above, String ci) throws Exception {
        Path d = Files.createDirectories(tmp.resolve("cap"));
        Files.writeString(d.resolve("summary.json"), """
                {"tool": "msgscope 0.1", "mode": "capacity", "run_id": "cap", "driver": "tcp",
                 "started_at": "2026-11-27T10:00:00Z", "status": "%s", "failure_reason": null, "failed_during": null,
                 "warnings": [], "spec": {"objective": "p99=2ms,p999=10ms"}, "spec_hash": "0", "environment": {},%s
                 "objective": {"p99_us": 2000.0, "p999_us": 10000.0},
                 "search": {"from_msg_s": 100.0, "to_msg_s": 5000.0},
                 "capacity": {"found_msg_s": %s, "first_failing_msg_s": %s,
                              "edge": {"estimates_msg_s": [912.5], "mean_msg_s": 912.5, "ci95_msg_s": %s},
                              "stop_reason": "bracket within 5 %% and 1 run(s) at each end", "steps_taken": 2,
                              "seconds": 61.25},
                 "steps": [
                  {"index": 1, "role": "coarse", "folder": "step-01-900", "rate_asked_msg_s": 900.0,
                   "rate_achieved_msg_s": 899.5, "hold_s": 3, "run_status": "ok",
                   "latency_from_intended": {"p99_us": 1234.5678, "p999_us": 2000.0}, "messages_lost": 0,
                   "stationarity": {"stationary": true}, "pass": true, "reason": null, "seconds": 30.5},
                  {"index": 2, "role": "coarse", "folder": "step-02-1800", "rate_asked_msg_s": 1800.0,
                   "rate_achieved_msg_s": null, "hold_s": 3, "run_status": "ok",
                   "latency_from_intended": {"p99_us": 1000000.0, "p999_us": null}, "messages_lost": null,
                   "stationarity": null, "pass": false, "reason": "p99 = 1 s > 2 ms", "seconds": 30.75}],
                 "files": ["capacity.dat", "capacity.gp", "summary.json"]}
                """.formatted(status, extra, found, above, ci), StandardCharsets.UTF_8);
        return d;
    }

    @Test
    void thePageSaysTheAnswerTheObjectiveAndEveryStepWithUnits() throws Exception {
        Path d = capacity("ok", "", "900.0", "1800.0", "[880.0, 945.5]");
        HtmlReport.Result r = HtmlReport.write(d);
        assertEquals(d.resolve("index.html"), r.index());
        String html = Files.readString(r.index(), StandardCharsets.UTF_8);
        assertTrue(html.contains("Sustains 900 msg/s within p99 ≤ 2 ms, p999 ≤ 10 ms (edge 95 % interval "
                + "880–945.500 msg/s); the first failing rate was 1,800 msg/s. 2 runs in 61.250 s (bracket within 5 % "
                + "and 1 run(s) at each end)."), html);
        assertTrue(html.contains("<td>p99</td><td>≤ 2,000 µs</td>"), html);
        assertTrue(html.contains("<th>rate asked [msg/s]</th>"), html);
        assertTrue(html.contains("<th>p999 [µs]</th>"), html);
        assertTrue(html.contains("<tr><td>1</td><td>coarse</td><td>900</td><td>899.500</td><td>3</td><td>ok</td>"
                + "<td>1,234.6</td><td>2,000</td><td>0</td><td>yes</td><td>yes</td><td>–</td><td>30.500</td>"
                + "<td>step-01-900</td></tr>"), html);
        // unknown is a dash, never 0
        assertTrue(html.contains("<tr><td>2</td><td>coarse</td><td>1,800</td><td>–</td><td>3</td><td>ok</td>"
                + "<td>1,000,000</td><td>–</td><td>–</td><td>–</td><td>no</td><td>p99 = 1 s &gt; 2 ms</td>"), html);
    }

    @Test
    void aStepWithItsOwnPageIsLinked() throws Exception {
        Path d = capacity("ok", "", "900.0", "null", "null");
        Path step = Files.createDirectories(d.resolve("step-01-900"));
        Files.writeString(step.resolve("summary.json"), """
                {"mode": "trace", "driver": "tcp", "status": "ok", "started_at": "2026-11-27T10:00:00Z",
                 "warnings": [], "environment": {}}
                """, StandardCharsets.UTF_8);
        HtmlReport.Result r = HtmlReport.write(d);
        assertEquals(2, r.pages().size());
        String html = Files.readString(r.index(), StandardCharsets.UTF_8);
        assertTrue(html.contains("<a href=\"step-01-900/index.html\">step-01-900</a>"), html);
        assertTrue(html.contains("the objective held up to --to, so the capacity may be higher."), html);
    }

    @Test
    void anInterruptedSearchThatHadNotConvergedClaimsNoRate() throws Exception {
        Path d = capacity("interrupted", """
                 "interrupted": {"signal": "SIGINT", "steps_finished": 2, "not_finished": [], "during": "bisection",
                                 "last_passing_msg_s": 900.0, "first_failing_msg_s": 1800.0, "converged": false},""",
                "null", "1800.0", "null");
        String html = Files.readString(HtmlReport.write(d).index(), StandardCharsets.UTF_8);
        assertTrue(html.contains("Interrupted by SIGINT during the bisection phase after 2 step(s); so far 900 msg/s "
                + "passed and 1,800 msg/s failed. The search had not converged: no capacity is claimed."), html);
    }

    @Test
    void aGridsPageSaysItsRatesAndANoisyEdge() throws Exception {
        Path d = capacity("ok", "", "900.0", "1800.0", "null");
        Path f = d.resolve("summary.json");
        Files.writeString(f, Files.readString(f)
                .replace("\"search\": {\"from_msg_s\": 100.0", "\"search\": {\"kind\": \"grid\", \"from_msg_s\": 100.0")
                .replace("\"seconds\": 61.25}", "\"seconds\": 61.25, \"passed_above_first_failing_msg_s\": [2700.0], "
                        + "\"rates\": [{\"rate_msg_s\": 900.0, \"runs\": 3, \"runs_passed\": 2, \"lost_messages\": false, "
                        + "\"verdict\": \"pass\"}, {\"rate_msg_s\": 1800.0, \"runs\": 2, \"runs_passed\": 1, "
                        + "\"lost_messages\": true, \"verdict\": \"fail\"}]}"));
        String html = Files.readString(HtmlReport.write(d).index(), StandardCharsets.UTF_8);
        assertTrue(html.contains("Sustains 900 msg/s within p99 ≤ 2 ms, p999 ≤ 10 ms, and at every lower rate of "
                + "--rates; the first failing rate was 1,800 msg/s, and 2,700 msg/s passed again above it (a noisy "
                + "edge)."), html);
        assertTrue(html.contains("<th>runs passed</th>"), html);
        assertTrue(html.contains("<tr><td>900</td><td>3</td><td>2</td><td>no</td><td>pass</td></tr>"), html);
        assertTrue(html.contains("<tr><td>1,800</td><td>2</td><td>1</td><td>yes</td><td>fail</td></tr>"), html);
    }
}
