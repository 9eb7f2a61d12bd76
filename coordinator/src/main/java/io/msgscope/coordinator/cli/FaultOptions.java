package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.trace.BrokerCpu;
import io.msgscope.core.RunSpec;
import io.msgscope.core.SpecException;
import io.msgscope.core.fault.FaultPlan;
import io.msgscope.core.fault.FaultTargets;
import picocli.CommandLine.Option;

import java.util.List;

/**
 * {@code run}'s faults on the timeline (issue 32): what to do to the broker and when ({@code --faults}), applied by the
 * broker-probe agent in sidecar mode, and the targets a probe agent this run starts may act on
 * ({@code --fault-target}; a remote probe agent has its own, given when it was started).
 */
final class FaultOptions {
    @Option(names = "--faults", paramLabel = "TIME:ACTION:TARGET,...",
            description = "Faults on the run's clock (issue 32), applied by the broker-probe agent in sidecar mode: "
                    + "comma-separated TIME:ACTION:TARGET, a time from the measurement's start (500ms, 10s, 1.5s, 2m), "
                    + "pause (SIGSTOP) or resume (SIGCONT), kill (SIGKILL) or restart (a command) with clients "
                    + "that reconnect (--opt reconnect=true: nats, mqtt, amqp, amqp10, kafka, redis), partition, heal or degrade "
                    + "(TIME:degrade:TARGET:rate=1mbit) of a netns target, and a target the agent was given, e.g. "
                    + "'10s:pause:node1, 11s:resume:node1' (default: none).")
    String faults;

    @Option(names = FaultTargets.OPTION, paramLabel = "NAME=PIDFILE|NAME=pid:PID|NAME=restart:CMD|NAME=netns:NS[/DEV]",
            description = "A target the probe agent this run starts may act on, passed on its command line: the "
                    + "process of a pid file (or a pid) for pause/resume/kill, a command for restart, a network "
                    + "namespace (and link) for partition/heal/degrade; repeat for more (default: none).")
    List<String> targets;

    /** The plan as given, its targets checked against where the probe runs; empty when no fault is given. */
    private FaultPlan parsed(boolean remoteProbe) {
        FaultTargets given = FaultTargets.parse(targets); // malformed targets are refused even without --faults
        FaultPlan plan = FaultPlan.parse("--faults", faults);
        if (!given.isEmpty() && remoteProbe) {
            throw new SpecException(FaultTargets.OPTION, "names targets for a probe agent this run starts; the remote "
                    + "probe agent (--agent probe=...) applies only those it was started with");
        }
        if (!given.isEmpty() && plan.isEmpty()) {
            throw new SpecException(FaultTargets.OPTION, "is given without --faults");
        }
        return plan;
    }

    /** The checked plan; empty when no fault is given. */
    FaultPlan resolve(RunSpec spec, io.msgscope.core.driver.Driver driver, BrokerCpu brokerCpu, boolean remoteProbe) {
        FaultPlan plan = parsed(remoteProbe);
        if (plan.isEmpty()) {
            return plan;
        }
        if (brokerCpu.mode() != BrokerCpu.Mode.SIDECAR) {
            throw new SpecException("--faults", "faults are applied by the broker-probe agent in sidecar mode: give "
                    + "--broker-pid, --broker-process or --broker-cgroup (the broker whose CPU it samples)");
        }
        Long runNs = spec.timeline() != null ? Long.valueOf(spec.timeline().durationNs())
                : spec.rate() > 0 ? Long.valueOf((long) (spec.count() * 1e9 / spec.rate())) : null;
        // a kill or restart only with clients that reconnect (issue 32 item 3: --opt reconnect=true)
        plan.check("--faults", runNs, driver.whyClientsCannotReconnect(spec.driverOptions()));
        if (!remoteProbe) {
            FaultTargets.parse(targets).check("--faults", plan); // the agent checks again; refused here before anything starts
        }
        return plan;
    }

    /**
     * {@code scenario}'s plan (issue 32 item 5), on a measurement of {@code durationMs}: the probe agent samples the
     * broker given by {@code --broker-pid} or {@code --broker-process}; a kill or restart needs clients that
     * reconnect ({@code whyNoReconnect} is the driver's reason they cannot, null when they do). Null when no fault is
     * given.
     */
    io.msgscope.coordinator.scenario.ScenarioFaults.Setup resolveScenario(long durationMs, long brokerPid,
                                                                          String brokerProcess, boolean remoteProbe,
                                                                          String whyNoReconnect) {
        FaultPlan plan = parsed(remoteProbe);
        if (plan.isEmpty()) {
            return null;
        }
        if (brokerPid <= 0 && brokerProcess == null) {
            throw new SpecException("--faults", "faults are applied by the broker-probe agent in sidecar mode: give "
                    + "--broker-pid or --broker-process (the broker whose CPU it samples)");
        }
        plan.check("--faults", durationMs * 1_000_000L, whyNoReconnect);
        if (!remoteProbe) {
            FaultTargets.parse(targets).check("--faults", plan);
        }
        return new io.msgscope.coordinator.scenario.ScenarioFaults.Setup(plan, Math.max(0, brokerPid),
                brokerPid > 0 || brokerProcess == null ? "" : brokerProcess);
    }

    /** The {@code --fault-target} arguments of a locally started probe agent. */
    List<String> probeArguments() {
        return FaultTargets.parse(targets).arguments();
    }
}
