package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.results.JobOutcome;
import io.msgscope.coordinator.scenario.ScenarioJob;
import io.msgscope.coordinator.agents.RemoteAgents;
import io.msgscope.coordinator.results.LiveMetrics;
import io.msgscope.coordinator.scenario.ScenarioConfig;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.core.SpecException;
import io.msgscope.core.Workload;
import io.msgscope.core.Padding;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.ConnectionLimits;
import io.msgscope.core.scenario.SourceAddresses;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;

/** {@code msgscope scenario}: seed 002's rate x duration pub/sub scenarios (Q1-Q9) on MQTT, NATS or ZeroMQ. */
@Command(name = "scenario", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run a pub/sub scenario (seed 002): fan-in, fan-out, straight-run or round-robin, each publisher "
                               + "at --rate msg/s for --duration s after a discarded --warmup; latency from the payload's "
                               + "epoch-ns timestamp (HdrHistogram 1 us-10 s, 3 digits), counters, delivery_rate = received / "
                               + "expected."},
        footer = {"",
                  "Exit codes: 0 ok, 1 run failed (an agent failed, errors such as a refused QoS or subscription, "
                          + "a lost connection or short payloads, or delivery_rate < 1.0 at MQTT QoS >= 1 or NATS JetStream; "
                          + "results still written, marked failed), 2 bad usage (e.g. a scenario the driver cannot do, a "
                          + "topic the client or broker rejects), 130 interrupted (Ctrl-C or SIGTERM: the publishers stop, "
                          + "what was measured is written, status \"interrupted\"; a second Ctrl-C aborts at once)."},
        defaultValueProvider = ScenarioCommand.Defaults.class)
public final class ScenarioCommand implements Callable<Integer> {
    /**
     * Scenario mode's own default driver: ZeroMQ through the built-in proxy, the one pub/sub system that needs no
     * broker (raw TCP, the other commands' default, has no topics). Every other option keeps its annotated default.
     */
    public static final class Defaults implements picocli.CommandLine.IDefaultValueProvider {
        @Override
        public String defaultValue(picocli.CommandLine.Model.ArgSpec arg) {
            return arg.isOption() && "--driver".equals(((picocli.CommandLine.Model.OptionSpec) arg).longestName())
                    ? io.msgscope.core.driver.DefaultDrivers.SCENARIO : null;
        }
    }

    @Spec
    CommandSpec commandSpec;

    @picocli.CommandLine.Mixin
    RemoteAgents remoteAgents;

    @Mixin
    MetricsOption metricsOption = new MetricsOption();

    @Mixin
    DriverOptions driverOptions = new DriverOptions();

    @picocli.CommandLine.Mixin
    SpecOption specOption = new SpecOption();

    @Mixin
    PlotOption plotOption = new PlotOption();

    @Mixin
    VerboseOption verboseOption = new VerboseOption();

    @Mixin
    ClockErrorOption clockError = new ClockErrorOption();

    @Option(names = "--allow-duplicates", defaultValue = "false",
            description = "Do not fail the run when more deliveries arrive than the scenario expects (duplicates at an "
                    + "at-least-once QoS); they are reported either way (default: ${DEFAULT-VALUE}).")
    boolean allowDuplicates;

    @Option(names = "--scenario", paramLabel = "NAME", defaultValue = "fan-in",
            description = "fan-in, fan-out, straight-run or round-robin (default: ${DEFAULT-VALUE}).")
    String scenario;

    @Option(names = "--publishers", paramLabel = "P",
            description = "Publisher connections (default: 4; fan-out: 1).")
    Integer publishers;

    @Option(names = "--subscribers", paramLabel = "S",
            description = "Subscriber connections (default: fan-in 1, straight-run = P, otherwise 4).")
    Integer subscribers;

    @Option(names = "--rate", paramLabel = "MSG/S", defaultValue = "100",
            description = "Messages per second per publisher (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "60",
            description = "Measurement seconds (default: ${DEFAULT-VALUE}).")
    double duration;

    @Option(names = "--phases", paramLabel = "PHASES",
            description = "Load phases instead of --rate and --duration (issue 31): comma-separated "
                    + "[NAME:]DURATION@RATE or @FROM..TO (a linear ramp), 0 = publishers paused, e.g. "
                    + "\"a:30s@2k, pause:5s@0, ramp:60s@2k..20k\"; each RATE is the TOTAL over all publishers, which "
                    + "share it; /paused pauses the subscribers (fill:20kmsg@5k/paused), /backlog=N ends such a phase "
                    + "when the broker holds N, /drained a later one when the backlog before it arrived (at most "
                    + "their durations); the warm-up runs at the first rate above 0, and summary.json reports each "
                    + "phase (default: none; --rate per publisher for --duration).")
    String phases;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "5",
            description = "Warm-up seconds whose metrics are discarded (default: ${DEFAULT-VALUE}).")
    double warmup;

    @Option(names = "--drain-timeout", paramLabel = "MS", defaultValue = "" + ScenarioConfig.DEFAULT_DRAIN_TIMEOUT_MS,
            description = "After the publishers stopped, wait for in-flight messages until every expected delivery "
                    + "arrived, every subscription is lost, or no delivery arrived for MS ms; what is missing then "
                    + "counts as lost (Q9, issue 31; 0 = one last look) (default: ${DEFAULT-VALUE}).")
    long drainTimeoutMs;

    @Option(names = "--size", paramLabel = "BYTES", converter = SizeConverter.class, defaultValue = "256",
            description = "Bytes per message (k = 1024, m = 1048576), 32-byte header included (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--padding", paramLabel = "zeros|random", defaultValue = "random",
            description = "What fills the payload after the header (default: ${DEFAULT-VALUE}, R2).")
    String padding;

    @Option(names = "--format", paramLabel = "LIST", defaultValue = "json,csv,md", split = ",",
            description = "Output formats: json, csv, md (default: ${DEFAULT-VALUE}).")
    List<String> formats;

    @Mixin
    OutputOptions output;

    @Mixin
    StoreOptions store = new StoreOptions();

    @Option(names = "--topic-prefix", paramLabel = "TOPIC",
            description = "The scenario's topic (MQTT) or subject (NATS); straight-run adds /N or .N per pair "
                    + "(default: msgscope/SCENARIO-RUNID, with dots on NATS).")
    String topicPrefix;

    @Option(names = "--broker-process", paramLabel = "NAME",
            description = "Sample this local process's CPU and RSS once a second during the run (Q7), e.g. mosquitto "
                    + "or nats-server (default: none).")
    String brokerProcess;

    @Option(names = "--broker-pid", paramLabel = "PID", defaultValue = "0",
            description = "With --faults: the broker process the broker-probe agent samples in sidecar mode (else "
                    + "--broker-process names it) (default: none).")
    long brokerPid;

    @Mixin
    FaultOptions faultOptions = new FaultOptions();

    @Option(names = "--io-threads", paramLabel = "N", defaultValue = "0",
            description = "I/O threads per agent, shared by all its connections, and as many pacer threads on the "
                    + "publishers agent; 0 = one per core of the agent's box (default: ${DEFAULT-VALUE}).")
    int ioThreads;

    @Option(names = "--connect-rate", paramLabel = "N/S", defaultValue = "0",
            description = "Connections opened per second over the whole run, subscribers first in proportion; "
                    + "0 = as fast as the agents open them, 8 at a time each (default: ${DEFAULT-VALUE}).")
    double connectRate;

    @Option(names = "--source-addresses", paramLabel = "LIST|CIDR",
            description = "Local addresses the client sockets bind to in turn, past one address's ports: a list "
                    + "(127.0.0.2,127.0.0.3) or one IPv4 CIDR block (127.0.0.0/28) (default: the OS chooses).")
    String sourceAddresses;

    /** Whether the user gave {@code option} (not its default). */
    private boolean given(String option) {
        picocli.CommandLine.ParseResult r = commandSpec == null ? null : commandSpec.commandLine().getParseResult();
        return r == null || r.hasMatchedOption(option);
    }

    /** The drivers that can run scenarios, for the refusal of one that cannot. */
    static List<String> scenarioDrivers() {
        List<String> out = new ArrayList<>();
        io.msgscope.core.driver.Drivers all = io.msgscope.core.driver.Drivers.load();
        for (String n : all.names()) {
            if (all.get(n).scenarios() != null) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * The options checked, nothing written (also {@code capacity --scenario}'s check of its steps).
     *
     * @param p       the publishers
     * @param s       the subscribers
     * @param sources the client sockets' source addresses
     */
    record Checked(Scenario sc, int p, int s, io.msgscope.core.timeline.Timeline timeline, Padding pad, Driver drv,
                   Map<String, String> opts, String qosLabel, boolean reliable, List<java.net.InetAddress> sources,
                   io.msgscope.coordinator.scenario.ScenarioFaults.Setup faults) {
    }

    /** Every usage check, before anything is written. */
    Checked check() {
        Scenario sc = Scenario.parse(scenario);
        int p = publishers == null ? sc.defaultPublishers() : publishers;
        int s = subscribers == null ? sc.defaultSubscribers(p) : subscribers;
        sc.check(p, s);
        io.msgscope.core.timeline.Timeline timeline = phases == null ? null
                : io.msgscope.core.timeline.Timeline.parse("--phases", phases);
        if (timeline != null) {
            for (String o : List.of("--rate", "--duration")) {
                if (given(o)) {
                    throw new SpecException(o, "leave it out with --phases: the phases give the total rate over all "
                            + "publishers and the measurement's length");
                }
            }
            io.msgscope.coordinator.scenario.ScenarioPhases.check(timeline, p);
        }
        if (!(rate > 0) || rate > 1_000_000) {
            throw new SpecException("--rate", "must be above 0 and at most 1000000 msg/s per publisher, got " + rate);
        }
        if (!(duration >= 1) || duration > 86_400) {
            throw new SpecException("--duration", "must be between 1 and 86400 s, got " + duration);
        }
        if (!(warmup >= 0) || warmup > 3_600) {
            throw new SpecException("--warmup", "must be between 0 and 3600 s, got " + warmup);
        }
        if (drainTimeoutMs < 0 || drainTimeoutMs > 600_000) {
            throw new SpecException("--drain-timeout", "must be between 0 and 600000 ms, got " + drainTimeoutMs);
        }
        Workload.checkSize(size);
        Padding pad = Workload.padding(padding);
        for (String f : formats) {
            if (!List.of("json", "csv", "md").contains(f)) {
                throw new SpecException("--format", "knows json, csv and md, got '" + f + "'");
            }
        }
        Driver drv = driverOptions.resolve(size);
        ScenarioSupport support = drv.scenarios();
        if (support == null) {
            throw new SpecException("--driver", "scenario mode needs a driver with topics ("
                    + String.join(", ", scenarioDrivers()) + "), not " + drv.name());
        }
        Map<String, String> opts = support.options(sc, driverOptions.options());
        drv.checkOptions(new io.msgscope.core.driver.DriverSpec("", 0, driverOptions.uri(), size, 0, opts, ""));
        io.msgscope.coordinator.scenario.ScenarioPhases.checkBacklog(timeline, drv, opts);
        String qosLabel = support.qosLabel(sc, opts);
        boolean reliable = support.reliable(opts);
        if (ioThreads < 0 || ioThreads > 256) {
            throw new SpecException("--io-threads", "must be between 0 (one per core) and 256, got " + ioThreads);
        }
        if (!(connectRate >= 0) || connectRate > 1_000_000) {
            throw new SpecException("--connect-rate", "must be between 0 (unlimited) and 1000000 per second, got "
                    + connectRate);
        }
        List<java.net.InetAddress> sources = SourceAddresses.parse(sourceAddresses);
        boolean local = !remoteAgents.given(io.msgscope.proto.Role.PUBLISHERS)
                && !remoteAgents.given(io.msgscope.proto.Role.SUBSCRIBERS);
        if (local) {
            ConnectionLimits.checkBindable(sources); // the agents run here: so must the addresses
        }
        if (!sources.isEmpty() && !drv.bindsSourceAddresses(opts)) {
            throw new SpecException("--source-addresses", "the " + drv.name() + " driver cannot bind its client "
                    + "sockets to source addresses with these options (see its --opt engine)");
        }
        if (local) {
            // both agents on this box, to one broker address: they share its local ports
            ConnectionLimits.checkPorts(p + s, sources, p >= s ? "--publishers" : "--subscribers");
        }
        if (topicPrefix != null) {
            drv.checkTopicPrefix(topicPrefix); // the driver knows its topic syntax (MQTT, NATS, ZeroMQ)
        }
        long measureMs = timeline != null ? (timeline.durationNs() + 999_999) / 1_000_000 : Math.round(duration * 1000);
        io.msgscope.coordinator.scenario.ScenarioFaults.Setup faults = faultOptions.resolveScenario(measureMs, brokerPid,
                brokerProcess, remoteAgents.given(io.msgscope.proto.Role.PROBE), drv.whyClientsCannotReconnect(opts));
        if (brokerPid < 0 || brokerPid > 0 && faults == null) {
            throw new SpecException("--broker-pid", brokerPid < 0 ? "pids are positive, got " + brokerPid
                    : "names the broker the probe agent samples for --faults; it is given without --faults");
        }
        return new Checked(sc, p, s, timeline, pad, drv, opts, qosLabel, reliable, sources, faults);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = commandSpec.commandLine().getOut();
        Checked c = check();
        io.msgscope.coordinator.agents.ClockErrorLimit clockLimit = clockError.limit();
        Scenario sc = c.sc();
        int p = c.p();
        int s = c.s();
        io.msgscope.core.timeline.Timeline timeline = c.timeline();
        Padding pad = c.pad();
        Driver drv = c.drv();
        List<java.net.InetAddress> sources = c.sources();
        store.open(); // a store that does not answer: exit 2 before anything runs (issue 34)
        Path dir = output.prepare();
        PrintWriter err = commandSpec.commandLine().getErr();
        Workload workload = new Workload(drv.name(), driverOptions.uri(), c.opts(), size, pad,
                ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        ScenarioConfig cfg = new ScenarioConfig(sc, workload, p, s, rate, Math.round(warmup * 1000),
                Math.round(duration * 1000), topicPrefix,
                new ScenarioConfig.Connections(ioThreads, connectRate, SourceAddresses.strings(sources)), allowDuplicates,
                driverOptions.options(), null, drainTimeoutMs);
        if (timeline != null) {
            cfg = cfg.onPhases(timeline);
        }
        ScenarioJob job = new ScenarioJob(cfg, drv, c.qosLabel(), c.reliable(), formats, brokerProcess,
                () -> remoteAgents.plan(dir, io.msgscope.coordinator.agents.LocalAgents.jvmArgs(512),
                        faultOptions.probeArguments()), dir, verboseOption.verbose, clockLimit, c.faults());
        JobOutcome o;
        try (LiveMetrics metrics = metricsOption.start("scenario", dir.getFileName().toString(), drv.name(), line -> {
            err.println(line);
            err.flush();
        })) {
            o = job.run(stdout, err, metrics, System.console() != null,
                    onSignal -> Interrupts.install(onSignal, System.err));
        }
        store.record(o, dir, commandSpec, verboseOption.verbose);
        return ExitCodes.of(o, dir, output, plotOption, commandSpec);
    }
}
