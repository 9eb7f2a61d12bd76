package io.msgscope.coordinator.history;

import io.msgscope.analysis.stats.ChangePoints;

import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What {@code msgscope history} writes (issue 34 item 2): the table on the console (one run a line, oldest first, a
 * figure to 6 significant digits, unknown as {@code unknown}), the CSV export (every figure in full precision, an
 * unknown or absent figure an empty cell) and the figure over time for gnuplot ({@code history.dat} and
 * {@code history.gp}, which draws {@code history.png}), and the figure's change points ({@code --change-points}).
 */
public final class HistoryWriters {
    /** The file names the gnuplot export writes. */
    public static final String DAT = "history.dat";
    public static final String GP = "history.gp";

    private HistoryWriters() {
    }

    /** The console table; {@code figure} names the figure column, or null for none. */
    public static void table(List<HistoryQuery.Row> rows, String figure, PrintWriter out) {
        List<String[]> lines = new ArrayList<>();
        List<String> head = new ArrayList<>(List.of("started_at", "mode", "driver", "status", "spec_hash"));
        if (figure != null) {
            head.add(figure);
        }
        head.addAll(List.of("labels", "folder"));
        lines.add(head.toArray(String[]::new));
        for (HistoryQuery.Row r : rows) {
            List<String> l = new ArrayList<>(List.of(dash(r.startedAt()), dash(r.mode()), dash(r.driver()),
                    dash(r.status()), r.specHash() == null ? "-" : r.specHash().substring(0, Math.min(12, r.specHash().length()))));
            if (figure != null) {
                l.add(r.figure() == null ? "unknown" : people(r.figure()));
            }
            l.add(labels(r.labels()).isEmpty() ? "-" : labels(r.labels()));
            l.add(dash(r.folder()));
            lines.add(l.toArray(String[]::new));
        }
        int[] width = new int[head.size()];
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                width[i] = Math.max(width[i], l[i].length());
            }
        }
        for (String[] l : lines) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < l.length; i++) {
                b.append(i == 0 ? "" : "  ").append(i == l.length - 1 ? l[i] : pad(l[i], width[i]));
            }
            out.println(b.toString().stripTrailing());
        }
        out.println(rows.size() + (rows.size() == 1 ? " run" : " runs"));
        out.flush();
    }

    /** A change point of the figure over the runs: the first run of the new level, and what the test said. */
    public record Shift(HistoryQuery.Row firstRun, ChangePoints.ChangePoint point) {
    }

    /**
     * Finds where {@code figure} shifted over the runs that have it (issue 34 item 5, {@link ChangePoints} at
     * significance {@code alpha}) and prints one line per change point after the table, or why there is none.
     */
    public static List<Shift> changePoints(List<HistoryQuery.Row> rows, String figure, double alpha, PrintWriter out) {
        List<HistoryQuery.Row> known = rows.stream().filter(r -> r.figure() != null).toList();
        if (known.size() < 2 * ChangePoints.MIN_SIZE) {
            out.println("change points of " + figure + ": too few runs to tell (" + known.size() + " with the figure, "
                    + 2 * ChangePoints.MIN_SIZE + " needed: " + ChangePoints.MIN_SIZE + " either side of a shift)");
            out.flush();
            return List.of();
        }
        double[] values = known.stream().mapToDouble(HistoryQuery.Row::figure).toArray();
        List<Shift> shifts = ChangePoints.find(values, alpha).stream()
                .map(c -> new Shift(known.get(c.index()), c)).toList();
        String test = " (rank test over every split, p <= " + people(alpha) + " by " + ChangePoints.DEFAULT_PERMUTATIONS
                + " shuffles)";
        if (shifts.isEmpty()) {
            out.println("change points of " + figure + ": none over " + known.size() + " runs" + test);
        } else {
            out.println("change points of " + figure + test + ":");
            for (Shift s : shifts) {
                ChangePoints.ChangePoint c = s.point();
                double change = c.relativeChange();
                out.println("  from run " + (c.index() + 1) + " of " + known.size() + " (" + dash(s.firstRun().startedAt())
                        + ", " + dash(s.firstRun().folder()) + "): median " + people(c.medianBefore()) + " -> "
                        + people(c.medianAfter()) + (Double.isNaN(change) ? ""
                        : String.format(Locale.ROOT, " (%+.1f %%)", 100 * change))
                        + ", p = " + people(c.p()));
            }
        }
        out.flush();
        return shifts;
    }

    /** A figure for people: 6 significant digits, no exponent, no trailing zeros. */
    static String people(double v) {
        return new BigDecimal(v).round(new MathContext(6)).stripTrailingZeros().toPlainString();
    }

    /** {@code name=value} pairs joined by {@code ;}, names sorted. */
    static String labels(Map<String, String> labels) {
        return labels.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(";"));
    }

    /**
     * The CSV export: the run's columns, its labels, then one column per figure — {@code figure} alone when given,
     * else every figure any listed run has, in the catalog's order. Fields with a comma, quote or line break quoted.
     */
    public static void csv(List<HistoryQuery.Row> rows, Map<String, Map<String, Double>> figures, String figure,
                           Path file) throws IOException {
        Set<String> names = new LinkedHashSet<>();
        if (figure != null) {
            names.add(figure);
        } else {
            FigureCatalog.NAMES.stream().filter(n -> figures.values().stream().anyMatch(m -> m.containsKey(n)))
                    .forEach(names::add);
        }
        StringBuilder b = new StringBuilder();
        List<String> head = new ArrayList<>(List.of("run_key", "started_at", "mode", "driver", "status", "spec_hash",
                "tool_version", "host", "run_id", "folder", "labels"));
        head.addAll(names);
        b.append(String.join(",", head)).append('\n');
        for (HistoryQuery.Row r : rows) {
            List<String> l = new ArrayList<>(List.of(cell(r.key()), cell(r.startedAt()), cell(r.mode()),
                    cell(r.driver()), cell(r.status()), cell(r.specHash()), cell(r.toolVersion()), cell(r.host()),
                    cell(r.runId()), cell(r.folder()), cell(labels(r.labels()))));
            Map<String, Double> f = figures.getOrDefault(r.key(), Map.of());
            for (String n : names) {
                Double v = figure != null ? r.figure() : f.get(n);
                l.add(v == null ? "" : Double.toString(v));
            }
            b.append(String.join(",", l)).append('\n');
        }
        write(file, b.toString());
    }

    private static String cell(String v) {
        if (v == null) {
            return "";
        }
        return v.contains(",") || v.contains("\"") || v.contains("\n") ? "\"" + v.replace("\"", "\"\"") + "\"" : v;
    }

    /**
     * {@code dir/history.dat} (one row per run: {@code index epoch_s value}, NaN unknown, its folder after a
     * {@code #}) and {@code dir/history.gp}, which draws the figure against the start time as {@code history.png}.
     */
    public static void gnuplot(List<HistoryQuery.Row> rows, String figure, List<Shift> shifts, Path dir)
            throws IOException {
        Files.createDirectories(dir);
        StringBuilder d = new StringBuilder("# msgscope history: " + figure + " over time, one row per run\n"
                + "# index epoch_s " + figure + "  # folder\n");
        int i = 0;
        for (HistoryQuery.Row r : rows) {
            d.append(i++).append(' ').append(String.format(Locale.ROOT, "%.3f", r.startedMs() / 1e3)).append(' ')
                    .append(r.figure() == null ? "NaN" : Double.toString(r.figure())).append("  # ")
                    .append(r.folder()).append('\n');
        }
        write(dir.resolve(DAT), d.toString());
        write(dir.resolve(GP), String.join("\n",
                "# msgscope history: " + figure + " over time (gnuplot " + GP + ")",
                "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) { set terminal pngcairo size 1000,500 noenhanced } "
                        + "else { set terminal png size 1000,500 noenhanced }",
                "set output 'history.png'",
                "set title '" + figure + " over time (" + rows.size() + " runs)'",
                "set xdata time",
                "set timefmt '%s'",
                "set format x \"%Y-%m-%d\\n%H:%M\"", // double quotes: gnuplot reads \\n as a line break
                "set xlabel 'run started (UTC)'",
                "set ylabel '" + figure + "'",
                "set grid",
                "set key off",
                shiftMarks(shifts),
                "plot '" + DAT + "' using 2:3 with linespoints pt 7 ps 0.8",
                ""));
    }

    /** A dashed vertical line at each change point's first run, labelled with the shift. */
    static String shiftMarks(List<Shift> shifts) {
        StringBuilder b = new StringBuilder("# change points (msgscope history --change-points): " + shifts.size());
        for (Shift s : shifts) {
            String at = String.format(Locale.ROOT, "%.3f", s.firstRun().startedMs() / 1e3);
            double change = s.point().relativeChange();
            b.append("\nset arrow from ").append(at).append(", graph 0 to ").append(at)
                    .append(", graph 1 nohead dashtype 2 linecolor rgb 'red'")
                    .append("\nset label '").append(Double.isNaN(change) ? "shift"
                            : String.format(Locale.ROOT, "%+.1f %%", 100 * change))
                    .append("' at ").append(at).append(", graph 0.95 offset 0.5,0 textcolor rgb 'red'");
        }
        return b.toString();
    }

    private static void write(Path file, String text) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    private static String dash(String s) {
        return s == null ? "-" : s;
    }

    private static String pad(String s, int w) {
        return s.length() >= w ? s : s + " ".repeat(w - s.length());
    }
}
