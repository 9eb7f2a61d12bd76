package io.msgscope.coordinator.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 32 item 4: the report of a run with faults lists each with what it cost, from summary.json's faults[]. */
class FaultTablesTest {
    @TempDir
    Path tmp;

    static final String FAULTS = """
            "faults": [
             {"index": 0, "action": "pause", "target": "node1", "planned_s": 1.5, "applied_s": 1.5123, "lag_ms": 12.3,
              "unavailable_ms": 1004.25, "messages_sent_in_window": 2000, "messages_lost": 0, "guarantee_violations": 0, "messages_reordered": 3,
              "messages_in_flight": 41, "in_flight_latency_from_intended": {"latency_p99_us": 998000.0},
              "throughput_recovered_s": 1.6, "p99_recovered_s": null, "error": null},
             {"index": 1, "action": "resume", "target": "node1", "planned_s": 2.5, "applied_s": null, "lag_ms": null,
              "unavailable_ms": null, "messages_sent_in_window": null, "messages_lost": null, "guarantee_violations": null, "messages_reordered": null,
              "messages_in_flight": null, "in_flight_latency_from_intended": null,
              "throughput_recovered_s": null, "p99_recovered_s": null, "error": "no such process"}],
            """;

    private String page(String name, String extra) throws IOException {
        return PhaseTablesTest.page(tmp, name, "nats", extra);
    }

    @Test
    void everyFaultIsARowWithWhatItCost() throws IOException {
        String html = page("faulted", FAULTS);
        assertTrue(html.contains("<h2>Faults</h2>"), html);
        assertTrue(html.contains("<th>fault</th><th>planned</th><th>applied (lag)</th><th>unavailable</th>"
                + "<th>sent in window</th><th>lost</th><th>guarantee violations</th><th>reordered</th><th>in flight</th>"
                + "<th>p99 in flight from intended</th><th>throughput back</th><th>p99 back</th>"), html);
        assertTrue(html.contains("<tr><td>0: pause node1</td><td>1.500 s</td><td>1.512 s (12.3 ms)</td>"
                + "<td>1,004.3 ms</td><td>2,000</td><td>0</td><td>0</td><td>3</td><td>41</td><td>998 ms</td>"
                + "<td>1.600 s after</td><td>–</td></tr>"), html);
        // not applied: the agent's error instead of a time, every figure a dash (unknown, never 0)
        assertTrue(html.contains("<tr><td>1: resume node1</td><td>2.500 s</td><td>not applied: no such process</td>"
                + "<td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td></tr>"), html);
    }

    @Test
    void aRunWithoutFaultsHasNoFaultsTable() throws IOException {
        String html = page("plain", "");
        assertFalse(html.contains("<h2>Faults</h2>"));
        assertFalse(html.contains("guarantee violations:"));
    }

    @Test
    void guaranteeViolationsAreNamedInRed() throws IOException {
        String html = violated("violated", 1234);
        assertTrue(html.contains("<p class=\"status-failed\">1,234 guarantee violations: messages the system confirmed "
                + "and never delivered (counters.guarantee_violations)</p>"), html);
        assertFalse(violated("kept", 0).contains("guarantee violations:"));
    }

    /** The page of a made-up run whose counters hold {@code n} guarantee violations. */
    private String violated(String name, long n) throws IOException {
        Path d = ComparisonTest.run(tmp, name, "nats", 64, 29_500, 2000, 146_799);
        Path summary = d.resolve("summary.json");
        java.nio.file.Files.writeString(summary, java.nio.file.Files.readString(summary)
                .replace("\"counters\": {", "\"counters\": {\"guarantee_violations\": " + n + ", "));
        return java.nio.file.Files.readString(HtmlReport.write(d).index());
    }
}
