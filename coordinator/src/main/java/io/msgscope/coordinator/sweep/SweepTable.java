package io.msgscope.coordinator.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.msgscope.coordinator.view.SummaryView;
import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.coordinator.results.Unfinished;

import io.msgscope.analysis.output.GnuplotScripts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The tables of a sweep (M7): one row per point and repeat ({@code sweep.dat}), the spread between
 * repeats per point ({@code sweep-spread.dat}), {@code sweep.json} and two gnuplot scripts. Reads
 * only each point's {@code summary.json}, of a trace run or a throughput run ({@link SummaryView});
 * numbers are written with {@link Locale#ROOT}. Non-numeric option values are categories on the x axis.
 */
public final class SweepTable {
    /**
     * One measured point: the parameter's x position and label, the repeat (1-based), the folder, the
     * exit code and the run's summary (null if none).
     */
    public record Point(double value, String label, int repeat, String dir, int exitCode, JsonNode summary) {
        /** A point whose label is its number. */
        public Point(double value, int repeat, String dir, int exitCode, JsonNode summary) {
            this(value, SweepParameter.format(value), repeat, dir, exitCode, summary);
        }
    }

    /** A figure of a row: column name and where it comes from in any mode's summary.json. */
    private record Figure(String column, String description, ToDoubleFunction<SummaryView> get) {
    }

    private static final List<Figure> COMMON = List.of(
            latency("lat_mean_us", "latency mean", "mean"),
            latency("lat_median_us", "latency median", "median"),
            latency("lat_robust_dev_us", "latency robust deviation", "robust_deviation"),
            latency("lat_p50_us", "latency p50", "p50"),
            latency("lat_p95_us", "latency p95", "p95"),
            latency("lat_p99_us", "latency p99", "p99"),
            latency("lat_p999_us", "latency p99.9", "p999"),
            latency("lat_min_us", "latency min", "min"),
            latency("lat_max_us", "latency max", "max"),
            new Figure("recv_msg_s", "receive throughput [msg/s]", SummaryView::msgPerS),
            new Figure("recv_bytes_s", "receive throughput [bytes/s]", SummaryView::bytesPerS),
            new Figure("st_median_msg_s", "ST median [msg/s]", SummaryView::stMedian),
            new Figure("rt_median_msg_s", "RT median [msg/s]", SummaryView::rtMedian),
            new Figure("lost", "messages lost", SummaryView::lost));

    /** Throughput mode adds the samples' mean and deviation and the client's CPU per message (A7). */
    private static final List<Figure> THROUGHPUT = List.of(
            new Figure("tp_window_median_msg_s", "median of the throughput windows [msg/s]",
                    SummaryView::windowMedianMsgPerS),
            new Figure("tp_mean_msg_s", "mean of the throughput samples [msg/s]", SummaryView::sampleMeanMsgPerS),
            new Figure("tp_sd_msg_s", "standard deviation of the throughput samples [msg/s]",
                    SummaryView::sampleSdMsgPerS),
            new Figure("client_cpu_ns_per_msg", "client CPU per message [ns]", SummaryView::clientCpuNsPerMessage));

    /** The figures whose spread between repeats sweep-spread.dat shows (min, median, max each). */
    static final List<String> SPREAD = List.of("recv_msg_s", "recv_bytes_s", "lat_p50_us", "lat_p99_us",
            "lat_p999_us", "lat_max_us");

    private final SweepParameter param;
    private final List<Point> points;
    private final List<Figure> row;
    private final boolean throughputMode;

    /** A table of trace runs ({@code msgscope run}). */
    public SweepTable(SweepParameter.Kind kind, List<Point> points) {
        this(SweepParameter.of(kind, distinct(points)), false, points);
    }

    /** A table over {@code param}; {@code throughputMode} for points written by {@code msgscope throughput}. */
    public SweepTable(SweepParameter param, boolean throughputMode, List<Point> points) {
        this.param = param;
        this.points = List.copyOf(points);
        this.throughputMode = throughputMode;
        List<Figure> r = new ArrayList<>(COMMON);
        if (throughputMode) {
            r.addAll(THROUGHPUT);
        }
        this.row = List.copyOf(r);
    }

    private static List<Double> distinct(List<Point> points) {
        List<Double> vs = new ArrayList<>();
        points.forEach(p -> {
            if (!vs.contains(p.value())) {
                vs.add(p.value());
            }
        });
        return vs;
    }

    private static Figure latency(String column, String description, String field) {
        return new Figure(column, description, v -> v.latencyUs(field));
    }

    /** The row figures of one point, in column order; NaN for a missing value or summary. */
    double[] row(Point p) {
        double[] r = new double[row.size()];
        SummaryView v = p.summary() == null ? null : new SummaryView(p.summary());
        for (int i = 0; i < r.length; i++) {
            r[i] = v == null ? Double.NaN : row.get(i).get().applyAsDouble(v);
        }
        return r;
    }

    private static String status(Point p) {
        return p.summary() == null ? "missing" : new SummaryView(p.summary()).status();
    }

    /** sweep.dat. */
    public String sweepDat() {
        StringBuilder sb = new StringBuilder();
        sb.append("# msgscope sweep").append(throughputMode ? " (throughput mode)" : "")
                .append(": one row per point and repeat; latency in µs\n");
        sb.append("# ").append(param.column()).append(" repeat status");
        for (Figure f : row) {
            sb.append(' ').append(f.column());
        }
        sb.append('\n');
        for (Point p : points) {
            sb.append(p.label()).append(' ').append(p.repeat()).append(' ').append(status(p));
            for (double v : row(p)) {
                sb.append(' ').append(fmt(v));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /**
     * sweep.csv (issue 29): sweep.dat's table as RFC 4180 CSV for a spreadsheet: the same header and rows,
     * comma-separated, an unknown figure an empty cell (not NaN), a text cell quoted when it holds a comma or quote.
     */
    public String sweepCsv() {
        StringBuilder sb = new StringBuilder();
        sb.append(csvCell(param.column())).append(",repeat,status");
        for (Figure f : row) {
            sb.append(',').append(f.column());
        }
        sb.append("\r\n");
        for (Point p : points) {
            sb.append(csvCell(p.label())).append(',').append(p.repeat()).append(',').append(status(p));
            for (double v : row(p)) {
                sb.append(',').append(Double.isNaN(v) ? "" : fmt(v));
            }
            sb.append("\r\n");
        }
        return sb.toString();
    }

    private static String csvCell(String s) {
        return s.contains(",") || s.contains("\"") || s.contains("\n") ? '"' + s.replace("\"", "\"\"") + '"' : s;
    }

    /** The distinct parameter values in first-seen order. */
    List<Double> values() {
        List<Double> vs = new ArrayList<>();
        for (Point p : points) {
            if (!vs.contains(p.value())) {
                vs.add(p.value());
            }
        }
        return vs;
    }

    /** min, median, max of one figure over the repeats of one value (NaN ignored; all NaN when none). */
    double[] spread(double value, String column) {
        int col = columnIndex(column);
        double[] xs = points.stream().filter(p -> p.value() == value).mapToDouble(p -> row(p)[col])
                .filter(d -> !Double.isNaN(d)).sorted().toArray();
        if (xs.length == 0) {
            return new double[] {Double.NaN, Double.NaN, Double.NaN};
        }
        int n = xs.length;
        double med = n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
        return new double[] {xs[0], med, xs[n - 1]};
    }

    private int columnIndex(String column) {
        for (int i = 0; i < row.size(); i++) {
            if (row.get(i).column().equals(column)) {
                return i;
            }
        }
        throw new IllegalArgumentException(column);
    }

    /** sweep-spread.dat: per value the number of repeats and min/median/max of the main figures. */
    public String spreadDat() {
        StringBuilder sb = new StringBuilder();
        sb.append("# msgscope sweep: spread between repeats (min, median, max over the repeats of each point)\n");
        sb.append("# ").append(param.column()).append(" repeats");
        for (String c : SPREAD) {
            sb.append(' ').append(c).append("_min ").append(c).append("_median ").append(c).append("_max");
        }
        sb.append('\n');
        for (double v : values()) {
            long n = points.stream().filter(p -> p.value() == v).count();
            sb.append(label(v)).append(' ').append(n);
            for (String c : SPREAD) {
                for (double d : spread(v, c)) {
                    sb.append(' ').append(fmt(d));
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The label of the value at x position v. */
    String label(double v) {
        return points.stream().filter(p -> p.value() == v).map(Point::label).findFirst().orElse(SweepParameter.format(v));
    }

    /** gnuplot's x: column 1, or for non-numeric option values the row number with the label as tic. */
    private String x() {
        return param.numeric() ? "1" : "0";
    }

    private String xtic() {
        return param.numeric() ? "" : ":xtic(1)";
    }

    /** The 1-based column of {@code <figure>_<min|median|max>} in sweep-spread.dat. */
    static int spreadColumn(String figure, int which) {
        return 3 + SPREAD.indexOf(figure) * 3 + which;
    }

    private String header(String title, String output) {
        return "# msgscope sweep: " + title + " (from sweep-spread.dat)\n"
                + "# Run from the sweep folder: gnuplot " + output.replace(".png", ".gp") + "\n"
                + GnuplotScripts.TERMINAL
                + "set output \"" + output + "\"\n"
                + "set datafile missing NaN\n"
                + "set grid\n"
                + "set key top left\n"
                + "set offsets graph 0.05, graph 0.05, 0, 0\n"
                + "set title \"" + title + "\"\n"
                + "set xlabel \"" + param.axisLabel() + "\"\n"
                + (param.logAxis() ? "set logscale x " + (param.kind() == SweepParameter.Kind.SIZE
                || param.kind() == SweepParameter.Kind.BATCH ? "2" : "10") + "\n" : "");
    }

    /** sweep-throughput.gp: msg/s (left axis) and bytes/s (right axis) with the repeat spread as error bars. */
    public String throughputScript() {
        int m = spreadColumn("recv_msg_s", 0);
        int b = spreadColumn("recv_bytes_s", 0);
        return header((throughputMode ? "Median throughput (A7)" : "Receive throughput") + " against " + param.column(),
                "sweep-throughput.png")
                + "set ylabel \"msg/s\"\n"
                + "set y2label \"bytes/s\"\n"
                + "set ytics nomirror\n"
                + "set y2tics\n"
                + "set yrange [0:*]\n"
                + "set y2range [0:*]\n"
                + "plot \"sweep-spread.dat\" using " + x() + ":" + (m + 1) + ":" + m + ":" + (m + 2) + xtic()
                + " axes x1y1 with yerrorlines lw 2 pt 7 title \"msg/s (median, min-max of repeats)\", \\\n"
                + "     \"sweep-spread.dat\" using " + x() + ":" + (b + 1) + ":" + b + ":" + (b + 2) + xtic()
                + " axes x1y2 with yerrorlines lw 2 pt 5 title \"bytes/s (median, min-max of repeats)\"\n";
    }

    /** sweep-latency.gp: latency p50, p99, p99.9 and max against the parameter, log y. */
    public String latencyScript() {
        StringBuilder sb = new StringBuilder(header("Latency percentiles against " + param.column(), "sweep-latency.png"));
        sb.append("set ylabel \"latency [µs]\"\n").append("set logscale y 10\n").append("plot ");
        String[][] lines = {{"lat_p50_us", "p50"}, {"lat_p99_us", "p99"}, {"lat_p999_us", "p99.9"}, {"lat_max_us", "max"}};
        for (int i = 0; i < lines.length; i++) {
            int c = spreadColumn(lines[i][0], 0);
            if (i > 0) {
                sb.append(", \\\n     ");
            }
            sb.append("\"sweep-spread.dat\" using ").append(x()).append(':').append(c + 1).append(':').append(c)
                    .append(':').append(c + 2).append(xtic()).append(" with yerrorlines lw 2 pt 7 title \"").append(lines[i][1])
                    .append(" (median, min-max of repeats)\"");
        }
        return sb.append('\n').toString();
    }

    /** sweep.json: every point with its row, the spread, and the given extra fields (timing, spec). */
    public String json(Map<String, Object> extra) throws IOException {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("parameter", param.column());
        root.put("sweep_option", param.kind().sweepOption);
        root.put("mode", throughputMode ? "throughput" : "run");
        ArrayNode vals = root.putArray("values");
        values().forEach(v -> {
            if (param.numeric()) {
                vals.add(v);
            } else {
                vals.add(label(v));
            }
        });
        ArrayNode pts = root.putArray("points");
        for (Point p : points) {
            ObjectNode o = pts.addObject();
            putValue(o, p.value());
            o.put("repeat", p.repeat());
            o.put("dir", p.dir());
            o.put("exit_code", p.exitCode());
            o.put("status", status(p));
            double[] r = row(p);
            for (int i = 0; i < r.length; i++) {
                putNum(o, row.get(i).column(), r[i]);
            }
        }
        ArrayNode sp = root.putArray("spread");
        for (double v : values()) {
            ObjectNode o = sp.addObject();
            putValue(o, v);
            o.put("repeats", points.stream().filter(p -> p.value() == v).count());
            for (String c : SPREAD) {
                double[] s = spread(v, c);
                ObjectNode f = o.putObject(c);
                putNum(f, "min", s[0]);
                putNum(f, "median", s[1]);
                putNum(f, "max", s[2]);
            }
        }
        Map<String, Object> ordered = new LinkedHashMap<>(extra);
        for (Map.Entry<String, Object> e : ordered.entrySet()) {
            root.set(e.getKey(), Json.MAPPER.valueToTree(e.getValue()));
        }
        return Json.text(root);
    }

    /** sweep.json into dir: the points, how the sweep ended (how far, if a signal stopped it), its runs' arguments, timing. */
    public Path writeJson(Path dir, boolean failed, Unfinished stopped, int repeat, String driver, List<String> runArgs,
                          SweepTiming timing) throws IOException {
        Map<String, Object> extra = new LinkedHashMap<>();
        Unfinished.putStatus(extra, stopped, failed);
        extra.put("repeat", repeat);
        extra.put("driver", driver);
        extra.put("run_args", runArgs);
        extra.put("timing", timing.toMap());
        return write(dir.resolve(ResultFiles.SWEEP), json(extra));
    }

    private void putValue(ObjectNode o, double v) {
        if (param.numeric()) {
            o.put(param.column(), v);
        } else {
            o.put(param.column(), label(v));
        }
    }

    private static void putNum(ObjectNode o, String k, double v) {
        o.set(k, Double.isNaN(v) ? o.nullNode() : o.numberNode(v));
    }

    /** Writes sweep.dat, sweep.csv, sweep-spread.dat, sweep-throughput.gp and sweep-latency.gp into dir. */
    public List<Path> writeTables(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(write(dir.resolve(ResultFiles.SWEEP_DAT), sweepDat()));
        files.add(write(dir.resolve(ResultFiles.SWEEP_CSV), sweepCsv()));
        files.add(write(dir.resolve("sweep-spread.dat"), spreadDat()));
        files.add(write(dir.resolve("sweep-throughput.gp"), throughputScript()));
        files.add(write(dir.resolve("sweep-latency.gp"), latencyScript()));
        return files;
    }

    static Path write(Path p, String text) throws IOException {
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return p;
    }

    /** Locale-independent number: 3 decimals, NaN as "NaN". */
    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** Column names of sweep.dat after param, repeat, status (for tests and the report). */
    List<String> rowColumns() {
        return Arrays.asList(row.stream().map(Figure::column).toArray(String[]::new));
    }
}
