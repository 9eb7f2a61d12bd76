package io.msgscope.coordinator.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.core.SpecException;

import io.msgscope.analysis.output.GnuplotScripts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Sweeps side by side (M7, M11: how a parameter changes the figures of two systems): for every value
 * of the shared parameter, each sweep's medians over its repeats (msg/s, latency p50 and p99, from
 * {@code sweep.json}'s spread), as a Markdown table, {@code compare.dat} and {@code compare.gp}
 * (throughput and latency against the parameter, one curve per sweep). The sweeps must vary the same
 * parameter in the same mode.
 */
public final class SweepComparison {
    /** One sweep: its label (folder name) and sweep.json. */
    public record Sweep(String label, JsonNode json) {
    }

    private static final String[][] FIGURES = {{"recv_msg_s", "msg/s"}, {"lat_p50_us", "p50 [µs]"},
            {"lat_p99_us", "p99 [µs]"}};

    private final List<Sweep> sweeps;
    private final String parameter;
    private final boolean numeric;
    private final List<String> values;

    private SweepComparison(List<Sweep> sweeps) {
        this.sweeps = List.copyOf(sweeps);
        this.parameter = sweeps.get(0).json().path("parameter").asText("value");
        boolean num = true;
        List<String> vs = new ArrayList<>();
        for (Sweep s : sweeps) {
            for (JsonNode v : s.json().path("values")) {
                num &= v.isNumber();
                String t = label(v);
                if (!vs.contains(t)) {
                    vs.add(t);
                }
            }
        }
        if (num) {
            vs.sort((a, b) -> Double.compare(Double.parseDouble(a), Double.parseDouble(b)));
        }
        this.numeric = num;
        this.values = List.copyOf(vs);
    }

    private static String label(JsonNode v) {
        if (v.isNumber()) {
            double d = v.asDouble();
            return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
        }
        return v.asText();
    }

    /**
     * Reads DIR/sweep.json of each folder; refuses sweeps over different parameters or modes (one line
     * naming the field and each sweep's value; --force cannot help: they share no x axis).
     */
    public static SweepComparison load(List<Path> dirs) throws IOException {
        ObjectMapper om = new ObjectMapper();
        List<Sweep> sweeps = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (Path d : dirs) {
            sweeps.add(new Sweep(Comparison.unique(d, seen), om.readTree(d.resolve("sweep.json").toFile())));
        }
        for (String field : List.of("parameter", "mode")) {
            String first = sweeps.get(0).json().path(field).asText("run");
            if (sweeps.stream().anyMatch(s -> !s.json().path(field).asText("run").equals(first))) {
                StringBuilder sb = new StringBuilder();
                for (Sweep s : sweeps) {
                    sb.append(sb.length() > 0 ? " " : "").append(s.label()).append('=')
                            .append(s.json().path(field).asText("run"));
                }
                throw new SpecException(field, "differs between the sweeps (" + sb
                        + "); only sweeps over the same parameter in the same mode share an x axis");
            }
        }
        return new SweepComparison(sweeps);
    }

    /** The median over the repeats of one figure of one sweep at one value, NaN when absent. */
    double median(Sweep s, String value, String figure) {
        for (JsonNode p : s.json().path("spread")) {
            if (label(p.path(parameter)).equals(value)) {
                JsonNode m = p.path(figure).path("median");
                return m.isNumber() ? m.asDouble() : Double.NaN;
            }
        }
        return Double.NaN;
    }

    private static String fmt(double v, String f) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, f, v);
    }

    /** The Markdown table: one row per value, per sweep its medians of msg/s, p50 and p99. */
    public String markdown() {
        StringBuilder sb = new StringBuilder("| ").append(parameter).append(" |");
        for (Sweep s : sweeps) {
            for (String[] f : FIGURES) {
                sb.append(' ').append(s.label().replace("|", "\\|")).append(' ').append(f[1]).append(" |");
            }
        }
        sb.append("\n|---:|").append("---:|".repeat(sweeps.size() * FIGURES.length)).append('\n');
        for (String v : values) {
            sb.append("| ").append(v).append(" |");
            for (Sweep s : sweeps) {
                for (String[] f : FIGURES) {
                    sb.append(' ').append(fmt(median(s, v, f[0]), f[0].equals("recv_msg_s") ? "%.0f" : "%.1f"))
                            .append(" |");
                }
            }
            sb.append('\n');
        }
        return sb.append("\n(medians over each sweep's repeats; – = value not in that sweep or no data)\n").toString();
    }

    /** compare.dat: value, then per sweep msg/s, p50, p99 (medians over repeats); NaN when absent. */
    public String dat() {
        StringBuilder sb = new StringBuilder("# msgscope compare (sweeps): medians over repeats\n# ").append(parameter);
        for (Sweep s : sweeps) {
            for (String[] f : FIGURES) {
                sb.append(' ').append(s.label().replace(' ', '_')).append(':').append(f[0]);
            }
        }
        sb.append('\n');
        for (String v : values) {
            sb.append(v);
            for (Sweep s : sweeps) {
                for (String[] f : FIGURES) {
                    double d = median(s, v, f[0]);
                    sb.append(' ').append(Double.isNaN(d) ? "NaN" : String.format(Locale.ROOT, "%.3f", d));
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private boolean logAxis() {
        if (!numeric || values.size() < 2) {
            return false;
        }
        double min = Double.parseDouble(values.get(0));
        double max = Double.parseDouble(values.get(values.size() - 1));
        return min > 0 && max / min >= 100;
    }

    /**
     * A log axis fitted to the data (issue 29: gnuplot's log autoscale widened a sweep of 64 B to 1 KiB to whole empty
     * decades), a quarter beyond the extremes: the parameter values for x ({@code figure} -1), else the figure's
     * medians over every sweep; nothing (autoscale) when no value is positive.
     */
    private String fittedRange(String axis, int figure) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (String v : values) {
            if (figure < 0) {
                double d = Double.parseDouble(v);
                lo = Math.min(lo, d);
                hi = Math.max(hi, d);
                continue;
            }
            for (Sweep sw : sweeps) {
                double d = median(sw, v, FIGURES[figure][0]);
                if (d > 0) {
                    lo = Math.min(lo, d);
                    hi = Math.max(hi, d);
                }
            }
        }
        if (!(lo > 0) || !(hi >= lo)) {
            return "set autoscale " + axis + "\n";
        }
        return "set " + axis + "range [" + sixFigures(lo / 1.25) + ":" + sixFigures(hi * 1.25) + "]\n";
    }

    private static String sixFigures(double v) {
        return new java.math.BigDecimal(v).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
    }

    private String plot(String output, String title, String ylabel, int figure, boolean logY) {
        StringBuilder sb = new StringBuilder("set output \"" + output + "\"\n")
                .append("set title \"").append(title).append("\"\n")
                .append("set ylabel \"").append(ylabel).append("\"\n")
                .append(logY ? "set logscale y 10\n" + fittedRange("y", figure) : "unset logscale y\nset yrange [0:*]\n")
                .append("plot ");
        String x = numeric ? "1" : "0";
        String tic = numeric ? "" : ":xtic(1)";
        for (int i = 0; i < sweeps.size(); i++) {
            int col = 2 + i * FIGURES.length + figure;
            if (i > 0) {
                sb.append(", \\\n     ");
            }
            sb.append("\"compare.dat\" using ").append(x).append(':').append(col).append(tic)
                    .append(" with linespoints lw 2 pt 7 title \"")
                    .append(sweeps.get(i).label().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return sb.append('\n').toString();
    }

    /** compare.gp: compare.png (msg/s) and compare-latency.png (p99) against the parameter. */
    public String script() {
        return "# msgscope compare (sweeps): one curve per sweep, medians over repeats (from compare.dat)\n"
                + "# Run from the compare folder: gnuplot compare.gp\n"
                + GnuplotScripts.TERMINAL
                + "set datafile missing NaN\n"
                + "set grid\n"
                + "set key top left\n"
                + (logAxis() ? "" : "set offsets graph 0.05, graph 0.05, 0, 0\n")
                + "set xlabel \"" + parameter + "\"\n"
                + (logAxis() ? "set logscale x 10\n" + fittedRange("x", -1) : "")
                + plot("compare.png", "Receive throughput against " + parameter, "msg/s", 0, false)
                + plot("compare-latency.png", "Latency p99 against " + parameter, "latency p99 [µs]", 2, true);
    }

    /** Writes compare.md, compare.dat and compare.gp into dir. */
    public List<Path> write(Path dir) throws IOException {
        return Comparison.writeFiles(dir, markdown(), dat(), script());
    }
}
