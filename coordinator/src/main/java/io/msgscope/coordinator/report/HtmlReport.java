package io.msgscope.coordinator.report;

import io.msgscope.coordinator.view.SummaryView;
import io.msgscope.coordinator.view.Units;
import io.msgscope.coordinator.results.ResultFiles;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.msgscope.analysis.output.Plotter;
import io.msgscope.coordinator.throughput.ThroughputSamples;
import io.msgscope.coordinator.results.Envelope;

import static io.msgscope.coordinator.report.SummaryTables.FIELD_HEAD;
import static io.msgscope.coordinator.report.SummaryTables.cpuTable;
import static io.msgscope.coordinator.report.SummaryTables.distribution;
import static io.msgscope.coordinator.report.SummaryTables.environment;
import static io.msgscope.coordinator.report.SummaryTables.fields;
import static io.msgscope.coordinator.report.SummaryTables.peaks;
import static io.msgscope.coordinator.report.SummaryTables.seriesTable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code index.html} of a results folder ({@code summary.json} of a trace, throughput or scenario run)
 * or a sweep folder ({@code sweep.json}, one page per point too): self-contained (inline CSS, images by relative path, no scripts, no network).
 */
public final class HtmlReport {
    private static final ObjectMapper OM = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final Pattern OUTPUT = Pattern.compile("^\\s*set\\s+output\\s+[\"']([^\"']+)[\"']", Pattern.MULTILINE);
    private static final List<String> PLOT_ORDER = List.of("latency.png", "latency-histogram.png",
            "latency-distribution.png", "latency-peaks.png", "throughput.png", "cpu.png", "network.png",
            "search.png", "samples.png", "samples-histogram.png", "timeseries.png",
            "sweep-throughput.png", "sweep-latency.png");

    /** What building a report did. */
    public record Result(Path index, List<Path> pages, List<String> notes) {
    }

    private HtmlReport() {
    }

    /** Whether dir is a sweep folder. */
    public static boolean isSweep(Path dir) {
        return Files.isRegularFile(dir.resolve("sweep.json"));
    }

    /** Whether dir is a capacity search's folder (its summary.json's mode). */
    static boolean isCapacity(Path dir) throws IOException {
        io.msgscope.coordinator.view.SummaryView v = io.msgscope.coordinator.view.SummaryView.read(dir);
        return v != null && "capacity".equals(v.envelope().mode());
    }

    /** Whether dir is a run folder. */
    public static boolean isRun(Path dir) {
        return Files.isRegularFile(dir.resolve(ResultFiles.SUMMARY));
    }

    /**
     * Refuses a summary.json that msgscope did not write whole (issue 16): empty, not JSON, not an object,
     * or without the {@code status} every mode writes. The message is one line naming the
     * file; commands turn it into exit 1.
     */
    public static void checkSummary(Path dir) throws IOException {
        Path f = dir.resolve(ResultFiles.SUMMARY);
        String why;
        try {
            com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(f.toFile());
            why = j == null || j.isMissingNode() ? "it is empty"
                    : !j.isObject() ? "it is not a JSON object"
                    : !j.hasNonNull("status") ? "it has no status" : null;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            why = "it is not JSON (" + e.getOriginalMessage() + ")";
        }
        if (why != null) {
            throw new IOException(f + " is not a msgscope summary: " + why);
        }
    }

    /** Writes dir/index.html (and, for a sweep or a capacity search, each point's or step's index.html), rendering missing PNGs when gnuplot is present. */
    public static Result write(Path dir) throws IOException {
        List<Path> pages = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        Path index;
        if (isSweep(dir)) {
            JsonNode sweep = OM.readTree(dir.resolve("sweep.json").toFile());
            runPages(dir, sweep.path("points"), "dir", pages, notes);
            renderMissing(dir, notes);
            index = SweepPage.writeSweep(dir, sweep);
        } else if (isCapacity(dir)) {
            JsonNode cap = OM.readTree(dir.resolve(ResultFiles.SUMMARY).toFile());
            runPages(dir, cap.path("steps"), "folder", pages, notes); // each step is a run, linked from the steps
            renderMissing(dir, notes);
            index = CapacityPage.write(dir, cap);
        } else {
            completeData(dir);
            renderMissing(dir, notes);
            index = writeRun(dir);
        }
        pages.add(index);
        return new Result(index, pages, notes);
    }

    /** The page of each run folder (the entries' {@code field} under {@code dir}) that holds a summary. */
    private static void runPages(Path dir, JsonNode entries, String field, List<Path> pages, List<String> notes)
            throws IOException {
        for (JsonNode e : entries) {
            Path rd = dir.resolve(e.path(field).asText());
            if (isRun(rd)) {
                completeData(rd);
                renderMissing(rd, notes);
                pages.add(writeRun(rd));
            }
        }
    }

    /** Renders the folder's scripts when one of their PNGs is missing and gnuplot is on PATH. */
    static void renderMissing(Path dir, List<String> notes) throws IOException {
        boolean missing = false;
        try (Stream<Path> s = Files.list(dir)) {
            for (Path gp : (Iterable<Path>) s.filter(p -> p.toString().endsWith(".gp")).sorted()::iterator) {
                Matcher m = OUTPUT.matcher(Files.readString(gp, StandardCharsets.UTF_8));
                while (m.find()) {
                    missing |= !Files.isRegularFile(dir.resolve(m.group(1)));
                }
            }
        }
        if (!missing) {
            return;
        }
        if (!Plotter.gnuplotAvailable()) {
            notes.add(dir + ": some plots are missing and gnuplot is not installed; the page shows those present");
            return;
        }
        try {
            Plotter.render(dir);
        } catch (IOException e) {
            notes.add(dir + ": plotting failed: " + e.getMessage());
        }
    }

    static List<String> pngs(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            // only whole PNGs: a plot whose script failed may have left an empty or cut file (issue 18: no broken images)
            s.filter(HtmlReport::isPng).map(p -> p.getFileName().toString()).sorted().forEach(names::add);
        }
        names.sort((a, b) -> Integer.compare(rank(a), rank(b)));
        return names;
    }

    /** A .png file that starts with the PNG signature and ends with its IEND chunk. */
    static boolean isPng(Path p) {
        if (!p.getFileName().toString().endsWith(".png") || !Files.isRegularFile(p)) {
            return false;
        }
        try (java.nio.channels.SeekableByteChannel ch = Files.newByteChannel(p)) {
            long size = ch.size();
            if (size < 20) {
                return false;
            }
            java.nio.ByteBuffer head = java.nio.ByteBuffer.allocate(8);
            ch.read(head);
            java.nio.ByteBuffer tail = java.nio.ByteBuffer.allocate(8);
            ch.position(size - 8);
            ch.read(tail);
            return java.util.Arrays.equals(head.array(), new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'})
                    && new String(tail.array(), 0, 4, StandardCharsets.US_ASCII).equals("IEND");
        } catch (IOException e) {
            return false;
        }
    }

    private static int rank(String name) {
        int i = PLOT_ORDER.indexOf(name);
        return i < 0 ? PLOT_ORDER.size() : i;
    }

    /** The one-sentence answer of a run of any mode, from summary.json. */
    public static String sentence(JsonNode s) {
        return new SummaryView(s).sentence();
    }


    private static String statusHtml(SummaryView v) {
        String st = v.status();
        String cls = "ok".equals(st) ? "status-ok" : "status-failed";
        String reason = v.envelope().failed() ? ": " + v.envelope().failureReason() : "";
        return "<p>Status: <span class=\"" + cls + "\">" + Html.esc(st) + "</span>" + Html.esc(reason) + "</p>\n";
    }

    static Path writeRun(Path dir) throws IOException {
        JsonNode s = OM.readTree(dir.resolve(ResultFiles.SUMMARY).toFile());
        SummaryView v = new SummaryView(s);
        Html h = new Html();
        Envelope e = v.envelope();
        String title = "msgscope " + s.path("mode").asText("run") + " "
                + (e.runId() != null ? e.runId() : dir.toAbsolutePath().normalize().getFileName().toString());
        h.el("h1", title);
        h.raw("<p class=\"sentence\">").text(v.sentence()).raw("</p>\n");
        h.raw(statusHtml(v));
        headline(h, v);
        String started = e.startedAt() == null ? "" : e.startedAt();
        h.raw("<p>").text("Driver " + v.driver() + (s.has("topology") ? ", topology: " + s.path("topology").asText()
                : "") + (started.isEmpty() ? "" : ", started " + started)).raw("</p>\n");
        rerun(h, s, dir);
        List<String> warnings = new ArrayList<>(e.warnings());
        s.path("notes").forEach(w -> warnings.add(w.asText()));
        if (!warnings.isEmpty()) {
            h.el("h2", v.mode() == SummaryView.Mode.SCENARIO ? "Notes" : "Warnings");
            h.raw("<ul>\n");
            for (String w : warnings) {
                h.raw("<li>").text(w).raw("</li>\n");
            }
            h.raw("</ul>\n");
        }
        // issue 29, as docs/commands.md says: the answer (headline), the warnings, then the plots, then the tables
        h.el("h2", "Plots");
        List<String> pngs = pngs(dir);
        if (pngs.isEmpty()) {
            h.el("p", "No plots: render them with 'msgscope plot " + dir + "' (needs gnuplot).");
        }
        for (String png : pngs) {
            h.img(png, png);
        }
        switch (v.mode()) {
            case RUN -> runSections(h, s);
            case THROUGHPUT -> throughputSections(h, s);
            case SCENARIO -> scenarioSections(h, s);
        }
        Path index = dir.resolve("index.html");
        Files.writeString(index, Html.page(title, h.toString()), StandardCharsets.UTF_8);
        return index;
    }

    /**
     * The headline (issue 18): what a reader came for, before any table or plot, in one unit per kind (msg/s,
     * latency in µs/ms/s by size, CPU in µs per message): the verdict, the rate, the latency percentiles, the loss
     * and the CPU each role spent per message.
     */
    static void headline(Html h, SummaryView v) {
        List<List<String>> rows = new ArrayList<>();
        String reason = v.envelope().failed() ? ": " + v.envelope().failureReason() : "";
        rows.add(List.of("verdict", v.status() + reason));
        rows.add(List.of(v.mode() == SummaryView.Mode.THROUGHPUT ? "delivered (messages / sampling period)"
                : "received", rate(v.msgPerS()) + (Double.isNaN(v.bytesPerS()) ? "" : " (" + Units.bytes(v.bytesPerS()) + "/s)")));
        for (String[] p : new String[][] {{"p50", "latency p50"}, {"p99", "latency p99"}, {"p999", "latency p99.9"},
                {"max", "latency max"}}) {
            rows.add(List.of(p[1], Units.time(v.latencyUs(p[0]) * 1e3)));
        }
        double lost = v.lost();
        double sent = v.sent();
        if (!Double.isNaN(lost)) {
            rows.add(List.of("lost", String.format(Locale.ROOT, "%,.0f", lost) + (Double.isNaN(sent) || sent <= 0 ? ""
                    : String.format(Locale.ROOT, " of %,.0f (%s %%)", sent,
                    io.msgscope.coordinator.scenario.ScenarioWriters.number(100.0 * lost / sent)))));
        }
        if (v.mode() == SummaryView.Mode.SCENARIO) {
            rows.add(List.of("delivery rate", v.deliveryRate()));
        }
        v.cpuNsPerMessage().forEach((role, ns) -> rows.add(List.of("CPU per message, " + role, Units.time(ns))));
        int warnings = v.envelope().warnings().size();
        if (warnings > 0) {
            rows.add(List.of("warnings", warnings + " (listed below)"));
        }
        h.el("h2", "Headline");
        h.table(List.of("figure", "value"), rows);
    }

    private static String rate(double msgPerS) {
        return Double.isNaN(msgPerS) ? "–" : String.format(Locale.ROOT, "%,.0f msg/s", msgPerS);
    }

    /** The command that runs this again with the same spec (--spec reads a summary.json's spec back). */
    static void rerun(Html h, JsonNode s, Path dir) {
        if (!s.path("spec").isObject()) {
            return;
        }
        h.el("h2", "Run it again");
        h.pre("msgscope " + new SummaryView(s).modeName() + " --spec "
                + dir.toAbsolutePath().normalize().resolve(ResultFiles.SUMMARY));
        h.el("p", "spec_hash " + s.path("spec_hash").asText("–") + ": the same hash means the same settings. "
                + "Options given on the command line override the file's; the password in a broker URI was masked and must "
                + "be given again with --uri.");
    }

    private static void runSections(Html h, JsonNode s) throws IOException {
        h.el("h2", "Latency (Q4)");
        h.table(FIELD_HEAD, fields(s.path("latency")));
        h.el("h2", "Throughput");
        h.table(FIELD_HEAD, fields(s.path("throughput")));
        h.el("h2", "Counters");
        h.table(FIELD_HEAD, fields(s.path("counters")));
        PhaseTables.add(h, s);
        FaultTables.add(h, s);
        seriesTable(h, s.path("series"), "Series aggregates");
        if (s.path("network").isObject()) {
            h.el("p", "Network: " + s.path("network").path("source").asText(""));
            seriesTable(h, s.path("network"), "Network");
        }
        cpuTable(h, s.path("cpu"));
        distribution(h, s.path("distribution"));
        peaks(h, s.path("peaks"));
        environment(h, s.path("environment"));
        h.el("h2", "Run spec (to reproduce)");
        h.el("p", "spec_hash " + s.path("spec_hash").asText("–"));
        h.pre(OM.writeValueAsString(s.path("spec")));
    }

    /** A throughput run (A5-A7): the result, latency at F, counters, the F search and its probes. */
    private static void throughputSections(Html h, JsonNode s) throws IOException {
        JsonNode r = s.path("result");
        h.el("h2", "Result (A7: the rate delivered over the sampling period; median, mean and sd of the samples)");
        List<List<String>> rows = new ArrayList<>();
        for (List<String> f : fields(r)) {
            if (!List.of("latency", "counters", "sample_values_msg_s").contains(f.get(2).split("\\.")[0])) {
                rows.add(f);
            }
        }
        rows.add(List.of("sample values [msg/s]", r.path("sample_values_msg_s").size() + " in samples.dat",
                "sample_values_msg_s"));
        h.table(FIELD_HEAD, rows);
        h.el("h2", "Latency at that F (Q4)");
        h.table(FIELD_HEAD, fields(r.path("latency")));
        h.el("h2", "Counters");
        h.table(FIELD_HEAD, fields(r.path("counters")));
        if (s.path("search").isObject()) {
            h.el("h2", "F search (A6)");
            h.table(FIELD_HEAD, fields(s.path("search")));
        }
        if (s.path("probes").size() > 0) {
            h.el("h2", "Probes");
            List<List<String>> probes = new ArrayList<>();
            for (JsonNode p : s.path("probes")) {
                probes.add(List.of(Html.value(p.get("in_flight")), Html.value(p.get("phase")),
                        Html.value(p.get("median_msg_s")), Html.value(p.get("mean_msg_s")),
                        Html.value(p.get("stddev_msg_s")), Html.value(p.get("samples"))));
            }
            h.table(List.of("F", "phase", "median msg/s", "mean msg/s", "sd msg/s", "samples"), probes);
        }
        environment(h, s.path("environment"));
        h.el("h2", "Settings (to reproduce)");
        h.pre(OM.writeValueAsString(s.path("settings")));
    }

    /** A scenario run (Q1-Q9): the Q4/Q5/Q6 fields, the scenario's settings. */
    private static void scenarioSections(Html h, JsonNode s) throws IOException {
        h.el("h2", "Results (Q4 latency, Q5 counters, Q6 rates and delivery)");
        h.table(FIELD_HEAD, fields(s.path("results")));
        h.el("h2", "Scenario (to reproduce)");
        List<List<String>> rows = new ArrayList<>();
        for (List<String> f : fields(s)) {
            if (!List.of("results", "notes", "warnings").contains(f.get(2).split("\\.")[0])) {
                rows.add(f);
            }
        }
        h.table(FIELD_HEAD, rows);
    }

    /** Data files a folder written by an older msgscope lacks but its summary holds (throughput samples). */
    static void completeData(Path dir) throws IOException {
        if (!isRun(dir) || Files.isRegularFile(dir.resolve(io.msgscope.coordinator.results.ResultFiles.SAMPLES_DAT))) {
            return;
        }
        SummaryView v = new SummaryView(OM.readTree(dir.resolve(ResultFiles.SUMMARY).toFile()));
        if (v.mode() == SummaryView.Mode.THROUGHPUT) {
            List<Double> samples = new ArrayList<>();
            v.json().path("result").path("sample_values_msg_s").forEach(n -> samples.add(n.asDouble()));
            ThroughputSamples.write(dir, samples, v.windowMedianMsgPerS());
        }
    }

}
