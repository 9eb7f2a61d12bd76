package io.msgscope.coordinator.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 items 2 and 3: the report of a phased run lists its phases, and its backlog episodes, in tables with
 * units, from summary.json's phases[] and backlog[] (a fixture of base:1s@2k, fill:20kmsg@10k/paused, drain:2s@2k).
 */
class PhaseTablesTest {
    @TempDir
    Path tmp;

    static final String PHASES = """
            "phases": [
             {"index": 0, "name": "base", "kind": "constant", "start_s": 0.0, "end_s": 1.0, "consumers_paused": false,
              "rate_asked_from_msg_s": 2000.0, "rate_asked_to_msg_s": 2000.0, "messages_scheduled": 2000,
              "messages_sent": 2000, "messages_received": 2000, "messages_lost": 0,
              "latency_from_intended": {"latency_p50_us": 151.25, "latency_p99_us": 2346.0}},
             {"index": 1, "name": "fill", "kind": "constant", "start_s": 1.0, "end_s": 3.0, "consumers_paused": true,
              "rate_asked_from_msg_s": 10000.0, "rate_asked_to_msg_s": 10000.0, "messages_scheduled": 20000,
              "messages_sent": 20000, "messages_received": 19997, "messages_lost": 3,
              "latency_from_intended": {"latency_p50_us": 1250000.0, "latency_p99_us": null}},
             {"index": 2, "name": "ramp", "kind": "ramp", "start_s": 3.0, "end_s": 5.5, "consumers_paused": false,
              "rate_asked_from_msg_s": 1000.0, "rate_asked_to_msg_s": 5000.0, "messages_scheduled": 7500,
              "messages_sent": 7500, "messages_received": 7500, "messages_lost": 0,
              "latency_from_intended": {"latency_p50_us": 90.0, "latency_p99_us": 400.0}}],
            """;
    static final String BACKLOG = """
            "backlog": [{"phases": ["fill"], "paused_at_s": 1.0, "resumed_at_s": 3.0, "peak_messages": 19876,
              "peak_at_s": 2.999, "drained_at_s": 3.4, "drain_s": 0.4, "drain_msg_s": 49690.0,
              "catch_up_bound_us": 2345.0, "time_to_catch_up_s": 0.52,
              "last_arrival_above_bound_s": 7.25, "drain_send_msg_s": 1998.4,
              "drain_latency_from_intended": {"latency_p99_us": 350000.0},
              "broker_view": %s}],
            """;

    private String page(String name, String extra) throws IOException {
        return page(tmp, name, "kafka", extra);
    }

    /** The report page of a made-up run of {@code driver} whose summary.json starts with {@code extra}'s fields. */
    static String page(Path tmp, String name, String driver, String extra) throws IOException {
        Path d = ComparisonTest.run(tmp, name, driver, 64, 29_500, 2000, 146_799);
        Files.writeString(d.resolve("summary.json"), Files.readString(d.resolve("summary.json"))
                .replaceFirst("\\{", "{" + extra.replace("\n", " ")));
        return Files.readString(HtmlReport.write(d).index());
    }

    @Test
    void everyPhaseIsARowWithItsUnits() throws IOException {
        String html = page("phased", PHASES + BACKLOG.formatted("{\"samples\": 31, \"peak_messages\": 19801}"));
        assertTrue(html.contains("<h2>Phases</h2>"), html);
        assertTrue(html.contains("<th>phase</th><th>span</th><th>rate asked</th><th>consumers</th><th>sent</th>"
                + "<th>received</th><th>lost</th><th>p50 from intended</th><th>p99 from intended</th>"), html);
        assertTrue(html.contains("<tr><td>base</td><td>0.000 s – 1.000 s</td><td>2,000 msg/s</td><td>consuming</td>"
                + "<td>2,000</td><td>2,000</td><td>0</td><td>151 µs</td><td>2.35 ms</td></tr>"), html);
        // a null figure is a dash, never 0
        assertTrue(html.contains("<tr><td>fill</td><td>1.000 s – 3.000 s</td><td>10,000 msg/s</td><td>paused</td>"
                + "<td>20,000</td><td>19,997</td><td>3</td><td>1.25 s</td><td>–</td></tr>"), html);
        assertTrue(html.contains("<tr><td>ramp</td><td>3.000 s – 5.500 s</td><td>1,000 → 5,000 msg/s</td>"), html);
        assertTrue(html.contains("<h2>Backlog</h2>"), html);
        assertTrue(html.contains("<tr><td>fill</td><td>1.000 s – 3.000 s</td><td>19,876 msg</td><td>19,801 msg</td>"
                + "<td>0.400 s</td><td>49,690 msg/s</td><td>0.520 s</td><td>7.250 s</td><td>1,998 msg/s</td>"
                + "<td>350 ms</td></tr>"),
                html);
        assertTrue(html.indexOf("<h2>Counters</h2>") < html.indexOf("<h2>Phases</h2>"), "after the counters");
    }

    @Test
    void aBrokerThatWasNotReadSaysSoAndARunWithoutPhasesHasNoTables() throws IOException {
        String html = page("unread", PHASES + BACKLOG.formatted("null"));
        assertTrue(html.contains("<td>19,876 msg</td><td>not read</td>"), html);
        String plain = page("plain", "");
        assertFalse(plain.contains("<h2>Phases</h2>") || plain.contains("<h2>Backlog</h2>"), plain);
        String noBacklog = page("nobacklog", PHASES);
        assertTrue(noBacklog.contains("<h2>Phases</h2>") && !noBacklog.contains("<h2>Backlog</h2>"), noBacklog);
    }
}
