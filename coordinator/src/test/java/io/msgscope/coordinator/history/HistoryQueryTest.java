package io.msgscope.coordinator.history;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The history filters, the figure over time, the CSV and the gnuplot export, on runs made by hand (issue 34). */
class HistoryQueryTest {
    @TempDir
    Path tmp;

    /** A run of {@code driver} started on 2026-11-{day} at 10:00 UTC with p99 {@code p99} (null: unknown). */
    static RunRecord run(String mode, String driver, int day, String status, String hash, Double p99,
                         Map<String, String> labels) {
        String started = String.format("2026-11-%02dT10:00:00Z", day);
        Map<String, Double> figures = new HashMap<>();
        figures.put("latency_p99_us", p99);
        figures.put("messages_lost", 0.0);
        return new RunRecord(mode, "run-" + day, driver, started, Instant.parse(started).toEpochMilli(), status,
                status.equals("ok") ? null : "why", null, "0.1.0", hash, "{}", "{}", "h", "Linux", "JVM", "CPU", 2, null,
                "/results/run-" + day, null, figures, labels);
    }

    /** Five runs: days 1..5, drivers and labels mixed, the p99 of day 4 unknown. */
    static void fill(RunStore store) throws Exception {
        store.record(run("trace", "tcp", 1, "ok", "aaaa1111", 71.0, Map.of("broker", "3.12")));
        store.record(run("trace", "nats", 2, "ok", "bbbb2222", 50.5, Map.of("broker", "3.13", "tls", "on")));
        store.record(run("trace", "tcp", 3, "failed", "aaaa1111", 1234567.0, Map.of("broker", "3.13")));
        store.record(run("trace", "tcp", 4, "ok", "aaaa1111", null, Map.of("broker", "3.13", "tls", "on")));
        store.record(run("scenario", "tcp", 5, "interrupted", "cccc3333", 12.25, Map.of()));
    }

    static HistoryQuery q(String driver, String mode, String status, String hash, Map<String, String> labels,
                          Long since, Long until, int last, String figure) {
        return new HistoryQuery(driver, mode, status, hash, labels, since, until, last, figure);
    }

    private static List<String> ids(List<HistoryQuery.Row> rows) {
        return rows.stream().map(HistoryQuery.Row::runId).toList();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgresql"})
    void filters(String kind) throws Exception {
        try (Stores.Fresh fresh = Stores.fresh(kind, tmp); RunStore store = RunStore.open(fresh.location())) {
            fill(store);
            assertEquals(List.of("run-1", "run-2", "run-3", "run-4", "run-5"),
                    ids(q(null, null, null, null, Map.of(), null, null, 0, null).rows(store)), "all, oldest first");
            assertEquals(List.of("run-1", "run-3", "run-4", "run-5"),
                    ids(q("tcp", null, null, null, Map.of(), null, null, 0, null).rows(store)));
            assertEquals(List.of("run-5"), ids(q(null, "scenario", null, null, Map.of(), null, null, 0, null).rows(store)));
            assertEquals(List.of("run-3"), ids(q(null, null, "failed", null, Map.of(), null, null, 0, null).rows(store)));
            assertEquals(List.of("run-1", "run-3", "run-4"),
                    ids(q(null, null, null, "aaaa", Map.of(), null, null, 0, null).rows(store)), "hash prefix");
            assertEquals(List.of("run-2", "run-3", "run-4"),
                    ids(q(null, null, null, null, Map.of("broker", "3.13"), null, null, 0, null).rows(store)));
            assertEquals(List.of("run-2", "run-4"), ids(q(null, null, null, null, Map.of("broker", "3.13", "tls", "on"),
                    null, null, 0, null).rows(store)), "every label must hold");
            long day2 = Instant.parse("2026-11-02T00:00:00Z").toEpochMilli();
            long day4 = Instant.parse("2026-11-04T00:00:00Z").toEpochMilli();
            assertEquals(List.of("run-2", "run-3"),
                    ids(q(null, null, null, null, Map.of(), day2, day4, 0, null).rows(store)), "since inclusive, until not");
            assertEquals(List.of("run-4", "run-5"), ids(q(null, null, null, null, Map.of(), null, null, 2, null).rows(store)));
            assertEquals(List.of("run-3", "run-4"), ids(q("tcp", "trace", null, null, Map.of(), null, null, 2, null)
                    .rows(store)), "the newest 2 of the matching, oldest first");
            HistoryQuery.Row r2 = q(null, null, null, "bbbb", Map.of(), null, null, 0, null).rows(store).get(0);
            assertEquals(Map.of("broker", "3.13", "tls", "on"), r2.labels());
            assertEquals("nats", r2.driver());
            assertEquals("2026-11-02T10:00:00Z", r2.startedAt());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgresql"})
    void figureOverTimeTableCsvAndGnuplot(String kind) throws Exception {
        try (Stores.Fresh fresh = Stores.fresh(kind, tmp); RunStore store = RunStore.open(fresh.location())) {
            fill(store);
            List<HistoryQuery.Row> rows = q("tcp", null, null, null, Map.of(), null, null, 0, "latency_p99_us").rows(store);
            assertEquals(java.util.Arrays.asList(71.0, 1234567.0, null, 12.25), rows.stream().map(HistoryQuery.Row::figure).toList());
            StringWriter text = new StringWriter();
            HistoryWriters.table(rows, "latency_p99_us", new PrintWriter(text));
            assertEquals(String.join("\n",
                    "started_at            mode      driver  status       spec_hash  latency_p99_us  labels              folder",
                    "2026-11-01T10:00:00Z  trace     tcp     ok           aaaa1111   71              broker=3.12         /results/run-1",
                    "2026-11-03T10:00:00Z  trace     tcp     failed       aaaa1111   1234570         broker=3.13         /results/run-3",
                    "2026-11-04T10:00:00Z  trace     tcp     ok           aaaa1111   unknown         broker=3.13;tls=on  /results/run-4",
                    "2026-11-05T10:00:00Z  scenario  tcp     interrupted  cccc3333   12.25           -                   /results/run-5",
                    "4 runs", ""), text.toString(), "widths from the widest cell, 6 significant digits");
            Path csv = tmp.resolve("out/h.csv");
            HistoryWriters.csv(rows, HistoryQuery.figures(store, rows), null, csv);
            List<String> lines = Files.readAllLines(csv);
            assertEquals("run_key,started_at,mode,driver,status,spec_hash,tool_version,host,run_id,folder,labels,"
                    + "latency_p99_us,messages_lost", lines.get(0));
            assertEquals(5, lines.size());
            assertTrue(lines.get(1).endsWith(",2026-11-01T10:00:00Z,trace,tcp,ok,aaaa1111,0.1.0,h,run-1,/results/run-1,"
                    + "broker=3.12,71.0,0.0"), lines.get(1));
            assertTrue(lines.get(3).endsWith(",run-4,/results/run-4,broker=3.13;tls=on,,0.0"), "unknown: empty cell");
            HistoryWriters.gnuplot(rows, "latency_p99_us", List.of(), tmp.resolve("plot"));
            List<String> dat = Files.readAllLines(tmp.resolve("plot/history.dat"));
            assertEquals("0 " + Instant.parse("2026-11-01T10:00:00Z").getEpochSecond() + ".000 71.0  # /results/run-1",
                    dat.get(2));
            assertEquals("2 " + Instant.parse("2026-11-04T10:00:00Z").getEpochSecond() + ".000 NaN  # /results/run-4",
                    dat.get(4));
            assertTrue(Files.readString(tmp.resolve("plot/history.gp")).contains("plot 'history.dat' using 2:3"));
        }
    }
}
