package io.msgscope.coordinator.scenario;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.msgscope.analysis.output.HdrOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The output formats of a scenario run (Q9), one method each over {@link ScenarioResult}; numbers
 * never depend on the default locale (doubles with three decimals, '.' as the separator).
 */
public final class ScenarioWriters {
    private ScenarioWriters() {
    }

    /** Writes the formats asked (json, csv, md) plus the time series and its gnuplot script; returns the files. */
    public static List<Path> write(ScenarioResult r, Path dir, List<String> formats) throws IOException {
        return write(r, dir, formats, null);
    }

    /**
     * The same through a {@link io.msgscope.coordinator.ResultsFolder} (issue 16) when summary.json is asked: each
     * file's failure names it, summary.json replaces the run's placeholder last and atomically.
     */
    public static List<Path> write(ScenarioResult r, Path dir, List<String> formats,
                                   io.msgscope.coordinator.ResultsFolder folder) throws IOException {
        List<Path> files = new ArrayList<>();
        for (String f : formats) {
            switch (f) {
                case "json" -> { } // last, below
                case "csv" -> files.add(write(folder, dir.resolve("summary.csv"), csv(r)));
                case "md" -> files.add(write(folder, dir.resolve("summary.md"), markdown(r)));
                default -> throw new IllegalArgumentException("unknown format " + f);
            }
        }
        files.add(write(folder, dir.resolve("timeseries.dat"), timeseries(r)));
        files.add(write(folder, dir.resolve("timeseries.gp"), gnuplot(r)));
        if (!r.intervals().isEmpty()) {
            Path hlog = dir.resolve(HdrOutput.HLOG_FILE_NAME);
            if (folder != null) {
                folder.write(HdrOutput.HLOG_FILE_NAME, () -> writeHlog(r, hlog));
            } else {
                writeHlog(r, hlog);
            }
            files.add(hlog);
        }
        if (formats.contains("json")) {
            Path summary = dir.resolve("summary.json");
            if (folder != null) {
                folder.commit(json(r).getBytes(StandardCharsets.UTF_8));
            } else {
                write(summary, json(r));
            }
            files.add(0, summary);
        }
        return files;
    }

    /** The measurement's intervals as an HdrHistogram interval log (the drain tagged "drain"). */
    static void writeHlog(ScenarioResult r, Path file) throws IOException {
        try (HdrOutput.IntervalLog log = new HdrOutput.IntervalLog(file,
                "msgscope scenario latency, values in ns, one interval per second of the measurement, merged over the "
                        + "subscribers agents; the last, tagged drain, is what arrived after the publishers stopped",
                r.intervals().get(0).startEpochMs())) {
            for (ScenarioResult.Interval i : r.intervals()) {
                try {
                    Histogram h = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(i.histogram()), 0);
                    log.append(h, i.startEpochMs(), i.endEpochMs(), i.tag());
                } catch (DataFormatException e) {
                    throw new IOException("latency interval at " + i.startEpochMs() + " ms is not a histogram: " + e.getMessage(), e);
                }
            }
        }
    }

    private static Path write(io.msgscope.coordinator.ResultsFolder folder, Path p, String text) throws IOException {
        if (folder == null) {
            return write(p, text);
        }
        folder.write(p.getFileName().toString(), () -> write(p, text));
        return p;
    }

    private static Path write(Path p, String text) throws IOException {
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return p;
    }

    /** summary.json: the typed result's {@link ScenarioResult#toMap()} through Jackson, indented, and a newline. */
    public static String json(ScenarioResult r) throws IOException {
        return json(r.toMap());
    }

    static String json(Map<String, Object> root) throws IOException {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root) + "\n";
    }

    public static String csv(ScenarioResult r) {
        return csv(row(r.header(), r.results().toMap()));
    }

    /** One header line and one row of cells, quoted where they hold a comma or a quote. */
    static String csv(Map<String, Object> all) {
        StringBuilder b = new StringBuilder(String.join(",", all.keySet())).append('\n');
        List<String> cells = new ArrayList<>();
        for (Object v : all.values()) {
            String s = number(v);
            cells.add(s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s);
        }
        return b.append(String.join(",", cells)).append('\n').toString();
    }

    public static String markdown(ScenarioResult r) {
        return markdown(row(r.header(), r.results().toMap()), r.notes());
    }

    /** A two-column table of the row, then the notes as a list. */
    static String markdown(Map<String, Object> row, List<String> notes) {
        StringBuilder b = new StringBuilder("| metric | value |\n|---|---:|\n");
        for (Map.Entry<String, Object> e : row.entrySet()) {
            b.append("| ").append(e.getKey()).append(" | ").append(number(e.getValue()).replace("|", "\\|")).append(" |\n");
        }
        for (String n : notes) {
            b.append("\n- ").append(n);
        }
        if (!notes.isEmpty()) {
            b.append('\n');
        }
        return b.toString();
    }

    /** The scalar header entries (tool, mode, status, scenario, ...) followed by the summary fields. */
    static Map<String, Object> row(Map<String, Object> header, Map<String, Object> results) {
        Map<String, Object> all = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : header.entrySet()) {
            if (e.getKey().equals("tool") && e.getValue() instanceof Map<?, ?> tool) {
                all.put("tool", tool.get("name") + " " + tool.get("version")); // one cell, as "msgscope VERSION"
            } else if (e.getValue() == null || e.getValue() instanceof String || e.getValue() instanceof Number
                    || e.getValue() instanceof Boolean) {
                all.put(e.getKey(), e.getValue());
            }
        }
        all.putAll(results);
        return all;
    }

    public static String number(Object v) {
        if (v == null) {
            return "";
        }
        if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            String s = String.format(Locale.ROOT, "%.3f", d);
            // never let rounding turn a fraction into a whole number (issue 16: delivery_rate 0.99973 is not 1.000)
            if (d != Math.rint(d) && Double.parseDouble(s) == Math.rint(Double.parseDouble(s))) {
                s = String.format(Locale.ROOT, "%.6f", d);
                if (Double.parseDouble(s) == Math.rint(Double.parseDouble(s))) {
                    s = Double.toString(d);
                }
            }
            return s;
        }
        return v.toString();
    }

    public static String timeseries(ScenarioResult r) {
        return timeseries(r.seconds());
    }

    static String timeseries(List<ScenarioResult.Second> seconds) {
        StringBuilder b = new StringBuilder("# msgscope scenario time series, one row per second of the measurement\n"
                + "# second rate_msg_s p50_us p99_us\n");
        for (ScenarioResult.Second s : seconds) {
            b.append(String.format(Locale.ROOT, "%d %.3f %.3f %.3f%n", s.second(), s.rate(), s.p50Us(), s.p99Us()));
        }
        return b.toString();
    }

    public static String gnuplot(ScenarioResult r) {
        return "# gnuplot timeseries.gp  ->  timeseries.png\n"
                + "set terminal pngcairo size 1000,600\n"
                + "set output 'timeseries.png'\n"
                + "set title '" + r.setup().scenario() + " (" + r.envelope().driver() + ")'\n"
                + "set xlabel 'second of the measurement'\n"
                + "set ylabel 'msg/s'\n"
                + "set y2label 'latency (us)'\n"
                + "set ytics nomirror\nset y2tics\nset key outside\n"
                // issue 29: a rate and a latency from 0, so 386-402 msg/s reads as steady, not as a zigzag
                + "set yrange [0:*]\nset y2range [0:*]\n"
                + "plot 'timeseries.dat' using 1:2 with lines title 'rate', \\\n"
                + "     '' using 1:3 axes x1y2 with lines title 'p50', \\\n"
                + "     '' using 1:4 axes x1y2 with lines title 'p99'\n";
    }
}
