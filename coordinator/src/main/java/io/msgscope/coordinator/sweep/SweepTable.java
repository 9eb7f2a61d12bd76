package io.msgscope.coordinator.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

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

/**
 * The tables of a sweep (M7): one row per point and repeat ({@code sweep.dat}), the spread between
 * repeats per point ({@code sweep-spread.dat}), {@code sweep.json} and two gnuplot scripts. Reads
 * only each point's {@code summary.json}; numbers are written with {@link Locale#ROOT}.
 */
public final class SweepTable {
    /** One measured point: the parameter value, the repeat (1-based) and the run's summary (null if none). */
    public record Point(double value, int repeat, String dir, int exitCode, JsonNode summary) {
    }

    /** A figure of a row: column name and where it comes from in summary.json. */
    private record Figure(String column, String description, java.util.function.ToDoubleFunction<JsonNode> get) {
    }

    private static final List<Figure> ROW = List.of(
            series("lat_mean_us", "latency mean", "latency_ns", "mean", 1e-3),
            series("lat_median_us", "latency median", "latency_ns", "median", 1e-3),
            series("lat_robust_dev_us", "latency robust deviation", "latency_ns", "robust_deviation", 1e-3),
            series("lat_p50_us", "latency p50", "latency_ns", "p50", 1e-3),
            series("lat_p95_us", "latency p95", "latency_ns", "p95", 1e-3),
            series("lat_p99_us", "latency p99", "latency_ns", "p99", 1e-3),
            series("lat_p999_us", "latency p99.9", "latency_ns", "p99_9", 1e-3),
            series("lat_min_us", "latency min", "latency_ns", "min", 1e-3),
            series("lat_max_us", "latency max", "latency_ns", "max", 1e-3),
            new Figure("recv_msg_s", "receive throughput [msg/s]", s -> num(s.path("throughput").path("receive_msg_s"))),
            new Figure("recv_bytes_s", "receive throughput [bytes/s]", s -> num(s.path("throughput").path("receive_bytes_s"))),
            series("st_median_msg_s", "ST median [msg/s]", "st_msg_s", "median", 1),
            series("rt_median_msg_s", "RT median [msg/s]", "rt_msg_s", "median", 1),
            new Figure("lost", "messages lost", s -> num(s.path("counters").path("messages_lost"))));

    /** The figures whose spread between repeats sweep-spread.dat shows (min, median, max each). */
    static final List<String> SPREAD = List.of("recv_msg_s", "recv_bytes_s", "lat_p50_us", "lat_p99_us",
            "lat_p999_us", "lat_max_us");

    private final SweepParameter.Kind kind;
    private final List<Point> points;

    public SweepTable(SweepParameter.Kind kind, List<Point> points) {
        this.kind = kind;
        this.points = List.copyOf(points);
    }

    private static Figure series(String column, String description, String series, String field, double scale) {
        return new Figure(column, description, s -> num(s.path("series").path(series).path(field)) * scale);
    }

    private static double num(JsonNode n) {
        return n.isNumber() ? n.asDouble() : Double.NaN;
    }

    /** The row figures of one point, in column order; NaN for a missing value or summary. */
    double[] row(Point p) {
        double[] r = new double[ROW.size()];
        for (int i = 0; i < r.length; i++) {
            r[i] = p.summary() == null ? Double.NaN : ROW.get(i).get().applyAsDouble(p.summary());
        }
        return r;
    }

    private static String status(Point p) {
        if (p.summary() == null) {
            return "missing";
        }
        return p.summary().path("status").asText("unknown");
    }

    /** sweep.dat. */
    public String sweepDat() {
        StringBuilder sb = new StringBuilder();
        sb.append("# msgscope sweep: one row per point and repeat; latency in µs from series.latency_ns\n");
        sb.append("# ").append(kind.column).append(" repeat status");
        for (Figure f : ROW) {
            sb.append(' ').append(f.column());
        }
        sb.append('\n');
        for (Point p : points) {
            sb.append(SweepParameter.format(p.value())).append(' ').append(p.repeat()).append(' ').append(status(p));
            for (double v : row(p)) {
                sb.append(' ').append(fmt(v));
            }
            sb.append('\n');
        }
        return sb.toString();
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

    private static int columnIndex(String column) {
        for (int i = 0; i < ROW.size(); i++) {
            if (ROW.get(i).column().equals(column)) {
                return i;
            }
        }
        throw new IllegalArgumentException(column);
    }

    /** sweep-spread.dat: per value the number of repeats and min/median/max of the main figures. */
    public String spreadDat() {
        StringBuilder sb = new StringBuilder();
        sb.append("# msgscope sweep: spread between repeats (min, median, max over the repeats of each point)\n");
        sb.append("# ").append(kind.column).append(" repeats");
        for (String c : SPREAD) {
            sb.append(' ').append(c).append("_min ").append(c).append("_median ").append(c).append("_max");
        }
        sb.append('\n');
        for (double v : values()) {
            long n = points.stream().filter(p -> p.value() == v).count();
            sb.append(SweepParameter.format(v)).append(' ').append(n);
            for (String c : SPREAD) {
                for (double d : spread(v, c)) {
                    sb.append(' ').append(fmt(d));
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The 1-based column of {@code <figure>_<min|median|max>} in sweep-spread.dat. */
    static int spreadColumn(String figure, int which) {
        return 3 + SPREAD.indexOf(figure) * 3 + which;
    }

    private String header(String title, String output) {
        return "# msgscope sweep: " + title + " (from sweep-spread.dat)\n"
                + "# Run from the sweep folder: gnuplot " + output.replace(".png", ".gp") + "\n"
                + "set encoding utf8\n"
                + "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
                + "    set terminal pngcairo size 1200,700 noenhanced font \"sans,10\"\n"
                + "} else {\n"
                + "    set terminal png size 1200,700 noenhanced\n"
                + "}\n"
                + "set output \"" + output + "\"\n"
                + "set datafile missing NaN\n"
                + "set grid\n"
                + "set key top left\n"
                + "set offsets graph 0.05, graph 0.05, 0, 0\n"
                + "set title \"" + title + "\"\n"
                + "set xlabel \"" + kind.axisLabel + "\"\n"
                + (kind.logAxis || logValues() ? "set logscale x 2\n" : "");
    }

    private boolean logValues() {
        List<Double> vs = values();
        double min = vs.stream().mapToDouble(Double::doubleValue).min().orElse(1);
        double max = vs.stream().mapToDouble(Double::doubleValue).max().orElse(1);
        return kind != SweepParameter.Kind.WINDOW && min > 0 && max / min >= 100;
    }

    /** sweep-throughput.gp: msg/s (left axis) and bytes/s (right axis) with the repeat spread as error bars. */
    public String throughputScript() {
        int m = spreadColumn("recv_msg_s", 0);
        int b = spreadColumn("recv_bytes_s", 0);
        return header("Receive throughput against " + kind.column, "sweep-throughput.png")
                + "set ylabel \"msg/s\"\n"
                + "set y2label \"bytes/s\"\n"
                + "set ytics nomirror\n"
                + "set y2tics\n"
                + "set yrange [0:*]\n"
                + "set y2range [0:*]\n"
                + "plot \"sweep-spread.dat\" using 1:" + (m + 1) + ":" + m + ":" + (m + 2)
                + " axes x1y1 with yerrorlines lw 2 pt 7 title \"msg/s (median, min-max of repeats)\", \\\n"
                + "     \"sweep-spread.dat\" using 1:" + (b + 1) + ":" + b + ":" + (b + 2)
                + " axes x1y2 with yerrorlines lw 2 pt 5 title \"bytes/s (median, min-max of repeats)\"\n";
    }

    /** sweep-latency.gp: latency p50, p99, p99.9 and max against the parameter, log y. */
    public String latencyScript() {
        StringBuilder sb = new StringBuilder(header("Latency percentiles against " + kind.column, "sweep-latency.png"));
        sb.append("set ylabel \"latency [µs]\"\n").append("set logscale y 10\n").append("plot ");
        String[][] lines = {{"lat_p50_us", "p50"}, {"lat_p99_us", "p99"}, {"lat_p999_us", "p99.9"}, {"lat_max_us", "max"}};
        for (int i = 0; i < lines.length; i++) {
            int c = spreadColumn(lines[i][0], 0);
            if (i > 0) {
                sb.append(", \\\n     ");
            }
            sb.append("\"sweep-spread.dat\" using 1:").append(c + 1).append(':').append(c).append(':').append(c + 2)
                    .append(" with yerrorlines lw 2 pt 7 title \"").append(lines[i][1])
                    .append(" (median, min-max of repeats)\"");
        }
        return sb.append('\n').toString();
    }

    /** sweep.json: every point with its row, the spread, and the given extra fields (timing, spec). */
    public String json(Map<String, Object> extra) throws IOException {
        ObjectMapper om = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = om.createObjectNode();
        root.put("parameter", kind.column);
        ArrayNode vals = root.putArray("values");
        values().forEach(vals::add);
        ArrayNode pts = root.putArray("points");
        for (Point p : points) {
            ObjectNode o = pts.addObject();
            o.put(kind.column, p.value());
            o.put("repeat", p.repeat());
            o.put("dir", p.dir());
            o.put("exit_code", p.exitCode());
            o.put("status", status(p));
            double[] r = row(p);
            for (int i = 0; i < r.length; i++) {
                putNum(o, ROW.get(i).column(), r[i]);
            }
        }
        ArrayNode sp = root.putArray("spread");
        for (double v : values()) {
            ObjectNode o = sp.addObject();
            o.put(kind.column, v);
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
            root.set(e.getKey(), om.valueToTree(e.getValue()));
        }
        return om.writeValueAsString(root) + "\n";
    }

    private static void putNum(ObjectNode o, String k, double v) {
        if (Double.isNaN(v)) {
            o.putNull(k);
        } else {
            o.put(k, v);
        }
    }

    /** Writes sweep.dat, sweep-spread.dat, sweep-throughput.gp and sweep-latency.gp into dir. */
    public List<Path> writeTables(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(write(dir.resolve("sweep.dat"), sweepDat()));
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
    static List<String> rowColumns() {
        return Arrays.asList(ROW.stream().map(Figure::column).toArray(String[]::new));
    }
}
