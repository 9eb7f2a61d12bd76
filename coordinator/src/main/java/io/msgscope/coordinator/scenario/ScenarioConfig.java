package io.msgscope.coordinator.scenario;

import io.msgscope.core.Padding;
import io.msgscope.core.Workload;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.core.timeline.Timeline;

import java.util.List;
import java.util.Map;

/**
 * What a scenario run asks for (Q1-Q9): the scenario, the {@link Workload} every mode's spec shares (driver, URI,
 * options, size, padding, seed; issue 15: one spec), and what only a scenario reads — the load per publisher, the
 * schedule, the topics and the connections.
 *
 * @param workload     the driver and its options as the agents use them (the driver's scenario support adds what
 *                     the scenario chooses, e.g. ZeroMQ's pattern), the message and its padding
 * @param givenOptions the driver options the user gave, which the spec records (issue 18: it loads back)
 * @param rate         msg/s per publisher; on load phases, the warm-up's
 * @param durationMs   the measurement; on load phases, the timeline's length (rounded up to a whole ms)
 * @param timeline     the measurement's load phases, their rates the TOTAL over all publishers (issue 31); null for
 *                     one rate
 * @param drainTimeoutMs {@code --drain-timeout}: after the publishers stopped, how long the wait for in-flight messages
 *                     may go without a delivery before the rest counts as lost (Q9, issue 31 item 1; {@link DrainWait})
 */
public record ScenarioConfig(Scenario scenario, Workload workload, int publishers, int subscribers, double rate,
                             long warmupMs, long durationMs, String topicPrefix, Connections connections,
                             boolean allowDuplicates, Map<String, String> givenOptions, Timeline timeline,
                             long drainTimeoutMs) {
    /** {@code --drain-timeout}'s default, ms: a scenario that drains within 5 s ends as it did before issue 31. */
    public static final long DEFAULT_DRAIN_TIMEOUT_MS = 5_000;

    public ScenarioConfig {
        givenOptions = givenOptions == null ? workload.driverOptions() : Map.copyOf(givenOptions);
    }

    /** The user's options were all the options; duplicates fail the run, as by default. */
    public ScenarioConfig(Scenario scenario, Workload workload, int publishers, int subscribers, double rate,
                          long warmupMs, long durationMs, String topicPrefix, Connections connections) {
        this(scenario, workload, publishers, subscribers, rate, warmupMs, durationMs, topicPrefix, connections, false,
                null, null, DEFAULT_DRAIN_TIMEOUT_MS);
    }

    /** The same config with duplicates allowed or not (--allow-duplicates). */
    public ScenarioConfig allowingDuplicates(boolean allow) {
        return new ScenarioConfig(scenario, workload, publishers, subscribers, rate, warmupMs, durationMs, topicPrefix,
                connections, allow, givenOptions, timeline, drainTimeoutMs);
    }

    /** The same config with another {@code --drain-timeout}, ms. */
    public ScenarioConfig drainingFor(long ms) {
        return new ScenarioConfig(scenario, workload, publishers, subscribers, rate, warmupMs, durationMs, topicPrefix,
                connections, allowDuplicates, givenOptions, timeline, ms);
    }

    /**
     * The same config on load phases (issue 31): the measurement lasts the timeline (rounded up to a whole ms), and
     * the warm-up runs, per publisher, at the timeline's first rate above 0 shared by the publishers.
     */
    public ScenarioConfig onPhases(Timeline t) {
        return new ScenarioConfig(scenario, workload, publishers, subscribers, ScenarioPhases.warmupRate(t, publishers),
                warmupMs, (t.durationNs() + 999_999) / 1_000_000, topicPrefix, connections, allowDuplicates,
                givenOptions, t, drainTimeoutMs);
    }

    public String driver() {
        return workload.driver();
    }

    public String uri() {
        return workload.uri();
    }

    /** The driver options the agents use. */
    public Map<String, String> options() {
        return workload.driverOptions();
    }

    public int size() {
        return workload.size();
    }

    public boolean randomPadding() {
        return workload.padding() == Padding.RANDOM;
    }

    public long seed() {
        return workload.seed();
    }

    /**
     * The spec every publishers and subscribers agent is sent (through {@link io.msgscope.control.RunSpecs}, the one
     * place specs become the control protocol's): the workload and the rate per publisher; the scenario's plan
     * (topics, connections, schedule) follows in its own message.
     */
    public io.msgscope.proto.RunSpec toProto() {
        return io.msgscope.control.RunSpecs.common(Long.toHexString(workload.seed()), workload).setRate(rate).build();
    }

    /**
     * How the agents open and drive their connections (issue 13).
     *
     * @param ioThreads       I/O and pacer threads per agent, 0 = one per core of the agent's box
     * @param connectRate     connections opened per second over the whole run, 0 = as fast as the agents can
     * @param sourceAddresses local addresses the client sockets bind to in turn; empty = the OS chooses
     */
    public record Connections(int ioThreads, double connectRate, List<String> sourceAddresses) {
        public static final Connections DEFAULT = new Connections(0, 0, List.of());
    }
}
