package io.msgscope.coordinator.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/** Runs side by side (issue 7, comparison): one table, overlaid latency percentiles. */
public final class Comparison {
    /** One run: its label (folder name) and summary.json. */
    public record Run(String label, JsonNode summary) {
    }

    private record Row(String name, Function<JsonNode, String> value) {
    }

    /** The spec fields whose difference makes a comparison meaningless. */
    public static final List<String> MUST_MATCH = List.of("size", "count", "rate");

    private static final String[][] PERCENTILES = {{"p50", "p50"}, {"p90", "p90"}, {"p95", "p95"}, {"p99", "p99"},
            {"p99.9", "p99_9"}, {"p99.99", "p99_99"}, {"max", "max"}};

    private final List<Run> runs;

    public Comparison(List<Run> runs) {
        this.runs = List.copyOf(runs);
    }

    /** Reads DIR/summary.json of each folder; labels are the folder names, made unique. */
    public static Comparison load(List<Path> dirs) throws IOException {
        ObjectMapper om = new ObjectMapper();
        List<Run> runs = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (Path d : dirs) {
            Path f = d.resolve("summary.json");
            if (!Files.isRegularFile(f)) {
                throw new IllegalArgumentException(d + " holds no summary.json (not a run folder)");
            }
            String label = d.toAbsolutePath().normalize().getFileName().toString();
            String unique = label;
            for (int i = 2; seen.contains(unique); i++) {
                unique = label + "#" + i;
            }
            seen.add(unique);
            runs.add(new Run(unique, om.readTree(f.toFile())));
        }
        return new Comparison(runs);
    }

    public List<Run> runs() {
        return runs;
    }

    /** A spec field whose values differ, with each run's value ("a=64 b=256"). */
    public record Mismatch(String field, String values) {
        /** The one-line refusal. */
        public String message() {
            return field + " differs between the runs (" + values + "); use --force to compare anyway";
        }
    }

    /** The first spec field among size, count, rate whose values differ. */
    public Optional<Mismatch> mismatch() {
        for (String field : MUST_MATCH) {
            String first = runs.get(0).summary().path("spec").path(field).asText("?");
            for (Run r : runs) {
                String v = r.summary().path("spec").path(field).asText("?");
                if (!v.equals(first)) {
                    StringBuilder sb = new StringBuilder();
                    for (Run x : runs) {
                        sb.append(sb.length() > 0 ? " " : "").append(x.label()).append('=')
                                .append(x.summary().path("spec").path(field).asText("?"));
                    }
                    return Optional.of(new Mismatch(field, sb.toString()));
                }
            }
        }
        return Optional.empty();
    }

    private static String us(JsonNode s, String field) {
        JsonNode n = s.path("series").path("latency_ns").path(field);
        return n.isNumber() ? String.format(Locale.ROOT, "%.1f", n.asDouble() / 1000) : "–";
    }

    private static String num(JsonNode n, String fmt) {
        return n.isNumber() ? String.format(Locale.ROOT, fmt, n.asDouble()) : "–";
    }

    private static String cpu(JsonNode s, String role) {
        return num(s.path("cpu").path(role).path("stats").path("median"), "%.1f");
    }

    private static final List<Row> ROWS = List.of(
            new Row("driver", s -> s.path("driver").asText("–")),
            new Row("status", s -> s.path("status").asText("–")),
            new Row("size [B]", s -> s.path("spec").path("size").asText("–")),
            new Row("count", s -> s.path("spec").path("count").asText("–")),
            new Row("rate [msg/s] (0 = full speed)", s -> num(s.path("spec").path("rate"), "%.0f")),
            new Row("receive [msg/s]", s -> num(s.path("throughput").path("receive_msg_s"), "%.0f")),
            new Row("receive [bytes/s]", s -> num(s.path("throughput").path("receive_bytes_s"), "%.0f")),
            new Row("lost", s -> s.path("counters").path("messages_lost").asText("–")),
            new Row("latency min [µs]", s -> num(s.path("latency").path("latency_min_us"), "%.1f")),
            new Row("latency mean [µs]", s -> num(s.path("latency").path("latency_mean_us"), "%.1f")),
            new Row("latency p50 [µs]", s -> num(s.path("latency").path("latency_p50_us"), "%.1f")),
            new Row("latency p95 [µs]", s -> num(s.path("latency").path("latency_p95_us"), "%.1f")),
            new Row("latency p99 [µs]", s -> num(s.path("latency").path("latency_p99_us"), "%.1f")),
            new Row("latency p99.9 [µs]", s -> num(s.path("latency").path("latency_p999_us"), "%.1f")),
            new Row("latency max [µs]", s -> num(s.path("latency").path("latency_max_us"), "%.1f")),
            new Row("CPU sender median [% core]", s -> cpu(s, "sender")),
            new Row("CPU broker median [% core]", s -> cpu(s, "broker")),
            new Row("CPU receiver median [% core]", s -> cpu(s, "receiver")),
            new Row("distribution", s -> s.path("distribution").path("verdict").asText("–")));

    private static String md(String s) {
        return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ");
    }

    /** The Markdown table: one column per run. */
    public String markdown() {
        StringBuilder sb = new StringBuilder("| field |");
        for (Run r : runs) {
            sb.append(' ').append(md(r.label())).append(" |");
        }
        sb.append("\n|---|");
        sb.append("---:|".repeat(runs.size()));
        sb.append('\n');
        for (Row row : ROWS) {
            sb.append("| ").append(md(row.name())).append(" |");
            for (Run r : runs) {
                sb.append(' ').append(md(row.value().apply(r.summary()))).append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** compare.dat: one row per percentile, one latency column [µs] per run. */
    public String dat() {
        StringBuilder sb = new StringBuilder("# msgscope compare: latency percentiles [µs] from series.latency_ns\n# index percentile");
        for (Run r : runs) {
            sb.append(' ').append(r.label().replace(' ', '_'));
        }
        sb.append('\n');
        for (int i = 0; i < PERCENTILES.length; i++) {
            sb.append(i).append(" \"").append(PERCENTILES[i][0]).append('"');
            for (Run r : runs) {
                String v = us(r.summary(), PERCENTILES[i][1]);
                sb.append(' ').append("–".equals(v) ? "NaN" : v);
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** compare.gp: the runs' percentiles overlaid, log y. */
    public String script() {
        StringBuilder sb = new StringBuilder("# msgscope compare: latency percentiles of the runs overlaid (from compare.dat)\n"
                + "# Run from the compare folder: gnuplot compare.gp\n"
                + "set encoding utf8\n"
                + "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
                + "    set terminal pngcairo size 1200,700 noenhanced font \"sans,10\"\n"
                + "} else {\n"
                + "    set terminal png size 1200,700 noenhanced\n"
                + "}\n"
                + "set output \"compare.png\"\n"
                + "set datafile missing NaN\n"
                + "set grid\n"
                + "set key top left\n"
                + "set title \"Latency percentiles\"\n"
                + "set xlabel \"percentile\"\n"
                + "set ylabel \"latency [µs]\"\n"
                + "set logscale y 10\n"
                + "set xrange [-0.5:" + (PERCENTILES.length - 0.5) + "]\n"
                + "plot ");
        for (int i = 0; i < runs.size(); i++) {
            if (i > 0) {
                sb.append(", \\\n     ");
            }
            String t = runs.get(i).label() + " (" + runs.get(i).summary().path("driver").asText("?") + ")";
            sb.append("\"compare.dat\" using 1:").append(i + 3).append(":xtic(2) with linespoints lw 2 pt 7 title \"")
                    .append(t.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return sb.append('\n').toString();
    }

    /** Writes compare.md, compare.dat and compare.gp into dir. */
    public List<Path> write(Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> out = new ArrayList<>();
        for (String[] f : new String[][] {{"compare.md", markdown()}, {"compare.dat", dat()}, {"compare.gp", script()}}) {
            Path p = dir.resolve(f[0]);
            Files.writeString(p, f[1], StandardCharsets.UTF_8);
            out.add(p);
        }
        return out;
    }
}
