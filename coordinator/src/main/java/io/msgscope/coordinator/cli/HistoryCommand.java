package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.history.FigureCatalog;
import io.msgscope.coordinator.history.HistoryQuery;
import io.msgscope.coordinator.history.HistoryWriters;
import io.msgscope.coordinator.history.Recording;
import io.msgscope.coordinator.history.RunStore;
import io.msgscope.coordinator.history.StoreLocation;
import io.msgscope.core.SpecException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code msgscope history}: the stored runs, filtered, one figure over time, CSV and gnuplot (issue 34 item 2). */
@Command(name = "history", mixinStandardHelpOptions = true,
        description = "Lists the runs recorded in the store (oldest first), filtered; with --figure one figure over "
                + "time; --csv and --gnuplot export them. Exit codes: 0 listed (also none), 2 bad usage or a store "
                + "that does not answer.")
public final class HistoryCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    CommandSpec commandSpec;

    @Option(names = "--store", paramLabel = "FILE|URL",
            description = "The store to read: a SQLite file or postgresql://… Default: $MSGSCOPE_STORE, else "
                    + "~/.msgscope/history.db.")
    String store;

    @Option(names = "--driver", paramLabel = "NAME", description = "Only runs of this driver.")
    String driver;

    @Option(names = "--mode", paramLabel = "MODE", description = "Only runs of this mode: trace, throughput, "
            + "scenario or capacity.")
    String mode;

    @Option(names = "--status", paramLabel = "STATUS", description = "Only runs that ended so: ok, failed or interrupted.")
    String status;

    @Option(names = "--spec-hash", paramLabel = "HEX", description = "Only runs of this spec (its hash, or the first "
            + "characters of it).")
    String specHash;

    @Option(names = "--label", paramLabel = "KEY=VALUE", description = "Only runs with this label (repeatable: all must hold).")
    List<String> labels = new ArrayList<>();

    @Option(names = "--since", paramLabel = "DATE|INSTANT", description = "Only runs started at or after it "
            + "(2026-11-27 or 2026-11-27T10:00:00Z, UTC).")
    String since;

    @Option(names = "--until", paramLabel = "DATE|INSTANT", description = "Only runs started before it (a date: "
            + "before the end of that day).")
    String until;

    @Option(names = "--last", paramLabel = "N", defaultValue = "0", description = "Only the newest N of those (0: all; "
            + "default: ${DEFAULT-VALUE}).")
    int last;

    @Option(names = "--figure", paramLabel = "NAME", description = "Show this figure of each run (the runs without it "
            + "are left out), e.g. latency_p99_us, receive_msg_s, cpu_ns_per_message_sender; the names are in "
            + "docs/commands.md.")
    String figure;

    @Option(names = "--csv", paramLabel = "FILE", description = "Also write the runs as CSV: one row per run, one "
            + "column per figure (only --figure's when given).")
    Path csv;

    @Option(names = "--gnuplot", paramLabel = "DIR", description = "With --figure: write DIR/history.dat and "
            + "DIR/history.gp (gnuplot history.gp draws history.png: the figure against the start time).")
    Path gnuplot;

    @Option(names = "--change-points", paramLabel = "ALPHA", arity = "0..1", fallbackValue = "0.01",
            description = "With --figure: find where the figure shifted over the listed runs (a rank test over every "
                    + "split, significance by 499 shuffles; at most p = ALPHA, default 0.01), list them after the "
                    + "table and mark them on --gnuplot's plot (issue 34).")
    Double changePoints;

    @Override
    public Integer call() throws Exception {
        if (figure != null && !FigureCatalog.known(figure)) {
            throw new SpecException("--figure", "unknown figure '" + figure + "'; known: "
                    + String.join(", ", FigureCatalog.NAMES));
        }
        if (gnuplot != null && figure == null) {
            throw new SpecException("--gnuplot", "needs --figure: the figure to draw over time");
        }
        if (changePoints != null && figure == null) {
            throw new SpecException("--change-points", "needs --figure: the figure whose shifts to find");
        }
        if (changePoints != null && !(changePoints > 0 && changePoints < 1)) {
            throw new SpecException("--change-points", "the significance must be between 0 and 1 (exclusive), got "
                    + changePoints);
        }
        if (last < 0) {
            throw new SpecException("--last", "must be 0 (all) or more, got " + last);
        }
        Map<String, String> wanted = Recording.labels(labels, Map.of());
        HistoryQuery q = new HistoryQuery(driver, mode, status, specHash, wanted, instant("--since", since, false),
                instant("--until", until, true), last, figure);
        StoreLocation where = StoreLocation.resolve(store, System.getenv());
        if (!where.enabled()) {
            throw new SpecException("--store", "none records nothing: give the store to read");
        }
        List<HistoryQuery.Row> rows;
        RunStore db;
        try {
            db = RunStore.open(where);
        } catch (SQLException e) {
            throw new SpecException("--store", where + " does not answer (" + e.getMessage() + ")");
        }
        try (db) {
            rows = q.rows(db);
            PrintWriter out = commandSpec.commandLine().getOut();
            HistoryWriters.table(rows, figure, out);
            List<HistoryWriters.Shift> shifts = changePoints == null ? List.of()
                    : HistoryWriters.changePoints(rows, figure, changePoints, out);
            if (csv != null) {
                HistoryWriters.csv(rows, figure != null ? Map.of() : HistoryQuery.figures(db, rows), figure, csv);
                out.println("wrote " + csv);
            }
            if (gnuplot != null) {
                HistoryWriters.gnuplot(rows, figure, shifts, gnuplot);
                out.println("wrote " + gnuplot.resolve(HistoryWriters.GP) + " (gnuplot " + HistoryWriters.GP
                        + " in that folder draws history.png)");
            }
            out.flush();
        }
        return ExitCodes.OK;
    }

    /** A date (its start, or with {@code end} the next day's) or an instant, UTC; bad ones name the option. */
    static Long instant(String option, String value, boolean end) {
        if (value == null) {
            return null;
        }
        try {
            if (value.length() == 10) {
                LocalDate d = LocalDate.parse(value);
                return (end ? d.plusDays(1) : d).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
            }
            return Instant.parse(value).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new SpecException(option, "expected a date (2026-11-27) or an instant (2026-11-27T10:00:00Z), got '"
                    + value + "'");
        }
    }
}
