package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.scenario.BrokerStats;
import io.msgscope.coordinator.scenario.ProgressLine;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.coordinator.scenario.ScenarioResult;
import io.msgscope.coordinator.scenario.ScenarioRun;
import io.msgscope.coordinator.scenario.ScenarioSummary;
import io.msgscope.coordinator.scenario.ScenarioWriters;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.Driver;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;

/** {@code msgscope scenario}: seed 002's rate x duration pub/sub scenarios (Q1-Q9) on MQTT, NATS or ZeroMQ. */
@Command(name = "scenario", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run a pub/sub scenario (seed 002): fan-in, fan-out, straight-run or round-robin, each publisher",
                "at --rate msg/s for --duration s after a discarded --warmup; latency from the payload's epoch-ns",
                "timestamp (HdrHistogram 1 us-10 s, 3 digits), counters, delivery_rate = received / expected."},
        footer = {"", "Exit codes: 0 ok, 1 run failed (an agent failed, errors such as a refused QoS or subscription, a",
                "lost connection or short payloads, or delivery_rate < 1.0 at MQTT QoS >= 1 or NATS JetStream; results",
                "still written, marked failed), 2 bad usage (e.g. a scenario the driver cannot do, a topic the client",
                "or broker rejects)."})
public final class ScenarioCommand implements Callable<Integer> {
    @Spec
    CommandSpec commandSpec;

    @picocli.CommandLine.Mixin
    RemoteAgents remoteAgents;

    @Mixin
    DriverOptions driverOptions = new DriverOptions();

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

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "5",
            description = "Warm-up seconds whose metrics are discarded (default: ${DEFAULT-VALUE}).")
    double warmup;

    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "256",
            description = "Bytes per message, 32-byte header included (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--padding", paramLabel = "zeros|random", defaultValue = "random",
            description = "What fills the payload after the header (default: ${DEFAULT-VALUE}, R2).")
    String padding;

    @Option(names = "--format", paramLabel = "LIST", defaultValue = "json,csv,md", split = ",",
            description = "Output formats: json, csv, md (default: ${DEFAULT-VALUE}).")
    List<String> formats;

    @Mixin
    OutputOptions output;

    @Option(names = "--topic-prefix", paramLabel = "TOPIC",
            description = "The scenario's topic (MQTT) or subject (NATS); straight-run adds /N or .N per pair "
                    + "(default: msgscope/SCENARIO-RUNID, with dots on NATS).")
    String topicPrefix;

    @Option(names = "--broker-process", paramLabel = "NAME",
            description = "Sample this local process's CPU and RSS once a second during the run (Q7), e.g. mosquitto "
                    + "or nats-server (default: none).")
    String brokerProcess;

    /**
     * ZeroMQ's scenarios run through the broker-probe agent's proxy (M1): PUB/SUB over XSUB/XPUB with
     * the topics as subscription prefixes for fan-in, fan-out and straight-run, PUSH/PULL for round-robin
     * (the proxy's PUSH deals each message to exactly one subscriber). Brokerless scenarios (every
     * subscriber bound, every publisher connected to each) are not offered: refused, as are the options
     * the scenario itself chooses.
     */
    static Map<String, String> zmqScenarioOptions(Scenario sc, Map<String, String> opts) {
        if (opts.containsKey("via") && !"proxy".equalsIgnoreCase(opts.get("via"))) {
            throw new SpecException("--opt via", "ZeroMQ scenarios run through the proxy (via=proxy); brokerless "
                    + "via=" + opts.get("via") + " is for msgscope run only");
        }
        for (String k : new String[] {"pattern", "topic"}) {
            if (opts.containsKey(k)) {
                throw new SpecException("--opt " + k, "is chosen by the scenario (PUB/SUB with one topic per "
                        + "publisher stream, PUSH/PULL for round-robin); do not give it");
            }
        }
        Map<String, String> z = new java.util.TreeMap<>(opts);
        z.put("via", "proxy");
        z.put("pattern", sc == Scenario.ROUND_ROBIN ? "pushpull" : "pubsub");
        return Map.copyOf(z);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = commandSpec.commandLine().getOut();
        Scenario sc = Scenario.parse(scenario);
        int p = publishers == null ? sc.defaultPublishers() : publishers;
        int s = subscribers == null ? sc.defaultSubscribers(p) : subscribers;
        sc.check(p, s);
        if (!(rate > 0) || rate > 1_000_000) {
            throw new SpecException("--rate", "must be above 0 and at most 1000000 msg/s per publisher, got " + rate);
        }
        if (!(duration >= 1) || duration > 86_400) {
            throw new SpecException("--duration", "must be between 1 and 86400 s, got " + duration);
        }
        if (!(warmup >= 0) || warmup > 3_600) {
            throw new SpecException("--warmup", "must be between 0 and 3600 s, got " + warmup);
        }
        if (size < 32 || size > 64 << 20) {
            throw new SpecException("--size", "must be between 32 (the header) and 67108864 bytes, got " + size);
        }
        boolean random = switch (padding.toLowerCase(Locale.ROOT)) {
            case "random" -> true;
            case "zeros" -> false;
            default -> throw new SpecException("--padding", "must be zeros or random, got '" + padding + "'");
        };
        for (String f : formats) {
            if (!List.of("json", "csv", "md").contains(f)) {
                throw new SpecException("--format", "knows json, csv and md, got '" + f + "'");
            }
        }
        Driver drv = driverOptions.resolve(size);
        Map<String, String> opts = driverOptions.options();
        String qosLabel;
        boolean reliable;
        switch (drv.name()) {
            case "mqtt" -> {
                if (sc == Scenario.ROUND_ROBIN && "3".equals(opts.get("version"))) {
                    throw new SpecException("--scenario", "round-robin needs MQTT 5 shared subscriptions ($share/...); "
                            + "MQTT 3.1.1 (--opt version=3) has none");
                }
                if (opts.containsKey("topic") || opts.containsKey("group")) {
                    throw new SpecException("--opt", "topic and group are chosen by the scenario; do not give them");
                }
                int qos = Integer.parseInt(opts.getOrDefault("qos", "1").trim());
                qosLabel = "QoS " + qos;
                reliable = qos >= 1;
            }
            case "nats" -> {
                boolean js = Boolean.parseBoolean(opts.getOrDefault("jetstream", "false"));
                if (opts.containsKey("subject") || opts.containsKey("group")) {
                    throw new SpecException("--opt", "subject and group are chosen by the scenario; do not give them");
                }
                qosLabel = js ? "JetStream " + opts.getOrDefault("consumer", "push") : "core NATS";
                reliable = js;
            }
            case "zmq" -> {
                opts = zmqScenarioOptions(sc, opts);
                qosLabel = sc == Scenario.ROUND_ROBIN ? "ZeroMQ PUSH/PULL via proxy" : "ZeroMQ PUB/SUB via proxy";
                reliable = true; // unlimited or blocking high-water marks: ZeroMQ drops nothing here, so a loss fails
            }
            default -> throw new SpecException("--driver", "scenario mode needs topics: mqtt, nats or zmq, not "
                    + drv.name());
        }
        if (topicPrefix != null) {
            drv.checkTopicPrefix(topicPrefix); // the driver knows its topic syntax (MQTT, NATS, ZeroMQ)
        }
        Path dir = output.prepare();
        ScenarioRun.Config cfg = new ScenarioRun.Config(sc, drv.name(), driverOptions.uri(), opts, p, s, rate,
                Math.round(warmup * 1000), Math.round(duration * 1000), size, random,
                ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, topicPrefix);
        PrintWriter err = commandSpec.commandLine().getErr();
        ProgressLine progress = new ProgressLine(err, System.console() != null, sc.label() + " @ " + qosLabel);
        stdout.printf(Locale.ROOT, "%s on %s (%s): %d publishers x %s msg/s, %d subscribers, %s s warm-up + %s s%n",
                sc.label(), drv.name(), qosLabel, p, ScenarioWriters.number(rate), s, ScenarioWriters.number(warmup),
                ScenarioWriters.number(duration));
        stdout.flush();
        BrokerStats broker = brokerProcess == null ? null : BrokerStats.start(brokerProcess);
        ScenarioRun.Outcome o;
        try {
            o = new ScenarioRun(cfg, progress).run(dir, RunCommand.agentJvmArgs(512), remoteAgents.parse(),
                    io.msgscope.control.SharedSecret.load(remoteAgents.secretFile));
        } finally {
            if (broker != null) {
                broker.close();
            }
        }
        if (o.usage) {
            err.println("msgscope scenario: " + o.failure);
            err.flush();
            return ExitCodes.USAGE;
        }
        if (o.failure != null) {
            err.println("msgscope scenario: run failed during " + o.failedDuring + ": " + o.failure);
            err.flush();
        }
        ScenarioResult r = ScenarioSummary.build(cfg, o, qosLabel, reliable);
        if (broker != null) {
            broker.putInto(r.fields, r.notes);
        }
        List<Path> files = new ArrayList<>(ScenarioWriters.write(r, dir, formats));
        stdout.print(ScenarioWriters.markdown(r));
        stdout.println("status: " + r.header.get("status")
                + (r.header.get("failure_reason") == null ? "" : " (" + r.header.get("failure_reason") + ")"));
        stdout.println("results: " + dir + " (" + files.size() + " files)");
        stdout.flush();
        return "ok".equals(r.header.get("status")) ? ExitCodes.OK : ExitCodes.FAILED;
    }
}
