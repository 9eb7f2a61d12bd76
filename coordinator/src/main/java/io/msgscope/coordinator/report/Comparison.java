package io.msgscope.coordinator.report;

import io.msgscope.coordinator.view.SummaryView;
import io.msgscope.coordinator.results.ResultFiles;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.msgscope.analysis.output.GnuplotScripts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Results side by side (issue 7, comparison): one table, overlaid latency percentiles. Works on the
 * folders of every mode ({@code run}, {@code throughput}, {@code scenario}) through {@link SummaryView};
 * a figure a mode does not have shows as "–".
 */
public final class Comparison {
    /** One result: its label (folder name) and summary.json. */
    public record Run(String label, JsonNode summary) {
        SummaryView view() {
            return new SummaryView(summary);
        }
    }

    private record Row(String name, Function<SummaryView, String> value) {
    }

    private static final String[][] PERCENTILES = {{"p50", "p50"}, {"p90", "p90"}, {"p95", "p95"}, {"p99", "p99"},
            {"p99.9", "p999"}, {"p99.99", "p9999"}, {"max", "max"}};

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
            Path f = d.resolve(ResultFiles.SUMMARY);
            if (!Files.isRegularFile(f)) {
                throw new IllegalArgumentException(d + " holds no summary.json (not a run folder)");
            }
            runs.add(new Run(unique(d, seen), om.readTree(f.toFile())));
        }
        return new Comparison(runs);
    }

    /** The folder's name, with #2, #3 ... when it was seen before. */
    static String unique(Path d, List<String> seen) {
        String label = d.toAbsolutePath().normalize().getFileName().toString();
        String unique = label;
        for (int i = 2; seen.contains(unique); i++) {
            unique = label + "#" + i;
        }
        seen.add(unique);
        return unique;
    }

    public List<Run> runs() {
        return runs;
    }

    /** A setting whose values differ, with each result's value ("a=64 b=256"). */
    public record Mismatch(String field, String values) {
        /** The one-line refusal. */
        public String message() {
            return field + " differs between the runs (" + values + "); use --force to compare anyway";
        }
    }

    /**
     * The first setting whose values differ: the mode (a trace run against a throughput run), then the
     * mode's own settings ({@link SummaryView#mustMatch()}: size, count, rate of trace runs; size and
     * in-flight of throughput runs; scenario, size, publishers, subscribers, rate, duration of scenarios).
     */
    public Optional<Mismatch> mismatch() {
        Optional<Mismatch> m = differing("mode", r -> r.view().modeName());
        if (m.isPresent()) {
            return m;
        }
        List<String[]> fields = runs.get(0).view().mustMatch();
        for (int i = 0; i < fields.size(); i++) {
            int k = i;
            m = differing(fields.get(i)[0], r -> r.view().mustMatch().get(k)[1]);
            if (m.isPresent()) {
                return m;
            }
        }
        return Optional.empty();
    }

    private Optional<Mismatch> differing(String field, Function<Run, String> value) {
        String first = value.apply(runs.get(0));
        if (runs.stream().allMatch(r -> value.apply(r).equals(first))) {
            return Optional.empty();
        }
        StringBuilder sb = new StringBuilder();
        for (Run x : runs) {
            sb.append(sb.length() > 0 ? " " : "").append(x.label()).append('=').append(value.apply(x));
        }
        return Optional.of(new Mismatch(field, sb.toString()));
    }

    private static String num(double v, String fmt) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, fmt, v);
    }

    private static String num(JsonNode n, String fmt) {
        return n.isNumber() ? String.format(Locale.ROOT, fmt, n.asDouble()) : "–";
    }

    private static String cpu(SummaryView s, String role) {
        return num(s.json().path("cpu").path(role).path("stats").path("median"), "%.1f");
    }

    /** Issue 17: CPU time over elapsed time, what /proc shows; the per-window median beside it is not a time average. */
    private static String cpuTimeWeighted(SummaryView s, String role) {
        return num(s.json().path("cpu").path(role).path("time_weighted").path("mean_pct"), "%.1f");
    }

    /** The sender's CPU per message split into work and waiting for the send times (issue 27). */
    private static String senderCpu(SummaryView s, String field) {
        return num(s.json().path("cpu").path("sender").path("time_weighted").path(field), "%.0f");
    }

    private static Row latency(String name, String field) {
        return new Row("latency " + name + " [µs]", s -> num(s.latencyUs(field), "%.1f"));
    }

    private static final List<Row> ROWS = List.of(
            new Row("mode", SummaryView::modeName),
            new Row("driver", SummaryView::driver),
            new Row("status", SummaryView::status),
            new Row("size [B]", SummaryView::size),
            new Row("count", s -> s.json().path("spec").path("count").asText("–")),
            new Row("rate [msg/s] (0 = full speed)", s -> s.mode() == SummaryView.Mode.SCENARIO
                    ? num(s.json().path("rate_per_publisher"), "%.0f") + " per publisher"
                    : num(s.json().path("spec").path("rate"), "%.0f")),
            new Row("in flight F", s -> s.json().path("result").path("in_flight").asText("–")),
            new Row("scenario", s -> s.mode() == SummaryView.Mode.SCENARIO ? s.json().path("scenario").asText("–")
                    + " " + s.json().path("publishers").asText("?") + "→" + s.json().path("subscribers").asText("?")
                    + " @ " + s.json().path("delivery").asText("?") : "–"),
            new Row("receive [msg/s]", s -> num(s.msgPerS(), "%.0f")),
            new Row("receive [bytes/s]", s -> num(s.bytesPerS(), "%.0f")),
            new Row("median of the throughput windows [msg/s]", s -> num(s.windowMedianMsgPerS(), "%.0f")),
            new Row("throughput samples sd [msg/s]", s -> num(s.sampleSdMsgPerS(), "%.0f")),
            new Row("lost", s -> num(s.lost(), "%.0f")),
            new Row("delivery rate", s -> num(s.json().path("results").path("delivery_rate"), "%.4f")),
            latency("min", "min"),
            latency("mean", "mean"),
            latency("p50", "p50"),
            latency("p95", "p95"),
            latency("p99", "p99"),
            latency("p99.9", "p999"),
            latency("max", "max"),
            new Row("CPU sender time-weighted [% core]", s -> cpuTimeWeighted(s, "sender")),
            new Row("CPU broker time-weighted [% core]", s -> cpuTimeWeighted(s, "broker")),
            new Row("CPU receiver time-weighted [% core]", s -> cpuTimeWeighted(s, "receiver")),
            new Row("CPU sender work per message [ns]", s -> senderCpu(s, "work_ns_per_message")),
            new Row("CPU sender waiting per message (--rate pacing) [ns]", s -> senderCpu(s, "waiting_ns_per_message")),
            new Row("CPU sender median per window [% core]", s -> cpu(s, "sender")),
            new Row("CPU broker median per window [% core]", s -> cpu(s, "broker")),
            new Row("CPU receiver median per window [% core]", s -> cpu(s, "receiver")),
            // issue 27: the figure the console prints (the sampling period), then the whole probe's, each named
            new Row("client process CPU per message, sampling period [ns]",
                    s -> num(s.json().path("result").path("cpu").path("process").path("ns_per_message"), "%.0f")),
            new Row("client process CPU per message, whole probe [ns]",
                    s -> num(s.clientCpuNsPerMessage(), "%.0f")),
            new Row("distribution", s -> s.json().path("distribution").path("verdict").asText("–")));

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
                sb.append(' ').append(md(row.value().apply(r.view()))).append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** compare.dat: one row per percentile, one latency column [µs] per run. */
    public String dat() {
        StringBuilder sb = new StringBuilder("# msgscope compare: latency percentiles [µs] (NaN: the mode does not "
                + "report it)\n# index percentile");
        for (Run r : runs) {
            sb.append(' ').append(r.label().replace(' ', '_'));
        }
        sb.append('\n');
        for (int i = 0; i < PERCENTILES.length; i++) {
            sb.append(i).append(" \"").append(PERCENTILES[i][0]).append('"');
            for (Run r : runs) {
                double v = r.view().latencyUs(PERCENTILES[i][1]);
                sb.append(' ').append(Double.isNaN(v) ? "NaN" : String.format(Locale.ROOT, "%.1f", v));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** compare.gp: the runs' percentiles overlaid, log y. */
    public String script() {
        StringBuilder sb = new StringBuilder("# msgscope compare: latency percentiles of the runs overlaid (from compare.dat)\n"
                + "# Run from the compare folder: gnuplot compare.gp\n"
                + GnuplotScripts.TERMINAL
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
        return writeFiles(dir, markdown(), dat(), script());
    }

    /** A file written beside the table's (compare.json). */
    public interface Extra {
        Path write(Path dir) throws IOException;
    }

    /** As {@link #write(Path)}, with {@code appendix} after the table in compare.md and {@code extra} written too. */
    public List<Path> write(Path dir, String appendix, Extra extra) throws IOException {
        List<Path> out = writeFiles(dir, markdown() + appendix, dat(), script());
        out.add(extra.write(dir));
        return out;
    }

    /** Writes compare.md, compare.dat and compare.gp with the given texts into dir (created). */
    static List<Path> writeFiles(Path dir, String md, String dat, String gp) throws IOException {
        Files.createDirectories(dir);
        List<Path> out = new ArrayList<>();
        for (String[] f : new String[][] {{"compare.md", md}, {"compare.dat", dat}, {"compare.gp", gp}}) {
            Path p = dir.resolve(f[0]);
            Files.writeString(p, f[1], StandardCharsets.UTF_8);
            out.add(p);
        }
        return out;
    }
}
