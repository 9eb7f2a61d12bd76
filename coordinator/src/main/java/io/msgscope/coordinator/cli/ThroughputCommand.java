package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.agents.RemoteAgents;
import io.msgscope.coordinator.agents.CorePlan;
import io.msgscope.coordinator.results.JobOutcome;
import io.msgscope.coordinator.throughput.ThroughputJob;
import io.msgscope.coordinator.results.LiveMetrics;
import io.msgscope.coordinator.agents.LocalAgents;
import io.msgscope.coordinator.throughput.ThroughputResults;
import io.msgscope.coordinator.throughput.ThroughputRun;
import io.msgscope.core.Padding;
import io.msgscope.core.Workload;
import io.msgscope.core.RunSpec;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.Driver;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code msgscope throughput}: seed 000's flow-controlled throughput (A5-A7) with the automatic
 * search for the in-flight count F (A6).
 */
@Command(name = "throughput", mixinStandardHelpOptions = true, sortOptions = false,
        defaultValueProvider = SpecDefaults.class,
        description = {"Flow-controlled throughput (seed 000): one client with a publishing and a consuming connection "
                               + "keeps F messages in flight; after a warm-up by time and by messages (~2F), throughput samples "
                               + "over groups spanning >= the threshold; median with its 95%% interval, mean, standard deviation, "
                               + "a stationarity check. F is searched for by default (A6): the peak and the knee."},
        footer = {"",
                  "Exit codes: 0 ok, 1 run failed (results still written), 2 bad usage, 130 interrupted (Ctrl-C or",
                  "SIGTERM: the probe under way stops; the finished probes and a cut final measurement are written,",
                  "status \"interrupted\"; a second Ctrl-C aborts at once)."})
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

    @Option(names = "--size", paramLabel = "BYTES", converter = SizeConverter.class,
            description = "Bytes per message (k = 1024, m = 1048576), 32-byte header included, zero-padded (A3) (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--samples", paramLabel = "N", defaultValue = "100",
            description = "Throughput samples per probe (A7) (default: ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--final-samples", paramLabel = "N|auto", defaultValue = "auto",
            description = "Samples of the final measurement at the F the search chose; auto = 10 x --samples (about 10 s "
                    + "at the defaults), so that a system whose rate shifts every second or so (RabbitMQ here) is "
                    + "measured over several shifts and repeated runs agree (issue 17). With a fixed --in-flight the one "
                    + "measurement takes --samples (default: ${DEFAULT-VALUE}).")
    String finalSamples;

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
            description = "Which F of the search the final measurement uses: the knee (the smallest F at which a "
                    + "saturation curve fitted to every probe reaches 90%% of its plateau: within 10%% of the plateau "
                    + "at the least latency) "
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

    @Option(names = "--padding", paramLabel = "zeros|random",
            description = "Payload after the header (R2) (default: ${DEFAULT-VALUE}).")
    String padding;

    @Mixin
    PinOption pinOption;

    @Mixin
    OutputOptions output;

    @Mixin
    StoreOptions store = new StoreOptions();

    @Mixin
    PlotOption plotOption;

    /** What the usage checks of {@code throughput} produce; {@code inFlight} 0 = search (A6). */
    record Checked(long inFlight, RunSpec spec, Driver driver, ThroughputRun.Pick pick) {
    }

    /**
     * Every usage check of {@code throughput}, without starting anything or writing a file; {@code sweep}
     * runs it on each point's arguments before the first point runs. Throws {@link SpecException}.
     */
    /** The final measurement's samples after a search: --final-samples, or 10 x --samples (at most 100000) for auto. */
    int finalSampleCount() {
        String v = finalSamples.trim().toLowerCase(Locale.ROOT);
        if (v.equals("auto")) {
            return (int) Math.min(100_000L, 10L * samples);
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= 1 && n <= 100_000) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new SpecException("--final-samples", "must be auto or between 1 and 100000, got '" + finalSamples + "'");
    }

    Checked check() {
        long f = parseInFlight();
        if (samples < 1 || samples > 100_000) {
            throw new SpecException("--samples", "must be between 1 and 100000, got " + samples);
        }
        finalSampleCount();
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
        Padding pad = Workload.padding(padding);
        Driver drv = driverOptions.resolve(size);
        remoteAgents.parse(); // one agent per role: a role given twice is bad usage
        RunSpec spec = RunSpec.builder().count(2).window(1).size(size).padding(pad)
                .pin(pinOption.pinned(drv, driverOptions, remoteAgents))
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
        store.open(); // a store that does not answer: exit 2 before anything runs (issue 34)
        Path dir = output.prepare();
        ThroughputRun.Settings settings = new ThroughputRun.Settings(samples, finalSampleCount(),
                (long) (thresholdMs * 1e6), skipFactor, maxExponent, (long) (warmupMs * 1e6), warmupMessages, (long) (probeWarmupMs * 1e6),
                remeasure, maxProbes, checked.pick());
        CorePlan cores = pinOption.plan(drv, driverOptions, remoteAgents);
        ThroughputJob job = new ThroughputJob(spec, drv, settings, given(f), cores,
                () -> remoteAgents.plan(dir, LocalAgents.jvmArgs(512)), dir);
        JobOutcome o;
        try (LiveMetrics metrics = metricsOption.start("throughput", dir.getFileName().toString(), drv.name(), line -> {
            System.err.println(line);
            System.err.flush();
        })) {
            o = job.run(stdout, System.err, metrics, onSignal -> Interrupts.install(onSignal, System.err));
        }
        store.record(o, dir, commandSpec, false);
        return ExitCodes.of(o, dir, output, plotOption, commandSpec);
    }

    /** The options as given, for the results. */
    private ThroughputResults.Given given(long requested) {
        return new ThroughputResults.Given(size, padding, requested, samples,
                finalSamples.trim().toLowerCase(Locale.ROOT), thresholdMs, skipFactor, probeWarmupMs, warmupMs,
                warmupMessages, maxExponent, pick, remeasure, maxProbes);
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
}
