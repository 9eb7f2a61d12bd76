package io.msgscope.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.coordinator.cli.CompareCommand;
import io.msgscope.coordinator.cli.ExitCodes;
import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

public class ComparisonTest {
    @TempDir
    Path tmp;

    static Path run(Path parent, String name, String driver, int size, long count, double rate, double p50Ns)
            throws IOException {
        Path d = parent.resolve(name);
        Files.createDirectories(d);
        Files.writeString(d.resolve("summary.json"), String.format(java.util.Locale.ROOT, """
                {"mode": "trace", "driver": "%s", "status": "ok", "spec": {"count": %d, "size": %d, "rate": %s},
                 "counters": {"messages_lost": 0},
                 "throughput": {"receive_msg_s": 19999.5, "receive_bytes_s": 1279968},
                 "latency": {"latency_min_us": 10, "latency_mean_us": 150, "latency_p50_us": %s,
                             "latency_p95_us": 400, "latency_p99_us": 900, "latency_p999_us": 2000, "latency_max_us": 5000},
                 "series": {"latency_ns": {"p50": %s, "p90": 300000, "p95": 400000, "p99": 900000,
                                           "p99_9": 2000000, "p99_99": 4000000, "max": 5000000}},
                 "cpu": {"sender": {"stats": {"median": 71.25}, "time_weighted": {"mean_pct": 20.5}},
                         "receiver": {"stats": {"median": 19}}},
                 "distribution": {"verdict": "unimodal | tidy"}}
                """, driver, count, size, rate, p50Ns / 1000, p50Ns));
        return d;
    }

    /** Runs compare like Main does: SpecException → one line on stderr, exit 2 (also for compare's verdict tests). */
    public static int compare(StringWriter out, StringWriter err, String... args) {
        CommandLine cl = new CommandLine(new CompareCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setExecutionExceptionHandler((ex, c, p) -> {
            if (ex instanceof SpecException) {
                c.getErr().println("msgscope compare: " + ex.getMessage());
                return ExitCodes.USAGE;
            }
            throw ex;
        });
        return cl.execute(args);
    }

    @Test
    void refusesDifferentSizeNamingTheFieldUnlessForced() throws IOException {
        Path a = run(tmp, "tcp-a", "tcp", 64, 1000, 20000, 100_000);
        Path b = run(tmp, "amqp-b", "amqp", 256, 1000, 20000, 300_000);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        assertEquals(ExitCodes.USAGE, compare(out, err, a.toString(), b.toString()));
        assertEquals("msgscope compare: size: differs between the runs (tcp-a=64 amqp-b=256); use --force to compare anyway",
                err.toString().strip());
        assertEquals(1, err.toString().strip().lines().count());
        assertEquals("", out.toString());

        out = new StringWriter();
        err = new StringWriter();
        Path o = tmp.resolve("cmp");
        assertEquals(ExitCodes.OK, compare(out, err, "--force", "--out", o.toString(), a.toString(), b.toString()));
        assertTrue(out.toString().contains("| driver | tcp | amqp |"), out.toString());
        assertTrue(out.toString().contains("| latency p50 [µs] | 100.0 | 300.0 |"), out.toString());
        assertTrue(out.toString().contains("| CPU sender median per window [% core] | 71.3 | 71.3 |"), out.toString());
        assertTrue(out.toString().contains("| CPU sender time-weighted [% core] | 20.5 | 20.5 |"), out.toString());
        assertTrue(out.toString().contains("unimodal \\| tidy"), out.toString());
        assertTrue(Files.readString(o.resolve("compare.md")).startsWith("| field | tcp-a | amqp-b |"));
        String dat = Files.readString(o.resolve("compare.dat"));
        assertTrue(dat.contains("\n0 \"p50\" 100.0 300.0\n"), dat);
        assertTrue(dat.contains("\n6 \"max\" 5000.0 5000.0\n"), dat);
        String gp = Files.readString(o.resolve("compare.gp"));
        assertTrue(gp.contains("using 1:3:xtic(2)") && gp.contains("using 1:4:xtic(2)"), gp);
        // issue 29: and the same table as a page
        String html = Files.readString(o.resolve("compare.html"));
        assertTrue(html.contains("<thead><tr><th>field</th><th>tcp-a</th><th>amqp-b</th></tr></thead>"), html);
        assertTrue(html.contains("<tr><td>latency p50 [µs]</td><td>100.0</td><td>300.0</td></tr>"), html);
        assertTrue(html.contains("unimodal | tidy") && !html.contains("| driver |"), html);
        assertTrue(html.contains("No plots: run compare with --plot"), html);
        assertTrue(out.toString().contains("page: " + o.resolve("compare.html")), out.toString());
    }

    @Test
    void countAndRateAreCheckedTooAndEqualRunsPass() throws IOException {
        Path a = run(tmp, "a", "tcp", 64, 1000, 20000, 1);
        Path c = run(tmp, "c", "tcp", 64, 2000, 20000, 1);
        Path r = run(tmp, "r", "tcp", 64, 1000, 0, 1);
        Path same = run(tmp, "same", "nats", 64, 1000, 20000, 1);
        assertEquals(new Comparison.Mismatch("count", "a=1000 c=2000"), Comparison.load(List.of(a, c)).mismatch().orElseThrow());
        assertEquals("rate", Comparison.load(List.of(a, r)).mismatch().orElseThrow().field());
        assertFalse(Comparison.load(List.of(a, same)).mismatch().isPresent());
        StringWriter err = new StringWriter();
        assertEquals(ExitCodes.USAGE, compare(new StringWriter(), err, a.toString(), tmp.resolve("nope").toString()));
        assertTrue(err.toString().contains("holds no summary.json"), err.toString());
        assertEquals(ExitCodes.USAGE, compare(new StringWriter(), new StringWriter(), a.toString()));
    }

    /**
     * Issue 27: the console prints the flow agent's process CPU per message over the sampling period (15.6 µs);
     * compare printed the whole probe's (16,499 ns) under a name that did not say so. Now both, each named.
     */
    @Test
    void throughputCpuPerMessageIsNamedByItsPeriod() throws IOException {
        Path d = tmp.resolve("tp");
        Files.createDirectories(d);
        Files.writeString(d.resolve("summary.json"), """
                {"mode": "throughput", "driver": "amqp", "status": "ok", "spec": {"size": 64},
                 "result": {"client_cpu_ns_per_message": 16499,
                            "cpu": {"process": {"pct_of_one_core": 40.1, "ns_per_message": 15600}}}}
                """);
        String md = Comparison.load(List.of(d)).markdown();
        assertTrue(md.contains("| client process CPU per message, sampling period [ns] | 15600 |"), md);
        assertTrue(md.contains("| client process CPU per message, whole probe [ns] | 16499 |"), md);
    }
}
