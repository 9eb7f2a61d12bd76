package io.msgscope.coordinator.scenario;

import io.msgscope.core.scenario.Scenario;

import java.util.List;
import java.util.Map;

/** What a scenario run asks for (Q1-Q9): the scenario, the driver and its options, the load, the connections. */
public record ScenarioConfig(Scenario scenario, String driver, String uri, Map<String, String> options,
                             int publishers, int subscribers, double rate, long warmupMs, long durationMs, int size,
                             boolean randomPadding, long seed, String topicPrefix, Connections connections,
                             boolean allowDuplicates, Map<String, String> givenOptions) {
    /**
     * {@code options} are what the agents use (the driver's scenario support adds what the scenario chooses, e.g.
     * ZeroMQ's pattern); {@code givenOptions} what the user gave, which the spec records (issue 18: it loads back).
     */
    public ScenarioConfig {
        givenOptions = givenOptions == null ? options : givenOptions;
    }

    /** The user's options were all the options. */
    public ScenarioConfig(Scenario scenario, String driver, String uri, Map<String, String> options, int publishers,
                          int subscribers, double rate, long warmupMs, long durationMs, int size, boolean randomPadding,
                          long seed, String topicPrefix, Connections connections, boolean allowDuplicates) {
        this(scenario, driver, uri, options, publishers, subscribers, rate, warmupMs, durationMs, size,
                randomPadding, seed, topicPrefix, connections, allowDuplicates, options);
    }

    /** The same with duplicates failing the run, as by default. */
    public ScenarioConfig(Scenario scenario, String driver, String uri, Map<String, String> options, int publishers,
                          int subscribers, double rate, long warmupMs, long durationMs, int size, boolean randomPadding,
                          long seed, String topicPrefix, Connections connections) {
        this(scenario, driver, uri, options, publishers, subscribers, rate, warmupMs, durationMs, size,
                randomPadding, seed, topicPrefix, connections, false);
    }

    /**
     * The spec every publishers and subscribers agent is sent (through {@link io.msgscope.control.RunSpecs}, the one
     * place specs become the control protocol's): the common fields and the rate per publisher; the scenario's plan
     * (topics, connections, schedule) follows in its own message.
     */
    public io.msgscope.proto.RunSpec toProto() {
        return io.msgscope.control.RunSpecs.common(Long.toHexString(seed), driver, uri, options, size,
                randomPadding ? io.msgscope.core.Padding.RANDOM : io.msgscope.core.Padding.ZEROS, seed)
                .setRate(rate).build();
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
