package io.msgscope.coordinator;

import io.msgscope.analysis.output.HdrOutput;
import io.msgscope.coordinator.result.Envelope;
import io.msgscope.core.EnvironmentInfo;
import io.msgscope.core.RunSpec;
import io.msgscope.core.Secrets;
import org.HdrHistogram.Histogram;

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
 * Throughput mode's results (A5-A7): the F search's files, latency.hlog, the sample files and summary.json, from a
 * {@link ThroughputRun.Outcome} and the options as given. The command plans the run and calls this (issue 15: the
 * commands do not assemble results); {@link ThroughputConsole} says the same on the console.
 */
public final class ThroughputResults {
    private ThroughputResults() {
    }

    /** The options as the user gave them (units as on the command line): summary.json's spec and settings. */
    public record Given(int size, String padding, long requestedInFlight, int samples, double thresholdMs,
                        double skipFactor, double probeWarmupMs, double warmupMs, long warmupMessages, int maxExponent,
                        String pick, int remeasure, int maxProbes) {

        /** The pick as the summary spells it: {@code knee} or {@code peak}. */
        public String pickName() {
            return pick.trim().toLowerCase(Locale.ROOT);
        }

        public ThroughputRun.Pick parsedPick() {
            return ThroughputRun.Pick.valueOf(pick.trim().toUpperCase(Locale.ROOT));
        }

        Map<String, Object> settings(Map<String, String> driverOptions) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("size", size);
            m.put("padding", padding);
            m.put("in_flight", requestedInFlight == 0 ? "auto" : requestedInFlight);
            m.put("samples", samples);
            m.put("threshold_ms", thresholdMs);
            m.put("skip_factor", skipFactor);
            m.put("probe_warmup_time_ms", probeWarmupMs);
            m.put("warmup_time_ms", warmupMs);
            m.put("warmup_messages", warmupMessages);
            m.put("max_exponent", maxExponent);
            m.put("pick", pickName());
            m.put("remeasure", remeasure);
            m.put("max_probes", maxProbes);
            m.put("driver_options", Secrets.options(driverOptions));
            return m;
        }
    }

    /**
     * Writes every file of the run into {@code folder}, summary.json last (the folder's commit); a file that cannot be
     * written throws {@link ResultsFolder.WriteFailed} naming it.
     */
    public static void write(Path dir, ResultsFolder folder, RunSpec spec, Given g, ThroughputRun.Outcome o,
                             String startedAt) throws IOException {
        List<String> files = new ArrayList<>();
        folder.write("the F search files", () -> writeSearch(dir, o, files));
        folder.write(HdrOutput.HLOG_FILE_NAME, () -> {
            if (writeHlog(dir.resolve(HdrOutput.HLOG_FILE_NAME), o) > 0) {
                files.add(HdrOutput.HLOG_FILE_NAME);
            }
        });
        if (o.finalResult != null) {
            folder.write("the throughput sample files", () -> files.addAll(
                    ThroughputSamples.write(dir, o.finalResult.getSamplesList(), o.finalStats.samples())));
        }
        files.add(SummaryJson.FILE_NAME);
        // the run's id is its results folder's name, as the folder's placeholder summary already says
        folder.commit(summary(spec, g, o, EnvironmentInfo.current(), dir.getFileName().toString(), startedAt, files));
    }

    /** summary.json of a throughput run, field by field in the order written. */
    static Map<String, Object> summary(RunSpec spec, Given g, ThroughputRun.Outcome o, EnvironmentInfo e,
                                       String runId, String startedAt, List<String> files) {
        Map<String, Object> settings = g.settings(spec.driverOptions());
        // the envelope every mode shares (issue 15): the spec as given and its hash
        Map<String, Object> specMap = new LinkedHashMap<>();
        specMap.put("driver", spec.driver());
        specMap.put("uri", spec.uriForDisplay());
        specMap.putAll(settings);
        Map<String, Object> env = SummaryJson.env(e);
        if (o.flowAgent != null) {
            env.put("flow_agent_affinity", o.flowAgent.affinity().getObtained());
        }
        Map<String, Object> root = Envelope.of("throughput", runId, spec.driver(), startedAt, o.failure, o.failedDuring,
                o.warnings, specMap, SummaryJson.specHash(specMap), env).toMap();
        root.put("uri", spec.uriForDisplay());
        root.put("destination", o.destination);
        root.put("settings", settings); // the spec's fields as earlier versions named them, kept for their readers
        if (o.warmup != null) {
            Map<String, Object> w = new LinkedHashMap<>();
            w.put("in_flight", o.warmup.getInFlight());
            w.put("messages", o.warmup.getWarmupReceived());
            w.put("elapsed_ms", o.warmup.getWarmupElapsedNs() / 1e6);
            w.put("rate_msg_s", o.warmup.getWarmupElapsedNs() > 0
                    ? o.warmup.getWarmupReceived() * 1e9 / o.warmup.getWarmupElapsedNs() : null);
            w.put("note", "discarded: the client, its connections and the broker's queue warmed up before the first probe");
            root.put("warmup", w);
        }
        if (o.search != null) {
            root.put("search", search(o, g));
        }
        List<Map<String, Object>> probes = new ArrayList<>();
        for (int i = 0; i < o.probes.size(); i++) {
            probes.add(probe(o.probes.get(i), o.phases.get(i)));
        }
        root.put("probes", probes);
        if (o.finalResult != null) {
            root.put("result", result(o, g.size()));
        }
        root.put("notes", o.notes);
        root.put("files", files);
        return root;
    }

    private static Map<String, Object> search(ThroughputRun.Outcome o, Given g) {
        FSearch.Result r = o.search;
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("method", o.searchMethod);
        s.put("pick", g.pickName());
        s.put("chosen_in_flight", (g.parsedPick() == ThroughputRun.Pick.KNEE ? r.knee() : r.peak()).inFlight());
        Map<String, Object> peak = point(r.peak());
        peak.put("throughput", "the confirmation: fresh probes after the peak was chosen (median_msg_s etc. "
                + "above pool the probes that chose it)");
        peak.put("confirmation", ThroughputStats.samplesJson(r.peakThroughput()));
        s.put("peak", peak);
        Map<String, Object> knee = point(r.knee());
        knee.put("knee_floor_msg_s", r.floor());
        // the same bar under its name before the 10 % margin (issue 17), when it was the interval's lower bound
        // only; kept for readers of older summaries for one release, then removed
        knee.put("within_peak_interval_from_msg_s", r.floor());
        knee.put("rule", r.kneeRule());
        s.put("knee", knee);
        s.put("fit", fit(r.fit()));
        s.put("drifted", r.drifted());
        s.put("optimal_in_flight", r.peak().inFlight());
        s.put("a6_interval_mean", r.a6IntervalMean());
        s.put("bounds", List.of(r.lo(), r.hi()));
        s.put("fell_at_exponent", r.fell() ? r.lastExponent() : null);
        s.put("stop_reason", r.stopReason());
        s.put("probes_taken", r.probes().size());
        s.put("remeasured", r.remeasured());
        List<Map<String, Object>> pts = new ArrayList<>();
        for (FSearch.Point p : r.points()) {
            pts.add(point(p));
        }
        s.put("points", pts);
        return s;
    }

    /** The saturation curve the knee was read off (issue 17), or null when none was usable. */
    private static Map<String, Object> fit(io.msgscope.analysis.stats.SaturationFit f) {
        if (f == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("model", "X(F) = plateau * F / (F^k + crossover^k)^(1/k), least absolute deviations on log X");
        m.put("plateau_msg_s", f.plateau());
        m.put("crossover_in_flight", f.crossover());
        m.put("sharpness_k", f.sharpness());
        m.put("median_error_percent", f.typicalErrorPercent());
        m.put("points", f.points());
        m.put("knee_reach", 1 - FSearch.KNEE_MARGIN);
        m.put("knee_in_flight_fitted", f.kneeAt(1 - FSearch.KNEE_MARGIN));
        m.put("note", "crossover_in_flight: where the rising asymptote (throughput in proportion to F) meets the "
                + "plateau, the most repeatable figure of the search; the knee is where the curve reaches knee_reach "
                + "of the plateau");
        return m;
    }

    private static Map<String, Object> probe(ThroughputStats st, String phase) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("in_flight", st.inFlight());
        m.put("phase", phase);
        m.putAll(ThroughputStats.samplesJson(st.samples()));
        m.put("steady", st.samples().stationarity().steady());
        m.put("rate_over_sampling_msg_s", finite(st.rateOverSampling()));
        m.put("mean_in_flight_littles_law", finite(st.littleInFlight()));
        m.put("mean_in_flight_at_arrivals", finite(st.countedInFlight()));
        Histogram h = st.latency();
        boolean lat = h != null && h.getTotalCount() > 0;
        m.put("latency_p50_us", lat ? h.getValueAtPercentile(50) / 1e3 : null);
        m.put("latency_p99_us", lat ? h.getValueAtPercentile(99) / 1e3 : null);
        return m;
    }

    private static Map<String, Object> result(ThroughputRun.Outcome o, int size) {
        ThroughputStats fs = o.finalStats;
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("in_flight", o.finalResult.getInFlight());
        r.putAll(ThroughputStats.samplesJson(fs.samples()));
        r.put("median_bytes_s", finite(fs.median() * size));
        r.put("stationarity", ThroughputStats.stationarityJson(fs.samples().stationarity()));
        r.putAll(fs.periodJson());
        r.put("messages_sent", o.finalResult.getSent());
        r.put("messages_received", o.finalResult.getReceived());
        r.put("counters", new java.util.TreeMap<>(o.finalResult.getCountersMap())); // by name, whatever the wire order
        Histogram h = fs.latency();
        if (h != null && h.getTotalCount() > 0) {
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("source", "epoch send time in the header vs receive time, one process (M1, Q1); "
                    + "messages from the end of the warm-up to the last sample");
            l.put("count", h.getTotalCount());
            l.put("latency_min_us", h.getMinValue() / 1e3);
            l.put("latency_max_us", h.getMaxValue() / 1e3);
            l.put("latency_mean_us", h.getMean() / 1e3);
            l.put("latency_p50_us", h.getValueAtPercentile(50) / 1e3);
            l.put("latency_p95_us", h.getValueAtPercentile(95) / 1e3);
            l.put("latency_p99_us", h.getValueAtPercentile(99) / 1e3);
            l.put("latency_p999_us", h.getValueAtPercentile(99.9) / 1e3);
            r.put("latency", l);
        }
        long received = o.finalResult.getReceived();
        r.put("client_process_cpu_ns", o.finalResult.getProcessCpuNs());
        r.put("client_cpu_ns_per_message", received > 0 ? (double) o.finalResult.getProcessCpuNs() / received : null);
        r.put("client_cpu_note", "client_process_cpu_ns covers the whole probe (warm-up, sampling, drain) over "
                + "every message received; cpu above covers the sampling period only");
        r.put("producer_allocated_bytes", o.finalResult.getHotThreadAllocatedBytes());
        r.put("sample_values_msg_s", o.finalResult.getSamplesList());
        return r;
    }

    /** A point of the search for summary.json. */
    static Map<String, Object> point(FSearch.Point p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("in_flight", p.inFlight());
        m.putAll(ThroughputStats.samplesJson(p.summary()));
        m.put("measurements", p.measurements());
        Histogram h = p.latency();
        boolean lat = h != null && h.getTotalCount() > 0;
        m.put("latency_p50_us", lat ? h.getValueAtPercentile(50) / 1e3 : null);
        m.put("latency_p99_us", lat ? h.getValueAtPercentile(99) / 1e3 : null);
        m.put("latency_mean_us", lat ? h.getMean() / 1e3 : null);
        m.put("mean_in_flight_littles_law", lat ? finite(p.median() * h.getMean() / 1e9) : null);
        m.put("mean_in_flight_at_arrivals", finite(p.meanInFlight()));
        return m;
    }

    /**
     * latency.hlog: one interval per probe (tagged with its F and the search's step, e.g. {@code F1000-golden}) and
     * the final measurement ({@code final-F...}), each spanning the probe's sampling period and ending when its answer
     * came. Returns the intervals written; none (and no file) when no probe measured a latency.
     */
    static int writeHlog(Path file, ThroughputRun.Outcome o) throws IOException {
        List<ThroughputStats> stats = new ArrayList<>(o.probes);
        List<String> tags = new ArrayList<>();
        List<Long> ends = new ArrayList<>(o.answeredEpochMs);
        for (int i = 0; i < o.probes.size(); i++) {
            tags.add("F" + o.probes.get(i).inFlight() + "-" + o.phases.get(i));
        }
        if (o.finalStats != null) {
            stats.add(o.finalStats);
            tags.add("final-F" + o.finalStats.inFlight());
            ends.add(o.finalAnsweredEpochMs);
        }
        if (stats.isEmpty() || ends.size() != stats.size()) {
            return 0;
        }
        long first = ends.get(0) - stats.get(0).raw().getSamplingNs() / 1_000_000L;
        try (HdrOutput.IntervalLog log = new HdrOutput.IntervalLog(file, "msgscope throughput latency, values in ns, "
                + "one interval per probe of the F search and one for the final measurement, over its sampling period",
                first)) {
            for (int i = 0; i < stats.size(); i++) {
                Histogram h = stats.get(i).latency();
                h = h == null ? io.msgscope.core.LatencyRange.histogram() : h.copy(); // append stamps times and tag
                long end = ends.get(i);
                log.append(h, end - stats.get(i).raw().getSamplingNs() / 1_000_000L, end, tags.get(i));
            }
            return log.intervals();
        }
    }

    /** search.dat (one row per probe) and search.gp (median against F, the peak's interval shaded). */
    static void writeSearch(Path dir, ThroughputRun.Outcome o, List<String> files) throws IOException {
        if (o.probes.isEmpty()) {
            return;
        }
        StringBuilder sb = new StringBuilder("# in_flight median_msg_s mean_msg_s stddev_msg_s samples phase "
                + "ci_low_msg_s ci_high_msg_s latency_p50_us mean_in_flight\n"
                + "# mean_in_flight: Little's law, rate over the sampling period x mean latency\n"
                + "# one row per probe in the order taken; ci = distribution-free 95% interval of the median\n");
        for (int i = 0; i < o.probes.size(); i++) {
            ThroughputStats st = o.probes.get(i);
            io.msgscope.analysis.stats.SampleSummary p = st.samples();
            Histogram h = st.latency();
            sb.append(String.format(Locale.ROOT, "%d %.1f %.1f %.1f %d %s %.1f %.1f %s %s%n", st.inFlight(), p.median(),
                    p.mean(), p.stddev(), p.n(), o.phases.get(i), p.medianInterval().lower(), p.medianInterval().upper(),
                    h == null || h.getTotalCount() == 0 ? "NaN"
                            : String.format(Locale.ROOT, "%.1f", h.getValueAtPercentile(50) / 1e3),
                    Double.isFinite(st.littleInFlight()) ? String.format(Locale.ROOT, "%.1f", st.littleInFlight())
                            : "NaN"));
        }
        Files.writeString(dir.resolve("search.dat"), sb.toString(), StandardCharsets.US_ASCII);
        String marks = "";
        if (o.search != null) {
            marks = String.format(Locale.ROOT, """
                    set label 1 "peak" at first %d, first %.1f point pt 6 ps 2 offset 1,1
                    set label 2 "knee" at first %d, first %.1f point pt 8 ps 2 offset 1,-1
                    set object 1 rectangle from graph 0, first %.1f to graph 1, first %.1f fillcolor rgb "#dddddd" fillstyle solid 0.4 noborder behind
                    """, o.search.peak().inFlight(), o.search.peak().median(), o.search.knee().inFlight(),
                    o.search.knee().median(), o.search.peak().interval().lower(), o.search.peak().interval().upper());
        }
        String gp = """
                # msgscope: median throughput against the in-flight count F (A6), log x axis
                if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1200,700 } else { set terminal png size 1200,700 }
                set output "search.png"
                set title "Throughput against messages in flight (F search; grey band: the peak's 95% interval)"
                set xlabel "F (messages in flight)"
                set ylabel "median throughput [msg/s]"
                set logscale x
                set grid
                set key top left
                """ + marks + """
                plot "search.dat" using 1:2:7:8 with yerrorbars title "median per probe (bar: 95% interval)", \
                     "search.dat" using 1:2 smooth unique with lines title ""
                """;
        Files.writeString(dir.resolve("search.gp"), gp, StandardCharsets.US_ASCII);
        files.add("search.dat");
        files.add("search.gp");
    }

    static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }
}
