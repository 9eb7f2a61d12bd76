package io.msgscope.coordinator.trace;

/**
 * Where the broker's CPU comes from (M3, D4): stamped into the messages by the relay (relay mode),
 * sampled by a probe agent next to a broker process (sidecar mode), not measured (off), or nothing to
 * measure (none: the sender writes straight to the receiver, e.g. {@code --driver tcp --opt via=direct}).
 *
 * @param brokerPid     sidecar: the broker process; 0 = find it otherwise (or the embedded relay)
 * @param brokerProcess sidecar: the broker's process name, e.g. beam.smp, mosquitto, nats-server
 * @param brokerCgroup  sidecar: a cgroup v2 path
 * @param periodUs      sidecar: the sampling period
 */
public record BrokerCpu(Mode mode, long brokerPid, String brokerProcess, String brokerCgroup, int periodUs) {
    public enum Mode { RELAY, SIDECAR, OFF, NONE }

    public static BrokerCpu relay() {
        return new BrokerCpu(Mode.RELAY, 0, "", "", 10_000);
    }

    /** True when the sidecar has no target of its own and samples the embedded relay process. */
    public boolean targetsEmbeddedRelay() {
        return mode == Mode.SIDECAR && brokerPid == 0 && brokerProcess.isEmpty() && brokerCgroup.isEmpty();
    }
}
