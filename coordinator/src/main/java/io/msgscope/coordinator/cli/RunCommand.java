package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.agents.RemoteAgents;
import io.msgscope.coordinator.trace.BrokerCpu;
import io.msgscope.coordinator.agents.CorePlan;
import io.msgscope.coordinator.results.LiveMetrics;
import io.msgscope.coordinator.agents.LocalAgents;
import io.msgscope.coordinator.results.JobOutcome;
import io.msgscope.coordinator.trace.TraceJob;
import io.msgscope.coordinator.trace.TraceResults;
import io.msgscope.core.Workload;
import io.msgscope.core.RunSpec;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.Driver;
import io.msgscope.proto.Role;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code msgscope run}: the trace run of seed 001 on the embedded default — sender → relay →
 * receiver over raw TCP on loopback, each agent its own JVM (M1, M5, D3, D5, D6).
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false, defaultValueProvider = SpecDefaults.class,
        description = {"Trace run on the embedded default: a sender, a relay (broker-probe agent) and a receiver, each "
                               + "its own JVM on this box, raw TCP over loopback. Per-message O_n/I_n in memory, statistics after "
                               + "the run (seed 001: M1-M6, M9, M12)."},
        footer = {"",
                  "Exit codes: 0 ok, 1 run failed (results still written, status \"failed\"), 2 bad usage, 130 interrupted",
                  "(Ctrl-C or SIGTERM: what was measured is written, status \"interrupted\"; a second Ctrl-C aborts at once)."})
public final class RunCommand implements Callable<Integer> {
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

    @Option(names = "--count", paramLabel = "N", description = "Measured messages (default: ${DEFAULT-VALUE}).")
    long count;

    @Option(names = "--size", paramLabel = "BYTES", converter = SizeConverter.class,
            description = "Bytes per message (k = 1024, m = 1048576), 32-byte measurement header included (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--rate", paramLabel = "MSG/S",
            description = "Send rate; 0 = full speed (default: ${DEFAULT-VALUE}). With a rate, latency is also "
                    + "reported from the intended send time (coordinated omission).")
    double rate;

    @Option(names = "--phases", paramLabel = "PHASES",
            description = "Load phases instead of one --rate and --count (issue 31): comma-separated "
                    + "[NAME:]DURATION@RATE or @FROM..TO (a linear ramp), 0 = publishers paused, e.g. "
                    + "\"steady:30s@5k, ramp:60s@5k..50k, hold:30s@50k\"; /paused after a rate pauses the consumers "
                    + "(a backlog: fill:20kmsg@5k/paused ends after 20,000 messages, fill:60s@5k/paused/backlog=20k "
                    + "when the broker holds 20,000, at most 60 s); /drained lasts until the backlog before it "
                    + "arrived, at most its duration (drain:60s@0/drained, or drain:60s@2k/drained publishing on); "
                    + "the count is what they schedule (at most, with /drained or /backlog), and summary.json "
                    + "reports each phase (default: none; one --rate).")
    String phases;

    @Option(names = "--warmup", paramLabel = "N",
            description = "Warm-up messages sent first and discarded (default: ${DEFAULT-VALUE}).")
    long warmup;

    @Option(names = "--allow-duplicates", defaultValue = "false",
            description = "Do not fail the run when a message is delivered more than once (at-least-once systems, e.g. "
                    + "MQTT QoS 1); they are counted and the first arrival is measured either way (default: ${DEFAULT-VALUE}).")
    boolean allowDuplicates;

    @Option(names = "--window", paramLabel = "M",
            description = "M of SO/RO/ST/RT (M2), 1..count-1 (default: ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "--window-min-time", paramLabel = "MS", defaultValue = "10",
            description = "SO/RO/ST/RT windows also span at least this long (more than M messages when needed), so "
                    + "that RT is a receive rate, not the rate of parsing one read; 0 = exactly M (M2), 0-60000 "
                    + "(default: ${DEFAULT-VALUE}).")
    double windowMinTimeMs;

    @Option(names = "--padding", paramLabel = "zeros|random",
            description = "Payload after the header (R2) (default: ${DEFAULT-VALUE}).")
    String padding;

    @Mixin
    PinOption pinOption;

    @Option(names = "--drain-timeout", paramLabel = "MS",
            description = "After the sender finished, how long the receiver waits for the rest before "
                    + "counting it lost (default: ${DEFAULT-VALUE}).")
    long drainTimeoutMs;

    @Option(names = "--socket-buffer", paramLabel = "BYTES",
            description = "SO_SNDBUF/SO_RCVBUF of the data sockets; 0 = OS default (default: ${DEFAULT-VALUE}).")
    int socketBuffer;

    @Option(names = "--send-batch", paramLabel = "K",
            description = "Messages per write on the sender at full speed; O_n is taken as each message is "
                    + "written into the batch (default: ${DEFAULT-VALUE}).")
    int sendBatch;

    @Option(names = "--seed", description = "Seed of random padding (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--cpu-every", paramLabel = "N",
            description = "Sample CPU (and network) every Nth message, M3/M4; 0 = off (default: ${DEFAULT-VALUE}). "
                    + "Thread CPU has ns resolution (~1 us per sample); process CPU (10 ms ticks) is reported "
                    + "over windows of at least 100 ms.")
    int cpuEvery;

    @Mixin
    BrokerCpuOptions brokerCpuOptions;

    @Mixin
    FaultOptions faultOptions;

    @Mixin
    ClockErrorOption clockError = new ClockErrorOption();

    @Option(names = "--force-clock-ping-pong", hidden = true, defaultValue = "false",
            description = "Test only: measure the sidecar's clock offset by ping-pong even on one box.")
    boolean forcePingPong;

    @Option(names = "--relay-burn-ns", hidden = true,
            description = "Test only: the relay spins this long per message (a known CPU burner).")
    long relayBurnNs;

    @Option(names = "--relay-ingress-port", paramLabel = "PORT", defaultValue = "0",
            description = "Port the relay listens on for the sender; 0 = any free port (default: ${DEFAULT-VALUE}).")
    int ingressPort;

    @Option(names = "--relay-egress-port", paramLabel = "PORT", defaultValue = "0",
            description = "Port the relay listens on for the receiver; 0 = any free port (default: ${DEFAULT-VALUE}).")
    int egressPort;

    @Option(names = "--agent-heap", paramLabel = "MB", defaultValue = "0",
            description = "Heap of each agent JVM in MiB; 0 = sized from --count (default: ${DEFAULT-VALUE}).")
    int agentHeapMb;

    @Mixin
    OutputOptions output;

    @Mixin
    StoreOptions store = new StoreOptions();

    @Option(names = "--histogram-bins", paramLabel = "N", defaultValue = "100",
            description = "Bins of every histogram: latency, ST, RT, CPU (M8) (default: ${DEFAULT-VALUE}).")
    int bins;

    @Option(names = "--histogram-scale", paramLabel = "SCALE", defaultValue = "log",
            description = "Bins of latency-histogram.dat: log (log-spaced from min to p99.9, plotted on a log axis: "
                    + "the bulk and the tail both get bins) or linear (equal widths) (M8, issue 29) "
                    + "(default: ${DEFAULT-VALUE}).")
    String histogramScale;

    @Option(names = "--histogram-overlap", paramLabel = "K", defaultValue = "1",
            description = "Sliding bins: each bin is one bin width wide and one starts every width/K; 1 = no "
                    + "overlap (M8) (default: ${DEFAULT-VALUE}).")
    int overlap;

    @Mixin
    PlotOption plotOption;

    @Mixin
    VerboseOption verboseOption = new VerboseOption();

    @Option(names = "--plot-envelope-above", paramLabel = "N", defaultValue = "100000",
            description = "Runs of more than N messages are plotted per message through trace-envelope.dat (min, "
                    + "median, max per bucket) instead of every row of trace.dat, so plotting stays about a second; "
                    + "trace.dat is written either way (default: ${DEFAULT-VALUE}).")
    long envelopeAbove;

    @Option(names = "--plot-envelope-buckets", paramLabel = "B", defaultValue = "2000",
            description = "Buckets of consecutive messages in trace-envelope.dat, 10-1000000 (default: ${DEFAULT-VALUE}).")
    int envelopeBuckets;

    /** Warnings already printed when the run started (the core plan's), not repeated at its end. */
    private final java.util.Set<String> saidAtStart = new java.util.HashSet<>();

    /** Whether the user gave this option (false where the command was built without picocli, e.g. in a test). */
    private boolean given(String option) {
        picocli.CommandLine.ParseResult r = commandSpec == null ? null : commandSpec.commandLine().getParseResult();
        return r == null || r.hasMatchedOption(option);
    }

    /** What the usage checks of {@code run} produce. */
    record Checked(RunSpec spec, Driver driver, BrokerCpu brokerCpu, io.msgscope.core.fault.FaultPlan faults,
                   io.msgscope.coordinator.agents.ClockErrorLimit clockLimit) {
    }

    /**
     * Every usage check of {@code run}, without starting anything or writing a file; {@code sweep} runs
     * it on each point's arguments before the first point runs. Throws {@link SpecException}.
     */
    Checked check() {
        io.msgscope.core.timeline.Timeline timeline = phases == null ? null
                : io.msgscope.core.timeline.Timeline.parse("--phases", phases);
        if (timeline != null && given("--count")) {
            throw new SpecException("--count", "leave it out with --phases: the phases schedule "
                    + timeline.messages() + " messages");
        }
        if (timeline != null && given("--rate")) {
            throw new SpecException("--rate", "leave it out with --phases: each phase gives its rate");
        }
        if (timeline == null && count >= 1 && count <= window && !given("--window")) {
            throw new SpecException("--count", "must be above the window of M = " + window + " messages (M2) that --window "
                    + "sets by default, got " + count + "; give a smaller --window for so short a run");
        }
        Driver drv = driverOptions.resolve(size);
        if (timeline != null && timeline.pausesConsumers()) { // before anything runs (issue 31)
            String why = drv.whyConsumersCannotPause(driverOptions.options());
            if (why != null) {
                throw new SpecException("--phases", "/paused cannot pause the consumers with the " + drv.name()
                        + " driver: " + why);
            }
            String unread = timeline.phases().stream().anyMatch(io.msgscope.core.timeline.LoadPhase::untilBacklog)
                    ? drv.whyBacklogCannotBeRead(driverOptions.options()) : null;
            if (unread != null) {
                throw new SpecException("--phases", "/backlog=N ends a phase on the broker's count of the backlog, "
                        + "which cannot be read here: " + unread);
            }
        }
        remoteAgents.parse(); // one agent per role: a role given twice is bad usage
        RunSpec spec = RunSpec.builder().count(count).warmupCount(warmup).size(size).rate(rate)
                .padding(Workload.padding(padding)).window(window).pin(pinOption.pinned(drv, driverOptions, remoteAgents))
                .drainTimeoutMs(drainTimeoutMs)
                .socketBuffer(socketBuffer).sendBatch(sendBatch).seed(seed).cpuEvery(cpuEvery)
                .relayBurnNs(relayBurnNs).driver(driverOptions.driver).uri(driverOptions.uri())
                .driverOptions(driverOptions.options()).timeline(timeline).build();
        boolean relayed = drv.usesRelay(driverOptions.options());
        BrokerCpu brokerCpu = brokerCpuOptions.resolve(relayed, cpuEvery,
                !relayed && drv.brokerHost(driverOptions.uri(), driverOptions.options()) == null);
        if (bins < 1 || bins > 100_000) {
            throw new SpecException("--histogram-bins", "must be between 1 and 100000, got " + bins);
        }
        if (!histogramScale.equals("log") && !histogramScale.equals("linear")) {
            throw new SpecException("--histogram-scale", "must be log or linear, got " + histogramScale);
        }
        if (!(windowMinTimeMs >= 0) || windowMinTimeMs > 60_000) {
            throw new SpecException("--window-min-time", "must be between 0 and 60000 ms, got " + windowMinTimeMs);
        }
        if (overlap < 1 || overlap > 100) {
            throw new SpecException("--histogram-overlap", "must be between 1 (no overlap) and 100, got " + overlap);
        }
        if (agentHeapMb < 0 || agentHeapMb > 1 << 20) {
            throw new SpecException("--agent-heap", "must be between 0 (automatic) and 1048576 MiB, got " + agentHeapMb);
        }
        checkPort("--relay-ingress-port", ingressPort);
        checkPort("--relay-egress-port", egressPort);
        if (!relayed) {
            requireRelay("--agent", remoteAgents.given(Role.RELAY));
            requireRelay("--relay-ingress-port", ingressPort != 0);
            requireRelay("--relay-egress-port", egressPort != 0);
            requireRelay("--relay-burn-ns", relayBurnNs != 0);
        }
        if (ingressPort != 0 && ingressPort == egressPort) {
            throw new SpecException("--relay-egress-port", "must differ from --relay-ingress-port (" + ingressPort + ")");
        }
        if (envelopeAbove < 0) {
            throw new SpecException("--plot-envelope-above", "must be 0 (always the envelope) or more messages, got "
                    + envelopeAbove);
        }
        if (envelopeBuckets < 10 || envelopeBuckets > 1_000_000) {
            throw new SpecException("--plot-envelope-buckets", "must be between 10 and 1000000, got " + envelopeBuckets);
        }
        return new Checked(spec, drv, brokerCpu, faultOptions.resolve(spec, drv, brokerCpu, remoteAgents.given(Role.PROBE)),
                clockError.limit());
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = commandSpec.commandLine().getOut();
        PrintStream log = System.err;
        Checked checked = check();
        RunSpec spec = checked.spec();
        Driver drv = checked.driver();
        store.open(); // a store that does not answer: exit 2 before anything runs (issue 34)
        Path dir = output.prepare();
        String runId = dir.getFileName().toString();
        try (LiveMetrics metrics = metricsOption.start("trace", runId, spec.driver(), log::println)) {
            return measure(stdout, log, checked, dir, runId, metrics);
        }
    }

    private int measure(PrintWriter stdout, PrintStream log, Checked checked, Path dir, String runId,
                        LiveMetrics metrics) throws Exception {
        RunSpec spec = checked.spec();
        Driver drv = checked.driver();
        CorePlan cores = pinOption.plan(drv, driverOptions, remoteAgents);
        for (String w : cores.warnings()) {
            log.println("warning: " + w);
            saidAtStart.add(w);
        }
        TraceJob job = new TraceJob(spec, drv, checked.brokerCpu(), cores, () -> remoteAgents.plan(dir, agentJvmArgs(spec),
                faultOptions.probeArguments()), dir,
                new TraceJob.Ports(ingressPort, egressPort), new TraceResults.Options(Math.round(windowMinTimeMs * 1e6),
                envelopeAbove, envelopeBuckets, bins, overlap, allowDuplicates, histogramScale.equals("log")),
                verboseOption.verbose, forcePingPong,
                saidAtStart, checked.faults(), checked.clockLimit());
        JobOutcome o = job.run(stdout, log, runId, metrics, onSignal -> Interrupts.install(onSignal, log));
        store.record(o, dir, commandSpec, verboseOption.verbose);
        return ExitCodes.of(o, dir, output, plotOption, commandSpec);
    }

    /** A relay option given for a run whose messages go through no relay is refused, not silently dropped. */
    private void requireRelay(String option, boolean given) {
        if (given) {
            throw new SpecException(option, (option.equals("--agent") ? "relay=HOST:PORT " : "")
                    + "applies only through the relay (the tcp driver with --opt via=relay, the "
                    + "default, or zmq with --opt via=proxy); the " + driverOptions.driver + " driver with these options "
                    + "starts no relay");
        }
    }

    /** A relay port: 0 (any) or one free on 127.0.0.1 now. */
    private static void checkPort(String option, int port) {
        if (port < 0 || port > 65_535) {
            throw new SpecException(option, "must be between 0 (any free port) and 65535, got " + port);
        }
        if (port == 0) {
            return;
        }
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress("127.0.0.1", port));
        } catch (IOException e) {
            throw new SpecException(option, "port " + port + " is in use on 127.0.0.1; choose a free port, or 0 for any");
        }
    }

    private List<String> agentJvmArgs(RunSpec spec) {
        long mb = agentHeapMb > 0 ? agentHeapMb : 128 + spec.count() * 16 / (1 << 20)
                + (long) spec.size() * Math.max(1, spec.sendBatch()) / (1 << 20);
        return LocalAgents.jvmArgs(mb);
    }
}
