package io.msgscope.bench;

import io.msgscope.coordinator.history.HistoryQuery;
import io.msgscope.coordinator.history.HistoryWriters;
import io.msgscope.coordinator.history.Recording;
import io.msgscope.coordinator.history.RunRecord;
import io.msgscope.coordinator.history.RunStore;
import io.msgscope.coordinator.history.StoreLocation;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The run store's targets (issue 34): recording a run adds &lt; 100 ms to it, and {@code history} over 10,000 stored
 * runs answers in &lt; 1 s. Usage: {@code java -cp benchmarks/target/benchmarks.jar io.msgscope.bench.HistoryStoreBench
 * RESULTS_FOLDER STORE [RUNS]} — RESULTS_FOLDER a finished run's folder (its summary.json is recorded again and
 * again), STORE a SQLite file or postgresql:// URL that is empty or disposable. Prints, in ms: the check before a run
 * (open + migrate) and the recording after it, the first in this JVM and the median of 20 more; then the store is
 * filled to RUNS (default 10,000) and each history query is timed (median of 5, after one warm-up), the last one with
 * the change points of its figure over all runs.
 */
public final class HistoryStoreBench {
    private HistoryStoreBench() {
    }

    public static void main(String[] args) throws Exception {
        Path folder = Path.of(args[0]);
        StoreLocation where = StoreLocation.parse(args[1]);
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
        Map<String, String> labels = Map.of("bench", "history", "broker", "3.13");

        long t0 = System.nanoTime();
        Recording rec = Recording.check(where, labels);
        long t1 = System.nanoTime();
        rec.record(folder, System.err::println);
        long t2 = System.nanoTime();
        System.out.printf(Locale.ROOT, "first in this JVM: check %.1f ms, record %.1f ms%n", ms(t1 - t0), ms(t2 - t1));
        double[] check = new double[20];
        double[] record = new double[20];
        for (int i = 0; i < 20; i++) {
            long a = System.nanoTime();
            Recording r = Recording.check(where, labels);
            long b = System.nanoTime();
            r.record(folder, System.err::println);
            long c = System.nanoTime();
            check[i] = ms(b - a);
            record[i] = ms(c - b);
        }
        System.out.printf(Locale.ROOT, "median of 20: check %.1f ms, record %.1f ms%n", median(check), median(record));

        try (RunStore store = RunStore.open(where)) {
            int have = new HistoryQuery(null, null, null, null, Map.of(), null, null, 0, null).rows(store).size();
            RunRecord base = RunRecord.read(folder, labels);
            long f0 = System.nanoTime();
            for (int i = have; i < runs; i++) {
                Map<String, Double> figures = new HashMap<>(base.figures());
                double factor = 0.9 + (i % 20) / 100.0;
                figures.replaceAll((k, v) -> v == null ? null : v * factor);
                long started = 1_700_000_000_000L + i * 60_000L;
                store.record(new RunRecord(base.mode(), "bench-" + i, i % 3 == 0 ? "bench-driver" : base.driver(),
                        java.time.Instant.ofEpochMilli(started).toString(), started, i % 10 == 0 ? "failed" : "ok",
                        i % 10 == 0 ? "bench" : null, null, base.toolVersion(), base.specHash(), base.specJson(),
                        base.environmentJson(), base.host(), base.os(), base.jvm(), base.cpuModel(), base.logicalCores(),
                        base.broker(), base.folder(), base.hlog(), figures, Map.of("bench", "history",
                        "try", Integer.toString(i % 7))));
            }
            System.out.printf(Locale.ROOT, "filled to %d runs in %.1f s%n", runs, ms(System.nanoTime() - f0) / 1e3);
            Path csv = Files.createTempFile("history-bench", ".csv");
            List<Object[]> cases = List.of(
                    new Object[] {"list all", new HistoryQuery(null, null, null, null, Map.of(), null, null, 0, null), false},
                    new Object[] {"--figure latency_p99_us", new HistoryQuery(null, null, null, null, Map.of(), null, null,
                            0, "latency_p99_us"), false},
                    new Object[] {"--driver --label --figure", new HistoryQuery("bench-driver", null, null, null,
                            Map.of("try", "3"), null, null, 0, "latency_p99_us"), false},
                    new Object[] {"--last 20 --figure", new HistoryQuery(null, null, null, null, Map.of(), null, null, 20,
                            "latency_p99_us"), false},
                    new Object[] {"list all + --csv (every figure)", new HistoryQuery(null, null, null, null, Map.of(),
                            null, null, 0, null), true},
                    new Object[] {"--figure --change-points", new HistoryQuery(null, null, null, null, Map.of(), null,
                            null, 0, "latency_p99_us"), null});
            for (Object[] c : cases) {
                HistoryQuery q = (HistoryQuery) c[1];
                double[] t = new double[6];
                int n = 0;
                for (int i = 0; i < t.length; i++) {
                    long a = System.nanoTime();
                    List<HistoryQuery.Row> rows = q.rows(store);
                    HistoryWriters.table(rows, q.figure(), new PrintWriter(Writer.nullWriter()));
                    if (c[2] == null) {
                        HistoryWriters.changePoints(rows, q.figure(), 0.01, new PrintWriter(Writer.nullWriter()));
                    } else if ((Boolean) c[2]) {
                        HistoryWriters.csv(rows, HistoryQuery.figures(store, rows), null, csv);
                    }
                    t[i] = ms(System.nanoTime() - a);
                    n = rows.size();
                }
                System.out.printf(Locale.ROOT, "%-34s %6d rows: first %.0f ms, median of 5 more %.0f ms%n", c[0], n, t[0],
                        median(Arrays.copyOfRange(t, 1, t.length)));
            }
            Files.deleteIfExists(csv);
        }
    }

    private static double ms(long ns) {
        return ns / 1e6;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
