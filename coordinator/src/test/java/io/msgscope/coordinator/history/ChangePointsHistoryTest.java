package io.msgscope.coordinator.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code msgscope history --figure F --change-points}: the lines after the table and the marks on the plot (issue 34). */
class ChangePointsHistoryTest {
    @TempDir
    Path tmp;

    /** Runs on days 1..n of November 2026 with these p99s (null: the run has no such figure). */
    private static List<HistoryQuery.Row> rows(Double... p99) {
        List<HistoryQuery.Row> rows = new ArrayList<>();
        for (int i = 0; i < p99.length; i++) {
            String started = String.format("2026-11-%02dT10:00:00Z", i + 1);
            rows.add(new HistoryQuery.Row("k" + i, started, Instant.parse(started).toEpochMilli(), "trace", "run-" + i,
                    "tcp", "ok", "aaaa", "0.1.0", "h", "/results/run-" + (i + 1), Map.of(), p99[i]));
        }
        return rows;
    }

    private static String print(List<HistoryQuery.Row> rows, List<HistoryWriters.Shift> into) {
        StringWriter text = new StringWriter();
        into.addAll(HistoryWriters.changePoints(rows, "latency_p99_us", 0.01, new PrintWriter(text)));
        return text.toString();
    }

    @Test
    void aShiftIsNamedByItsFirstRunWithTheMediansEitherSideAndMarkedOnThePlot() throws Exception {
        // 12 runs at 100-102 us, one without the figure, then 12 at 150-152: the shift's first run is the 13th of the
        // 24 that have the figure (the run without it is not counted), medians 101 and 151 (+49.5 %)
        Double[] p99 = new Double[25];
        for (int i = 0; i < 25; i++) {
            p99[i] = i == 5 ? null : (i <= 12 ? 100.0 : 150.0) + i % 3;
        }
        List<HistoryQuery.Row> rows = rows(p99);
        List<HistoryWriters.Shift> shifts = new ArrayList<>();
        assertEquals(String.join("\n",
                "change points of latency_p99_us (rank test over every split, p <= 0.01 by 499 shuffles):",
                "  from run 13 of 24 (2026-11-14T10:00:00Z, /results/run-14): median 101 -> 151 (+49.5 %), p = 0.002",
                ""), print(rows, shifts));
        HistoryWriters.gnuplot(rows, "latency_p99_us", shifts, tmp);
        String gp = Files.readString(tmp.resolve(HistoryWriters.GP));
        long at = Instant.parse("2026-11-14T10:00:00Z").getEpochSecond();
        assertTrue(gp.contains("set arrow from " + at + ".000, graph 0 to " + at + ".000, graph 1 nohead"), gp);
        assertTrue(gp.contains("set label '+49.5 %' at " + at + ".000, graph 0.95"), gp);
    }

    @Test
    void aFlatSeriesHasNoneAndTooFewRunsSayHowManyAreNeeded() {
        Double[] flat = new Double[30];
        for (int i = 0; i < flat.length; i++) {
            flat[i] = 100.0 + i % 4;
        }
        assertEquals("change points of latency_p99_us: none over 30 runs (rank test over every split, p <= 0.01 by 499 "
                + "shuffles)\n", print(rows(flat), new ArrayList<>()));
        assertEquals("change points of latency_p99_us: too few runs to tell (9 with the figure, 10 needed: 5 either "
                + "side of a shift)\n", print(rows(1.0, 2.0, 3.0, 4.0, null, 5.0, 6.0, 7.0, 8.0, 9.0), new ArrayList<>()));
    }
}
