package io.msgscope.coordinator.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.msgscope.analysis.output.HdrOutput;
import io.msgscope.analysis.output.HumanFormat;
import io.msgscope.coordinator.AgentEndpoint;
import io.msgscope.coordinator.CorePlan;
import io.msgscope.coordinator.FSearch;
import io.msgscope.coordinator.ResultsFolder;
import io.msgscope.coordinator.LiveMetrics;
import io.msgscope.coordinator.LocalAgents;
import io.msgscope.coordinator.ThroughputRun;
import io.msgscope.coordinator.ThroughputSamples;
import io.msgscope.coordinator.ThroughputStats;
import io.msgscope.core.EnvironmentInfo;
import io.msgscope.core.Padding;
import io.msgscope.core.RunSpec;
import io.msgscope.core.SpecException;
import io.msgscope.core.Version;
import io.msgscope.core.driver.Driver;
import io.msgscope.proto.Role;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code msgscope throughput}: seed 000's flow-controlled throughput (A5-A7) with the automatic
 * search for the in-flight count F (A6).
 */
@Command(name = "throughput", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Flow-controlled throughput (seed 000): one client with a publishing and a consuming connection "
                               + "keeps F messages in flight; after a warm-up by time and by messages (~2F), throughput samples "
                               + "over groups spanning >= the threshold; median with its 95%% interval, mean, standard deviation, "
                               + "a stationarity check. F is searched for by default (A6): the peak and the knee."},
        footer = {"",
                  "Exit codes: 0 ok, 1 run failed (results still written), 2 bad usage."})
public final class ThroughputCommand implements Callable<Integer> {
    @Spec
    CommandSpec commandSpec;

    @Mixin
    MetricsOption metricsOption = new MetricsOption();

    @Mixin
    DriverOptions driverOptions;

    @picocli.CommandLine.Mixin
    SpecOption specOption = new SpecOption();

    @Mixin
    RemoteAgents remoteAgents;

    @Option(names = "--in-flight", paramLabel = "auto|F", defaultValue = "auto",
            description = "Messages kept in flight; auto = search for the F with the highest median throughput "
                    + "(A6) (default: ${DEFAULT-VALUE}).")
    String inFlight;

    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "64",
            description = "Bytes per message, 32-byte header included, zero-padded (A3) (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--samples", paramLabel = "N", defaultValue = "100",
            description = "Throughput samples per probe (A7) (default: ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--threshold", paramLabel = "MS", defaultValue = "10",
            description = "Each sample spans at least this long (A7) (default: ${DEFAULT-VALUE}).")
    double thresholdMs;

    @Option(names = "--skip-factor", paramLabel = "X", defaultValue = "2",
            description = "Every probe samples only after X*F messages were received (A7) (default: ${DEFAULT-VALUE}).")
    double skipFactor;

    @Option(names = "--probe-warmup-time", paramLabel = "MS", defaultValue = "200",
            description = "... and only after this long since the probe started (default: ${DEFAULT-VALUE}).")
    double probeWarmupMs;

    @Option(names = "--warmup-time", paramLabel = "MS", defaultValue = "3000",
            description = "Before the first probe, a discarded warm-up at least this long (JIT, connections, the "
                    + "broker's queue), at F = the given F or " + ThroughputRun.WARMUP_IN_FLIGHT
                    + " (default: ${DEFAULT-VALUE}).")
    double warmupMs;

    @Option(names = "--warmup-messages", paramLabel = "N", defaultValue = "20000",
            description = "... and of at least this many messages; 0 with --warmup-time 0: none (default: ${DEFAULT-VALUE}).")
    long warmupMessages;

    @Option(names = "--pick", paramLabel = "knee|peak", defaultValue = "knee",
            description = "Which F of the search the final measurement uses: the knee (the smallest F whose median is "
                    + "within the peak's 95%% interval: the same throughput within the noise, at the least latency) "
                    + "or the peak (the highest median) (default: ${DEFAULT-VALUE}).")
    String pick;

    @Option(names = "--remeasure", paramLabel = "N", defaultValue = "2",
            description = "The search measures two F whose intervals overlap again, pooled, up to N times before it "
                    + "calls them a tie (default: ${DEFAULT-VALUE}).")
    int remeasure;

    @Option(names = "--max-probes", paramLabel = "N", defaultValue = "40",
            description = "The most probes the search may take (default: ${DEFAULT-VALUE}).")
    int maxProbes;

    @Option(names = "--max-exponent", paramLabel = "E", defaultValue = "5",
            description = "The search steps F = 1, 10, ... up to 10^E (default: ${DEFAULT-VALUE}).")
    int maxExponent;

    @Option(names = "--padding", paramLabel = "zeros|random", defaultValue = "zeros",
            description = "Payload after the header (R2) (default: ${DEFAULT-VALUE}).")
    String padding;

    @Mixin
    PinOption pinOption;

    @Mixin
    OutputOptions output;

    @Mixin
    PlotOption plotOption;

    /** What the usage checks of {@code throughput} produce; {@code inFlight} 0 = search (A6). */
    record Checked(long inFlight, RunSpec spec, Driver driver, ThroughputRun.Pick pick) {
    }

    /**
     * Every usage check of {@code throughput}, without starting anything or writing a file; {@code sweep}
     * runs it on each point's arguments before the first point runs. Throws {@link SpecException}.
     */
    Checked check() {
        long f = parseInFlight();
        if (samples < 1 || samples > 100_000) {
            throw new SpecException("--samples", "must be between 1 and 100000, got " + samples);
        }
        if (!(thresholdMs >= 0.01) || thresholdMs > 60_000) {
            throw new SpecException("--threshold", "must be between 0.01 and 60000 ms, got " + thresholdMs);
        }
        if (!(skipFactor >= 0) || skipFactor > 1000) {
            throw new SpecException("--skip-factor", "must be between 0 and 1000, got " + skipFactor);
        }
        if (maxExponent < 1 || maxExponent > 8) {
            throw new SpecException("--max-exponent", "must be between 1 and 8, got " + maxExponent);
        }
        if (!(probeWarmupMs >= 0) || probeWarmupMs > 600_000) {
            throw new SpecException("--probe-warmup-time", "must be between 0 and 600000 ms, got " + probeWarmupMs);
        }
        if (!(warmupMs >= 0) || warmupMs > 3_600_000) {
            throw new SpecException("--warmup-time", "must be between 0 and 3600000 ms, got " + warmupMs);
        }
        if (warmupMessages < 0 || warmupMessages > 1_000_000_000L) {
            throw new SpecException("--warmup-messages", "must be between 0 and 1000000000, got " + warmupMessages);
        }
        if (remeasure < 0 || remeasure > 10) {
            throw new SpecException("--remeasure", "must be between 0 and 10, got " + remeasure);
        }
        if (maxProbes < maxExponent + 1 || maxProbes > 1000) {
            throw new SpecException("--max-probes", "must be between --max-exponent + 1 (" + (maxExponent + 1)
                    + ", one probe per step) and 1000, got " + maxProbes);
        }
        ThroughputRun.Pick pk;
        try {
            pk = ThroughputRun.Pick.valueOf(pick.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new SpecException("--pick", "must be knee or peak, got '" + pick + "'");
        }
        Padding pad;
        try {
            pad = Padding.valueOf(padding.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new SpecException("--padding", "must be zeros or random, got '" + padding + "'");
        }
        Driver drv = driverOptions.resolve(size);
        Map<Role, AgentEndpoint> remote = remoteAgents.parse();
        RunSpec spec = RunSpec.builder().count(2).window(1).size(size).padding(pad)
                .pin(pinOption.pinned(drv, driverOptions, remote))
                .driver(driverOptions.driver).uri(driverOptions.uri()).driverOptions(driverOptions.options()).build();
        return new Checked(f, spec, drv, pk);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = commandSpec.commandLine().getOut();
        Checked checked = check();
        long f = checked.inFlight();
        RunSpec spec = checked.spec();
        Driver drv = checked.driver();
        Path dir = output.prepare();
        String startedAt = Instant.now().toString();
        ResultsFolder folder = ResultsFolder.reserveOrSay(dir, "throughput", dir.getFileName().toString(), startedAt,
                stdout);
        if (folder == null) {
            return ExitCodes.FAILED;
        }
        ThroughputRun.Settings settings = new ThroughputRun.Settings(samples, (long) (thresholdMs * 1e6),
                skipFactor, maxExponent, (long) (warmupMs * 1e6), warmupMessages, (long) (probeWarmupMs * 1e6),
                remeasure, maxProbes, checked.pick());
        ThroughputRun.Outcome o;
        Map<Role, AgentEndpoint> remote = remoteAgents.parse();
        CorePlan cores = pinOption.plan(drv, driverOptions, remote);
        io.msgscope.control.ControlCredentials credentials = remoteAgents.credentials();
        LiveMetrics metrics = metricsOption.start("throughput", dir.getFileName().toString(), drv.name(), line -> {
            System.err.println(line);
            System.err.flush();
        });
        if (metrics != null) {
            metrics.phase(f == 0 ? "search" : "measurement");
        }
        try (LiveMetrics served = metrics; LocalAgents agents = new LocalAgents()) {
            AgentEndpoint relay = null;
            AgentEndpoint flow;
            try {
                List<String> jvm = RunCommand.agentJvmArgs(512);
                relay = !drv.usesRelay(driverOptions.options()) ? null : remote.containsKey(Role.RELAY) ? remote.get(Role.RELAY)
                        : agents.start(Role.RELAY, dir, jvm, 30_000);
                flow = remote.containsKey(Role.FLOW) ? remote.get(Role.FLOW) : agents.start(Role.FLOW, dir, jvm, 30_000);
            } catch (IOException e) {
                o = new ThroughputRun.Outcome();
                o.failure = "cannot start the agents: " + e.getMessage();
                return finish(stdout, dir, spec, f, o, startedAt, folder);
            }
            if (warmupMs > 0 || warmupMessages > 0) {
                stdout.printf(Locale.ROOT, "warming up (discarded): at least %s ms and %s messages at F = %s%n",
                        HumanFormat.count(Math.round(warmupMs)), HumanFormat.count(warmupMessages),
                        HumanFormat.count(f > 0 ? f : ThroughputRun.WARMUP_IN_FLIGHT));
            }
            stdout.println(f == 0 ? "searching for F (A6): steps F = 1, 10, 100, ..., golden-section narrowing, "
                    + "then the knee; overlapping probes measured again" : "measuring at F = " + f);
            stdout.flush();
            final long searchStart = System.nanoTime();
            final int[] probes = {0};
            // progress (issue 18): each probe as it ends, numbered against the search's budget, with the time so far
            o = new ThroughputRun(spec, settings, cores, System.err).credentials(credentials).run(flow, relay, f, p -> {
                io.msgscope.analysis.stats.SampleSummary s = p.summary();
                probes[0]++;
                if (served != null) {
                    served.interval(s.median(), p.latency()); // the last probe's median and latency
                }
                stdout.printf(Locale.ROOT, "  probe %d%s  F = %-10s %-6s median %s msg/s [95%%: %s, %s] (mean %s, sd %s, "
                                + "%d samples)%s  %.0f s%n", probes[0], f == 0 ? "/" + maxProbes + " max" : "",
                        HumanFormat.count(p.inFlight()), p.phase(), HumanFormat.rate(s.median()),
                        HumanFormat.rate(s.medianInterval().lower()), HumanFormat.rate(s.medianInterval().upper()),
                        HumanFormat.rate(s.mean()), HumanFormat.rate(s.stddev()), s.n(),
                        s.stationarity().steady() ? "" : " not steady", (System.nanoTime() - searchStart) / 1e9);
                stdout.flush();
            });
        }
        return finish(stdout, dir, spec, f, o, startedAt, folder);
    }

    private int finish(PrintWriter stdout, Path dir, RunSpec spec, long requested, ThroughputRun.Outcome o,
                       String startedAt, ResultsFolder folder) throws IOException {
        try {
            return writeResults(stdout, dir, spec, requested, o, startedAt, folder);
        } catch (ResultsFolder.WriteFailed e) {
            folder.sayFailed(e, Map.of("measurement_failure", String.valueOf(o.failure)), stdout);
            return ExitCodes.FAILED;
        }
    }

    private int writeResults(PrintWriter stdout, Path dir, RunSpec spec, long requested, ThroughputRun.Outcome o,
                             String startedAt, ResultsFolder folder) throws IOException {
        List<String> files = new ArrayList<>();
        folder.write("the F search files", () -> writeSearch(dir, o, files));
        folder.write(HdrOutput.HLOG_FILE_NAME, () -> {
            if (writeHlog(dir.resolve(HdrOutput.HLOG_FILE_NAME), o) > 0) {
                files.add(HdrOutput.HLOG_FILE_NAME);
            }
        });
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("tool", Map.of("name", "msgscope", "version", Version.TOOL));
        root.put("mode", "throughput");
        root.put("driver", spec.driver());
        root.put("uri", spec.uriForDisplay());
        root.put("destination", o.destination);
        root.put("started_at", startedAt);
        root.put("status", o.failure == null ? "ok" : "failed");
        root.put("failure_reason", o.failure);
        root.put("warnings", o.warnings);
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("size", size);
        settings.put("padding", padding);
        settings.put("in_flight", requested == 0 ? "auto" : requested);
        settings.put("samples", samples);
        settings.put("threshold_ms", thresholdMs);
        settings.put("skip_factor", skipFactor);
        settings.put("probe_warmup_time_ms", probeWarmupMs);
        settings.put("warmup_time_ms", warmupMs);
        settings.put("warmup_messages", warmupMessages);
        settings.put("max_exponent", maxExponent);
        settings.put("pick", pick.trim().toLowerCase(Locale.ROOT));
        settings.put("remeasure", remeasure);
        settings.put("max_probes", maxProbes);
        settings.put("driver_options", io.msgscope.core.Secrets.options(spec.driverOptions()));
        root.put("settings", settings);
        // the envelope every mode shares (issue 15): the spec as given and its hash; "settings" stays for readers of
        // earlier results
        Map<String, Object> specMap = new LinkedHashMap<>();
        specMap.put("driver", spec.driver());
        specMap.put("uri", spec.uriForDisplay());
        specMap.putAll(settings);
        root.put("spec", specMap);
        root.put("spec_hash", io.msgscope.coordinator.SummaryJson.specHash(specMap));
        Map<String, Object> env = new LinkedHashMap<>();
        EnvironmentInfo e = EnvironmentInfo.current();
        env.put("host", e.hostname());
        env.put("jvm", e.jvm());
        env.put("os", e.os());
        env.put("cpu_model", e.cpuModel());
        env.put("logical_cores", e.logicalCores());
        if (o.flowAgent != null) {
            env.put("flow_agent_affinity", o.flowAgent.affinity().getObtained());
        }
        root.put("environment", env);
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
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("method", o.searchMethod);
            s.put("pick", pick.trim().toLowerCase(Locale.ROOT));
            s.put("chosen_in_flight", (settingsPick() == ThroughputRun.Pick.KNEE ? o.search.knee() : o.search.peak())
                    .inFlight());
            Map<String, Object> peak = point(o.search.peak());
            peak.put("throughput", "the confirmation: fresh probes after the peak was chosen (median_msg_s etc. "
                    + "above pool the probes that chose it)");
            peak.put("confirmation", ThroughputStats.samplesJson(o.search.peakThroughput()));
            s.put("peak", peak);
            Map<String, Object> knee = point(o.search.knee());
            knee.put("within_peak_interval_from_msg_s", o.search.floor());
            s.put("knee", knee);
            s.put("drifted", o.search.drifted());
            s.put("optimal_in_flight", o.search.peak().inFlight());
            s.put("a6_interval_mean", o.search.a6IntervalMean());
            s.put("bounds", List.of(o.search.lo(), o.search.hi()));
            s.put("fell_at_exponent", o.search.fell() ? o.search.lastExponent() : null);
            s.put("stop_reason", o.search.stopReason());
            s.put("probes_taken", o.search.probes().size());
            s.put("remeasured", o.search.remeasured());
            List<Map<String, Object>> pts = new ArrayList<>();
            for (FSearch.Point p : o.search.points()) {
                pts.add(point(p));
            }
            s.put("points", pts);
            root.put("search", s);
        }
        List<Map<String, Object>> probes = new ArrayList<>();
        for (int i = 0; i < o.probes.size(); i++) {
            ThroughputStats st = o.probes.get(i);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("in_flight", st.inFlight());
            m.put("phase", o.phases.get(i));
            m.putAll(ThroughputStats.samplesJson(st.samples()));
            m.put("steady", st.samples().stationarity().steady());
            m.put("rate_over_sampling_msg_s", finite(st.rateOverSampling()));
            m.put("mean_in_flight_littles_law", finite(st.littleInFlight()));
            m.put("mean_in_flight_at_arrivals", finite(st.countedInFlight()));
            org.HdrHistogram.Histogram h = st.latency();
            m.put("latency_p50_us", h == null || h.getTotalCount() == 0 ? null : h.getValueAtPercentile(50) / 1e3);
            m.put("latency_p99_us", h == null || h.getTotalCount() == 0 ? null : h.getValueAtPercentile(99) / 1e3);
            probes.add(m);
        }
        root.put("probes", probes);
        if (o.finalResult != null) {
            ThroughputStats fs = o.finalStats;
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("in_flight", o.finalResult.getInFlight());
            r.putAll(ThroughputStats.samplesJson(fs.samples()));
            r.put("median_bytes_s", finite(fs.median() * size));
            r.put("stationarity", ThroughputStats.stationarityJson(fs.samples().stationarity()));
            r.putAll(fs.periodJson());
            r.put("messages_sent", o.finalResult.getSent());
            r.put("messages_received", o.finalResult.getReceived());
            r.put("counters", o.finalResult.getCountersMap());
            org.HdrHistogram.Histogram h = fs.latency();
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
            root.put("result", r);
            folder.write("the throughput sample files",
                    () -> files.addAll(ThroughputSamples.write(dir, o.finalResult.getSamplesList(), fs.samples())));
        }
        root.put("notes", o.notes);
        files.add("summary.json");
        root.put("files", files);
        folder.commit(root);
        if (o.search != null) {
            io.msgscope.analysis.stats.SampleSummary pc = o.search.peakThroughput();
            stdout.println("peak: " + describe(o.search.peak()) + String.format(Locale.ROOT,
                    "; confirmed by fresh probes: median %s msg/s [95%%: %s, %s]", HumanFormat.rate(pc.median()),
                    HumanFormat.rate(pc.medianInterval().lower()), HumanFormat.rate(pc.medianInterval().upper()))
                    + "\nknee: " + (o.search.knee() == o.search.peak() ? "the peak (no smaller F within its interval)"
                    : describe(o.search.knee()))
                    + "\nthe final measurement uses the " + (settingsPick() == ThroughputRun.Pick.KNEE ? "knee" : "peak")
                    + " (--pick); the search stopped: " + o.search.stopReason());
        }
        if (o.finalStats != null && o.finalStats.n() > 0) {
            ThroughputStats fs = o.finalStats;
            io.msgscope.analysis.stats.MedianInterval ci = fs.samples().medianInterval();
            stdout.printf(Locale.ROOT, "%s messages of %d B, F = %s in flight at most (on average %s by Little's law, %s at arrivals): "
                            + "median %s msg/s [95%% interval %s, %s] (%s B/s), mean %s, sd %s over %d samples; "
                            + "%s msg/s over the sampling period%n",
                    spec.driver(), size, HumanFormat.count(o.finalResult.getInFlight()), oneDecimal(fs.littleInFlight()),
                    oneDecimal(fs.countedInFlight()), HumanFormat.rate(fs.median()), HumanFormat.rate(ci.lower()),
                    HumanFormat.rate(ci.upper()), HumanFormat.rate(fs.median() * size),
                    HumanFormat.rate(fs.samples().mean()), HumanFormat.rate(fs.samples().stddev()), fs.n(),
                    HumanFormat.rate(fs.rateOverSampling()));
        }
        org.HdrHistogram.Histogram lat = o.finalStats == null ? null : o.finalStats.latency();
        if (lat != null && lat.getTotalCount() > 0) {
            long sampled = o.finalResult.getSampledMessages();
            long samplingNs = o.finalResult.getSamplingNs();
            long pcpu = o.finalResult.getSamplingProcessCpuNs();
            stdout.println("latency at that F: p50 " + HumanFormat.duration(lat.getValueAtPercentile(50)) + ", p99 "
                    + HumanFormat.duration(lat.getValueAtPercentile(99)) + "; client process CPU over the sampling "
                    + "period " + (pcpu >= 0 && samplingNs > 0 && sampled > 0
                    ? String.format(Locale.ROOT, "%.1f %% of a core, %s per message", 100.0 * pcpu / samplingNs,
                    HumanFormat.duration((double) pcpu / sampled)) : "n/a"));
        }
        for (String n : o.notes) {
            stdout.println("note: " + n);
        }
        for (String w : o.warnings) {
            stdout.println("warning: " + w);
        }
        stdout.println((o.failure != null ? "FAILED: " + o.failure + "; " : "") + "results in " + dir);
        stdout.flush();
        if (plotOption.plot && PlotCommand.hasScripts(dir)) { // search.gp with a search, samples.gp with --in-flight
            PlotCommand.render(dir, stdout);
        }
        if (o.failure != null) {
            return o.usageFailure ? ExitCodes.USAGE : ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    private ThroughputRun.Pick settingsPick() {
        return ThroughputRun.Pick.valueOf(pick.trim().toUpperCase(Locale.ROOT));
    }

    private static String oneDecimal(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.1f", v) : "n/a";
    }

    /** A point of the search for the console: F, median with interval, latency, in flight. */
    static String describe(FSearch.Point p) {
        io.msgscope.analysis.stats.MedianInterval ci = p.interval();
        org.HdrHistogram.Histogram h = p.latency();
        boolean lat = h != null && h.getTotalCount() > 0;
        return String.format(Locale.ROOT, "F = %s, median %s msg/s [95%%: %s, %s] over %d samples, latency %s, "
                        + "mean in flight %s (Little's law)", HumanFormat.count(p.inFlight()), HumanFormat.rate(p.median()),
                HumanFormat.rate(ci.lower()), HumanFormat.rate(ci.upper()), p.sampleCount(),
                lat ? "p50 " + HumanFormat.duration(h.getValueAtPercentile(50))
                        + ", p99 " + HumanFormat.duration(h.getValueAtPercentile(99)) : "n/a",
                lat ? oneDecimal(p.median() * h.getMean() / 1e9) : "n/a");
    }

    /** A point of the search for summary.json. */
    static Map<String, Object> point(FSearch.Point p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("in_flight", p.inFlight());
        m.putAll(ThroughputStats.samplesJson(p.summary()));
        m.put("measurements", p.measurements());
        org.HdrHistogram.Histogram h = p.latency();
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
                org.HdrHistogram.Histogram h = stats.get(i).latency();
                h = h == null ? io.msgscope.core.LatencyRange.histogram() : h.copy(); // append stamps times and tag
                long end = ends.get(i);
                log.append(h, end - stats.get(i).raw().getSamplingNs() / 1_000_000L, end, tags.get(i));
            }
            return log.intervals();
        }
    }

    private static void writeSearch(Path dir, ThroughputRun.Outcome o, List<String> files) throws IOException {
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
            org.HdrHistogram.Histogram h = st.latency();
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

    private long parseInFlight() {
        if (inFlight.equalsIgnoreCase("auto")) {
            return 0;
        }
        try {
            long f = Long.parseLong(inFlight.trim());
            if (f < 1 || f > 100_000_000) {
                throw new SpecException("--in-flight", "must be auto or between 1 and 100000000, got " + f);
            }
            return f;
        } catch (NumberFormatException e) {
            throw new SpecException("--in-flight", "must be auto or a whole number of messages, got '" + inFlight + "'");
        }
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }
}
