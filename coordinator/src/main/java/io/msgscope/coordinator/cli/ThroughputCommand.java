package io.msgscope.coordinator.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.msgscope.analysis.output.HumanFormat;
import io.msgscope.coordinator.AgentEndpoint;
import io.msgscope.coordinator.CorePlan;
import io.msgscope.coordinator.FSearch;
import io.msgscope.coordinator.LocalAgents;
import io.msgscope.coordinator.ThroughputRun;
import io.msgscope.coordinator.ThroughputSamples;
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
        description = {"Flow-controlled throughput (seed 000): one client with a publishing and a consuming",
                "connection keeps F messages in flight; after ~2F messages, throughput samples over groups",
                "spanning >= the threshold; median, mean, standard deviation. F is searched for by default (A6)."},
        footer = {"", "Exit codes: 0 ok, 1 run failed (results still written), 2 bad usage."})
public final class ThroughputCommand implements Callable<Integer> {
    @Spec
    CommandSpec commandSpec;

    @Mixin
    DriverOptions driverOptions;

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
            description = "Measure only after X*F messages were received (A7) (default: ${DEFAULT-VALUE}).")
    double skipFactor;

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
    record Checked(long inFlight, RunSpec spec, Driver driver) {
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
        return new Checked(f, spec, drv);
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
        ThroughputRun.Settings settings = new ThroughputRun.Settings(samples, (long) (thresholdMs * 1e6),
                skipFactor, maxExponent);
        ThroughputRun.Outcome o;
        Map<Role, AgentEndpoint> remote = remoteAgents.parse();
        CorePlan cores = pinOption.plan(drv, driverOptions, remote);
        io.msgscope.control.ControlCredentials credentials = remoteAgents.credentials();
        try (LocalAgents agents = new LocalAgents()) {
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
                return finish(stdout, dir, spec, f, o, startedAt);
            }
            stdout.println(f == 0 ? "searching for the optimal in-flight count F (A6): F = 1, 10, 100, ... then bisection"
                    : "measuring at F = " + f);
            stdout.flush();
            o = new ThroughputRun(spec, settings, cores, System.err).credentials(credentials).run(flow, relay, f, p -> {
                stdout.printf(Locale.ROOT, "  F = %-10s median %s msg/s (mean %s, sd %s, %d samples)%n",
                        HumanFormat.count(p.inFlight()), HumanFormat.rate(p.median()), HumanFormat.rate(p.mean()),
                        HumanFormat.rate(p.stddev()), p.samples());
                stdout.flush();
            });
        }
        return finish(stdout, dir, spec, f, o, startedAt);
    }

    private int finish(PrintWriter stdout, Path dir, RunSpec spec, long requested, ThroughputRun.Outcome o,
                       String startedAt) throws IOException {
        List<String> files = new ArrayList<>();
        writeSearch(dir, o, files);
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
        settings.put("max_exponent", maxExponent);
        settings.put("driver_options", io.msgscope.core.Secrets.options(spec.driverOptions()));
        root.put("settings", settings);
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
        if (o.search != null) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("optimal_in_flight", o.search.optimal());
            s.put("bounds", List.of(o.search.lo(), o.search.hi()));
            s.put("fell_at_exponent", o.search.fell() ? o.search.lastExponent() : null);
            s.put("method", "step F = 10^e until the median falls; bounds [10^(last-2), 10^last]; bisect keeping the "
                    + "midpoint and the better endpoint until the interval < 1% of its mean; F = that mean (A6)");
            root.put("search", s);
        }
        List<Map<String, Object>> probes = new ArrayList<>();
        for (FSearch.Probe p : o.probes) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("in_flight", p.inFlight());
            m.put("phase", p.phase());
            m.put("median_msg_s", p.median());
            m.put("mean_msg_s", p.mean());
            m.put("stddev_msg_s", p.stddev());
            m.put("samples", p.samples());
            probes.add(m);
        }
        root.put("probes", probes);
        if (o.finalResult != null) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("in_flight", o.finalResult.getInFlight());
            r.put("median_msg_s", finite(o.finalStats.median()));
            r.put("mean_msg_s", finite(o.finalStats.mean()));
            r.put("stddev_msg_s", finite(o.finalStats.stddev()));
            r.put("median_bytes_s", finite(o.finalStats.median() * size));
            r.put("samples", o.finalStats.n());
            r.put("messages_sent", o.finalResult.getSent());
            r.put("messages_received", o.finalResult.getReceived());
            r.put("counters", o.finalResult.getCountersMap());
            org.HdrHistogram.Histogram h = latency(o.finalResult);
            if (h != null && h.getTotalCount() > 0) {
                Map<String, Object> l = new LinkedHashMap<>();
                l.put("source", "epoch send time in the header vs receive time, one process (M1, Q1); "
                        + "messages after the skipped 2F");
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
            r.put("producer_allocated_bytes", o.finalResult.getHotThreadAllocatedBytes());
            r.put("sample_values_msg_s", o.finalResult.getSamplesList());
            root.put("result", r);
            files.addAll(ThroughputSamples.write(dir, o.finalResult.getSamplesList(), o.finalStats.median()));
        }
        files.add("summary.json");
        root.put("files", files);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("summary.json").toFile(), root);
        if (o.finalStats != null && o.finalStats.n() > 0) {
            stdout.printf(Locale.ROOT, "%s messages of %d B, %s in flight: median %s msg/s (%s B/s), mean %s, sd %s over %d samples%n",
                    spec.driver(), size, HumanFormat.count(o.finalResult.getInFlight()),
                    HumanFormat.rate(o.finalStats.median()), HumanFormat.rate(o.finalStats.median() * size),
                    HumanFormat.rate(o.finalStats.mean()), HumanFormat.rate(o.finalStats.stddev()), o.finalStats.n());
        }
        org.HdrHistogram.Histogram lat = o.finalResult == null ? null : latency(o.finalResult);
        if (lat != null && lat.getTotalCount() > 0) {
            stdout.println("latency at that F: p50 " + HumanFormat.duration(lat.getValueAtPercentile(50)) + ", p99 "
                    + HumanFormat.duration(lat.getValueAtPercentile(99)) + "; client CPU "
                    + HumanFormat.duration((double) o.finalResult.getProcessCpuNs()
                    / Math.max(1, o.finalResult.getReceived())) + " per message");
        }
        for (String w : o.warnings) {
            stdout.println("warning: " + w);
        }
        stdout.println((o.failure != null ? "FAILED: " + o.failure + "; " : "") + "results in " + dir);
        stdout.flush();
        if (plotOption.plot && hasScripts(dir)) { // search.gp with a search, samples.gp with --in-flight
            PlotCommand.render(dir, stdout);
        }
        if (o.failure != null) {
            return o.usageFailure ? ExitCodes.USAGE : ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    private static boolean hasScripts(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(".gp"));
        }
    }

    private static void writeSearch(Path dir, ThroughputRun.Outcome o, List<String> files) throws IOException {
        if (o.probes.isEmpty()) {
            return;
        }
        StringBuilder sb = new StringBuilder("# in_flight median_msg_s mean_msg_s stddev_msg_s samples phase\n");
        for (FSearch.Probe p : o.probes) {
            sb.append(String.format(Locale.ROOT, "%d %.1f %.1f %.1f %d %s%n", p.inFlight(), p.median(), p.mean(),
                    p.stddev(), p.samples(), p.phase()));
        }
        Files.writeString(dir.resolve("search.dat"), sb.toString(), StandardCharsets.US_ASCII);
        String gp = """
                # msgscope: median throughput against the in-flight count F (A6), log x axis
                if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1200,700 } else { set terminal png size 1200,700 }
                set output "search.png"
                set title "Throughput against messages in flight (F search)"
                set xlabel "F (messages in flight)"
                set ylabel "median throughput [msg/s]"
                set logscale x
                set grid
                set key top left
                plot "search.dat" using 1:2:4 with yerrorbars title "median (error bar: sd)", \\
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

    private static org.HdrHistogram.Histogram latency(io.msgscope.proto.FlowResult r) {
        if (r.getLatencyHistogram().isEmpty()) {
            return null;
        }
        try {
            return org.HdrHistogram.Histogram.decodeFromCompressedByteBuffer(
                    r.getLatencyHistogram().asReadOnlyByteBuffer(), 0);
        } catch (java.util.zip.DataFormatException e) {
            return null;
        }
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }
}
