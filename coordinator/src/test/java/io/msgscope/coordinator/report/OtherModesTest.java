package io.msgscope.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.coordinator.cli.ExitCodes;
import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * report and compare on the folders of throughput (seed 000) and scenario (seed 002) runs, and compare
 * on sweep folders (issue 7): hand-made summaries in the shapes the commands write.
 */
class OtherModesTest {
    @TempDir
    Path tmp;

    static Path throughput(Path parent, String name, String driver, int size, long inFlight, double median)
            throws IOException {
        Path d = Files.createDirectories(parent.resolve(name));
        Files.writeString(d.resolve("summary.json"), String.format(Locale.ROOT, """
                {"mode": "throughput", "driver": "%s", "status": "ok", "started_at": "2026-11-23T12:00:00Z",
                 "warnings": [], "settings": {"size": %d, "in_flight": %d, "samples": 4},
                 "environment": {"host": "h", "jvm": "17"},
                 "probes": [{"in_flight": %d, "phase": "fixed", "median_msg_s": %s, "mean_msg_s": %s,
                             "stddev_msg_s": 100.0, "samples": 4}],
                 "result": {"in_flight": %d, "delivered_msg_s": %s, "window_median_msg_s": %s,
                            "median_msg_s": %s, "mean_msg_s": %s, "stddev_msg_s": 100.0,
                            "median_bytes_s": %s, "samples": 4, "messages_sent": 9000, "messages_received": 9000,
                            "counters": {"messages_acked": 0},
                            "latency": {"count": 5000, "latency_min_us": 10.0, "latency_max_us": 900.0,
                                        "latency_mean_us": 50.0, "latency_p50_us": 40.0, "latency_p95_us": 80.0,
                                        "latency_p99_us": 200.0, "latency_p999_us": 800.0},
                            "client_cpu_ns_per_message": 1500.0,
                            "sample_values_msg_s": [%s, %s, %s, %s]}}
                """, driver, size, inFlight, inFlight, median, median, inFlight, median * 0.9, median, median, median,
                median * size,
                median - 200, median, median + 100, median + 300));
        return d;
    }

    static Path scenario(Path parent, String name, String scenario, int publishers, double received) throws IOException {
        Path d = Files.createDirectories(parent.resolve(name));
        Files.writeString(d.resolve("summary.json"), String.format(Locale.ROOT, """
                {"tool": "msgscope 0.1", "mode": "scenario", "scenario": "%s", "driver": "mqtt", "delivery": "QoS 1",
                 "publishers": %d, "subscribers": 1, "rate_per_publisher": 100, "warmup_s": 1.0, "duration_s": 2.0,
                 "size": 64, "padding": "random", "status": "ok", "failure_reason": null,
                 "results": {"latency_min_us": 90.0, "latency_max_us": 3000.0, "latency_mean_us": 150.0,
                             "latency_p50_us": 140.0, "latency_p95_us": 300.0, "latency_p99_us": 700.0,
                             "latency_p999_us": 2500.0, "messages_sent": 400, "messages_received": %s,
                             "expected_messages": 400, "delivery_rate": %s, "receive_rate": %s,
                             "receive_bytes_rate": %s, "errors": 0},
                 "notes": ["broker CPU not sampled"]}
                """, scenario, publishers, received, received / 400, received / 2, received * 32));
        Files.writeString(d.resolve("timeseries.dat"), "# second rate p50 p99\n0 200 140 700\n1 200 141 690\n");
        return d;
    }

    @Test
    void throughputFolderReportShowsResultLatencyProbesAndWritesItsSamples() throws IOException {
        Path d = throughput(tmp, "tp", "amqp", 64, 100, 50_000);
        HtmlReport.Result r = HtmlReport.write(d);
        String html = Files.readString(r.index());
        assertTrue(html.contains("<h1>msgscope throughput tp</h1>"), html);
        assertTrue(html.contains("Throughput of 64 B messages over amqp with 100 in flight (100 requested): delivered over"
                + " the sampling period of 4 samples at 45,000 msg/s"), html);
        assertTrue(html.contains("latency p50 40.0 µs, p99 200 µs, p99.9 800 µs, max 900 µs."), html);
        assertTrue(html.contains("Latency at that F (Q4)") && html.contains("Probes") && html.contains("<td>fixed</td>"));
        assertTrue(html.contains("Settings (to reproduce)"));
        // samples.dat/.gp written from summary.json for a folder that lacks them
        List<String> rows = Files.readAllLines(d.resolve("samples.dat")).stream().filter(l -> !l.startsWith("#")).toList();
        assertEquals(List.of("0 49800.0", "1 50000.0", "2 50100.0", "3 50300.0"), rows);
        assertTrue(Files.readString(d.resolve("samples.gp")).contains("set output \"samples-histogram.png\""));
    }

    /**
     * Issue 29: a nested object of the result is its own rows ("median 95 % interval: low [msg/s]"), never raw JSON
     * in a cell; numbers grouped; headers kept on one line, cells wrapped only between words.
     */
    @Test
    void throughputTablesShowNoRawJsonAndHeadersDoNotWrapLetterByLetter() throws IOException {
        Path d = throughput(tmp, "tp-nested", "amqp", 64, 100, 50_000);
        Files.writeString(d.resolve("summary.json"), Files.readString(d.resolve("summary.json")).replace(
                "\"samples\": 4, \"messages_sent\"",
                "\"samples\": 4, \"median_ci95\": {\"low_msg_s\": 49800.25, \"high_msg_s\": 50100.5}, \"messages_sent\""));
        String html = Files.readString(HtmlReport.write(d).index());
        assertFalse(html.matches("(?s).*<td>[\\[{].*"), "no JSON in a cell:\n" + html);
        assertTrue(html.contains("<tr><td>median 95 % interval: low [msg/s]</td><td>49,800.3</td>"
                + "<td>median_ci95.low_msg_s</td></tr>"), html);
        assertTrue(html.contains("th { white-space: nowrap; }") && !html.contains("overflow-wrap: anywhere"), html);
    }

    @Test
    void scenarioFolderReportShowsTheQ4Q5Q6FieldsAndSettings() throws IOException {
        Path d = scenario(tmp, "sc", "fan-in", 4, 400);
        String html = Files.readString(HtmlReport.write(d).index());
        assertTrue(html.contains("fan-in over mqtt @ QoS 1, 4 publisher(s) x 100 msg/s for 2.0 s, 1 subscriber(s), 64 B:"
                + " received at 200 msg/s"), html);
        assertTrue(html.contains("delivery rate 1.000; 0 lost."), html);
        // issue 29 (as docs/commands.md says): the headline first, then the plots, then the tables
        assertTrue(html.contains("<tr><td>delivery rate</td><td>1.000</td></tr>"), html);
        assertTrue(html.contains("<tr><td>lost</td><td>0 of 400 (0.000 %)</td></tr>"), html);
        assertTrue(html.indexOf("<h2>Headline</h2>") < html.indexOf("<h2>Plots</h2>")
                && html.indexOf("<h2>Plots</h2>") < html.indexOf("Results (Q4 latency"), html);
        assertTrue(html.contains("<td>latency_p999_us</td>") && html.contains("<td>delivery_rate</td>"));
        assertTrue(html.contains("<li>broker CPU not sampled</li>"));
        assertTrue(html.contains("Scenario (to reproduce)") && html.contains("<td>rate_per_publisher</td>"));
    }

    @Test
    void compareThroughputAndScenarioFoldersAndRefuseMixedModes() throws IOException {
        Path a = throughput(tmp, "tp-amqp", "amqp", 64, 100, 50_000);
        Path b = throughput(tmp, "tp-nats", "nats", 64, 100, 250_000);
        Comparison c = Comparison.load(List.of(a, b));
        assertFalse(c.mismatch().isPresent());
        String md = c.markdown();
        assertTrue(md.contains("| mode | throughput | throughput |"), md);
        // issue 27: the headline is the delivered rate (90 % of the median window in these folders)
        assertTrue(md.contains("| receive [msg/s] | 45000 | 225000 |"), md);
        assertTrue(md.contains("| median of the throughput windows [msg/s] | 50000 | 250000 |"), md);
        assertTrue(md.contains("| latency p99.9 [µs] | 800.0 | 800.0 |"), md);
        assertTrue(md.contains("| throughput samples sd [msg/s] | 100 | 100 |"), md);
        assertTrue(md.contains("| lost | – | – |"), md);
        assertTrue(c.dat().contains("\n5 \"p99.99\" NaN NaN\n"), c.dat());
        Path f = throughput(tmp, "tp-f1000", "nats", 64, 1000, 1);
        assertEquals(new Comparison.Mismatch("in_flight", "tp-amqp=100 tp-f1000=1000"),
                Comparison.load(List.of(a, f)).mismatch().orElseThrow());

        Path s1 = scenario(tmp, "sc-1", "fan-in", 4, 400);
        Path s2 = scenario(tmp, "sc-2", "fan-in", 4, 390);
        Comparison sc = Comparison.load(List.of(s1, s2));
        assertFalse(sc.mismatch().isPresent());
        assertTrue(sc.markdown().contains("| delivery rate | 1.0000 | 0.9750 |"), sc.markdown());
        assertTrue(sc.markdown().contains("| lost | 0 | 10 |"), sc.markdown());
        Path s3 = scenario(tmp, "sc-3", "fan-out", 1, 400);
        assertEquals("scenario", Comparison.load(List.of(s1, s3)).mismatch().orElseThrow().field());

        StringWriter err = new StringWriter();
        assertEquals(ExitCodes.USAGE, ComparisonTest.compare(new StringWriter(), err, a.toString(), s1.toString()));
        assertEquals("msgscope compare: mode: differs between the runs (tp-amqp=throughput sc-1=scenario); "
                + "use --force to compare anyway", err.toString().strip());
    }

    static Path sweep(Path parent, String name, String parameter, String values, String spread) throws IOException {
        Path d = Files.createDirectories(parent.resolve(name));
        Files.writeString(d.resolve("sweep.json"), "{\"parameter\": \"" + parameter + "\", \"mode\": \"run\", \"values\": "
                + values + ", \"points\": [], \"spread\": " + spread + "}");
        return d;
    }

    @Test
    void compareSweepsOverTheSameParameterOnly() throws IOException {
        Path a = sweep(tmp, "tcp", "size", "[64, 1024]", """
                [{"size": 64, "repeats": 2, "recv_msg_s": {"median": 30000}, "lat_p50_us": {"median": 50},
                  "lat_p99_us": {"median": 90}},
                 {"size": 1024, "repeats": 2, "recv_msg_s": {"median": 20000}, "lat_p50_us": {"median": 60},
                  "lat_p99_us": {"median": null}}]""");
        Path b = sweep(tmp, "amqp", "size", "[64, 4096]", """
                [{"size": 64, "repeats": 1, "recv_msg_s": {"median": 10000}, "lat_p50_us": {"median": 500},
                  "lat_p99_us": {"median": 900}},
                 {"size": 4096, "repeats": 1, "recv_msg_s": {"median": 5000}, "lat_p50_us": {"median": 700},
                  "lat_p99_us": {"median": 1500}}]""");
        SweepComparison c = SweepComparison.load(List.of(a, b));
        String md = c.markdown();
        assertTrue(md.startsWith("| size | tcp msg/s | tcp p50 [µs] | tcp p99 [µs] | amqp msg/s |"), md);
        assertTrue(md.contains("| 64 | 30000 | 50.0 | 90.0 | 10000 | 500.0 | 900.0 |"), md);
        assertTrue(md.contains("| 1024 | 20000 | 60.0 | – | – | – | – |"), md);
        assertTrue(md.contains("| 4096 | – | – | – | 5000 | 700.0 | 1500.0 |"), md);
        assertTrue(c.dat().contains("\n1024 20000.000 60.000 NaN NaN NaN NaN\n"), c.dat());
        String gp = c.script();
        assertTrue(gp.contains("using 1:2 with linespoints") && gp.contains("using 1:5 with linespoints"), gp);
        assertTrue(gp.contains("using 1:4 with") && gp.contains("using 1:7 with"), gp);
        // issue 29: the p99 plot's log axis fitted to the medians 90 to 1500 µs (a quarter beyond), no empty decades
        String latency = gp.substring(gp.indexOf("set output \"compare-latency.png\""));
        assertTrue(latency.contains("set logscale y 10\nset yrange [72:1875]\n"), latency);

        Path r = sweep(tmp, "rates", "rate", "[1000]", "[]");
        SpecException e = assertThrows(SpecException.class, () -> SweepComparison.load(List.of(a, r)));
        assertEquals("parameter: differs between the sweeps (tcp=size rates=rate); only sweeps over the same parameter "
                + "in the same mode share an x axis", e.getMessage());
        StringWriter err = new StringWriter();
        assertEquals(ExitCodes.USAGE, ComparisonTest.compare(new StringWriter(), err, a.toString(),
                throughput(tmp, "tp", "amqp", 64, 1, 1).toString()));
        assertTrue(err.toString().contains("give only run folders or only sweep folders"), err.toString());
    }
}
