package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.trace.BrokerCpu;
import io.msgscope.core.SpecException;
import picocli.CommandLine.Option;

import java.util.Locale;

/** {@code run}'s broker CPU options (M3): where the broker's CPU comes from, and which process is the broker. */
final class BrokerCpuOptions {
    @Option(names = "--broker-cpu", paramLabel = "auto|relay|sidecar|off", defaultValue = "auto",
            description = "Broker CPU from the relay's (or ZeroMQ proxy's) stamps in the messages (relay), from a "
                    + "probe agent sampling the broker process (sidecar; by default the embedded relay's process), "
                    + "or not at all; auto = relay through the broker-probe agent (tcp via=relay, zmq via=proxy), "
                    + "sidecar when a --broker-pid/-process/-cgroup is given, none when nothing sits between sender "
                    + "and receiver (tcp or zmq via=direct), else off (default: ${DEFAULT-VALUE}).")
    String brokerCpuMode;

    @Option(names = "--broker-pid", paramLabel = "PID", defaultValue = "0",
            description = "Sidecar: the broker process; 0 = not given (default: ${DEFAULT-VALUE}).")
    long brokerPid;

    @Option(names = "--broker-process", paramLabel = "NAME",
            description = "Sidecar: find the broker by process name, e.g. beam.smp, mosquitto, nats-server "
                    + "(default: none).")
    String brokerProcess;

    @Option(names = "--broker-cgroup", paramLabel = "PATH",
            description = "Sidecar: a cgroup v2 folder whose cpu.stat is the broker's CPU (default: none).")
    String brokerCgroup;

    @Option(names = "--probe-period", paramLabel = "MS", defaultValue = "10",
            description = "Sidecar: sampling period of the broker's CPU, 1-1000 ms (default: ${DEFAULT-VALUE}).")
    int probePeriodMs;

    /**
     * The broker CPU source these options ask for, checked against the run: {@code relayed} when a broker-probe agent
     * sits between sender and receiver, {@code noBroker} when nothing does (tcp or zmq via=direct).
     */
    BrokerCpu resolve(boolean relayed, int cpuEvery, boolean noBroker) {
        if (brokerProcess == null) {
            brokerProcess = "";
        }
        if (brokerCgroup == null) {
            brokerCgroup = "";
        }
        boolean target = brokerPid > 0 || !brokerProcess.isEmpty() || !brokerCgroup.isEmpty();
        BrokerCpu.Mode mode;
        if (brokerCpuMode.equalsIgnoreCase("auto")) {
            mode = target ? BrokerCpu.Mode.SIDECAR : relayed && cpuEvery > 0 ? BrokerCpu.Mode.RELAY
                    : noBroker ? BrokerCpu.Mode.NONE : BrokerCpu.Mode.OFF;
        } else {
            try {
                mode = BrokerCpu.Mode.valueOf(brokerCpuMode.toUpperCase(Locale.ROOT));
                if (mode == BrokerCpu.Mode.NONE) {
                    throw new IllegalArgumentException("none is chosen by auto, not given");
                }
            } catch (IllegalArgumentException e) {
                throw new SpecException("--broker-cpu", "must be auto, relay, sidecar or off, got '" + brokerCpuMode
                        + "'");
            }
        }
        if (mode == BrokerCpu.Mode.RELAY && !relayed) {
            throw new SpecException("--broker-cpu", "relay mode needs the broker-probe agent as the middle box (the "
                    + "tcp driver with via=relay, the default, or zmq with --opt via=proxy); "
                    + (noBroker ? "with via=direct there is no broker or relay to measure: leave --broker-cpu out, or off"
                    : "use sidecar with --broker-process NAME, or off"));
        }
        if (mode == BrokerCpu.Mode.SIDECAR && noBroker && !target) {
            throw new SpecException("--broker-cpu", "sidecar mode samples a broker process, and with via=direct the "
                    + "sender connects straight to the receiver: there is none; name one with --broker-pid, "
                    + "--broker-process or --broker-cgroup, or leave --broker-cpu out");
        }
        if (mode == BrokerCpu.Mode.SIDECAR && !relayed && !target) {
            throw new SpecException("--broker-pid", "sidecar mode with a broker driver needs --broker-pid, "
                    + "--broker-process or --broker-cgroup");
        }
        if (probePeriodMs < 1 || probePeriodMs > 1000) {
            throw new SpecException("--probe-period", "must be between 1 and 1000 ms, got " + probePeriodMs);
        }
        if (brokerPid < 0) {
            throw new SpecException("--broker-pid", "must be a process id (> 0), got " + brokerPid);
        }
        if (target && mode != BrokerCpu.Mode.SIDECAR) {
            throw new SpecException(brokerPid > 0 ? "--broker-pid" : !brokerProcess.isEmpty() ? "--broker-process"
                    : "--broker-cgroup", "only applies with --broker-cpu sidecar");
        }
        if (mode == BrokerCpu.Mode.NONE && cpuEvery == 0) {
            mode = BrokerCpu.Mode.OFF; // nothing sampled at all
        }
        if (mode != BrokerCpu.Mode.OFF && cpuEvery == 0) {
            throw new SpecException("--cpu-every", "is 0 (CPU sampling off): broker CPU needs it; give --broker-cpu off");
        }
        return new BrokerCpu(mode, brokerPid, brokerProcess, brokerCgroup, probePeriodMs * 1000);
    }
}
