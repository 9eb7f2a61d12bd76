package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.coordinator.results.Json;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The output formats of a scenario run (Q9) over its immutable {@link ScenarioResult}: summary.json (the one mapper,
 * {@code Json.text}), summary.csv and summary.md (one row of the same cells) here, the time series and its gnuplot
 * script in {@link ScenarioPlot}, latency.hlog in {@link ScenarioHlog}; {@link #write} writes the folder. Numbers
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
     * The same through a {@link io.msgscope.coordinator.results.ResultsFolder} (issue 16) when summary.json is asked: each
     * file's failure names it, summary.json replaces the run's placeholder last and atomically.
     */
    public static List<Path> write(ScenarioResult r, Path dir, List<String> formats,
                                   io.msgscope.coordinator.results.ResultsFolder folder) throws IOException {
        List<Path> files = new ArrayList<>();
        for (String f : formats) {
            switch (f) {
                case "json" -> { } // last, below
                case "csv" -> files.add(write(folder, dir.resolve(ResultFiles.SUMMARY_CSV), csv(r)));
                case "md" -> files.add(write(folder, dir.resolve(ResultFiles.SUMMARY_MD), markdown(r)));
                default -> throw new IllegalArgumentException("unknown format " + f);
            }
        }
        files.add(write(folder, dir.resolve(ResultFiles.TIMESERIES_DAT), ScenarioPlot.data(r)));
        files.add(write(folder, dir.resolve(ResultFiles.TIMESERIES_GP), ScenarioPlot.script(r)));
        if (!r.intervals().isEmpty()) {
            Path hlog = dir.resolve(ResultFiles.LATENCY_HLOG);
            if (folder != null) {
                folder.write(ResultFiles.LATENCY_HLOG, () -> ScenarioHlog.write(r, hlog));
            } else {
                ScenarioHlog.write(r, hlog);
            }
            files.add(hlog);
        }
        if (r.phases() != null && r.phases().backlog() != null) {
            files.addAll(r.phases().backlog().write(dir)); // backlog.dat, backlog.gp (issue 31 item 3)
        }
        if (r.faults() != null) { // issue 32 item 5: the counts each fault's figures come from
            files.add(write(folder, dir.resolve(ResultFiles.FAULT_BUCKETS_DAT), r.faults().bucketsDat()));
        }
        if (formats.contains("json")) {
            Path summary = dir.resolve(ResultFiles.SUMMARY);
            if (folder != null) {
                folder.commit(json(r).getBytes(StandardCharsets.UTF_8));
            } else {
                write(summary, json(r));
            }
            files.add(0, summary);
        }
        return files;
    }

    private static Path write(io.msgscope.coordinator.results.ResultsFolder folder, Path p, String text) throws IOException {
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
        return Json.text(root);
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
}
