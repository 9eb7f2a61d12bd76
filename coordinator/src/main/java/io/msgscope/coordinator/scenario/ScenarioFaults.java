package io.msgscope.coordinator.scenario;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlHub;
import io.msgscope.coordinator.agents.AgentEndpoint;
import io.msgscope.coordinator.agents.AgentPlan;
import io.msgscope.coordinator.agents.Deadlines;
import io.msgscope.coordinator.faults.FaultLog;
import io.msgscope.coordinator.faults.FaultSteps;
import io.msgscope.core.fault.FaultPlan;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.FaultApplied;
import io.msgscope.proto.Go;
import io.msgscope.proto.Phase;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;

import java.util.List;

/**
 * A scenario's faults (issue 32 item 5): the broker-probe agent in sidecar mode applies them on the measurement's
 * clock, as in trace mode, while the publishers and subscribers agents count their messages per bucket of epoch time
 * ({@link #bucketMs}); at the end the probe says what it applied and when, and {@link ScenarioFaultFigures} turns both
 * into each fault's cost. The probe's link joins the run's control hub: a probe that dies fails the run, naming it.
 */
public final class ScenarioFaults {
    /** The buckets' width: 100 ms up to an hour's measurement, then wider, so that a run counts at most 36,000. */
    static int bucketMs(long durationMs) {
        long w = Math.max(100, (durationMs + 35_999) / 36_000);
        return (int) ((w + 99) / 100 * 100);
    }

    /**
     * What the probe is given.
     *
     * @param plan          the faults, times from the measurement's start
     * @param brokerPid     the broker process whose CPU the probe samples (its sidecar's job), 0 when named instead
     * @param brokerProcess the same by name, empty when a pid is given
     */
    public record Setup(FaultPlan plan, long brokerPid, String brokerProcess) {
    }

    private final Setup setup;
    private final AgentLink probe;
    /** The measurement's start, epoch ns on the coordinator's clock; 0 until {@link #go}. */
    private long originEpochNs;

    private ScenarioFaults(Setup setup, AgentLink probe) {
        this.setup = setup;
        this.probe = probe;
    }

    /** Connects the probe agent and hands it the faults; null when the run has none. */
    static ScenarioFaults startIfNeeded(Setup setup, AgentPlan agents, ControlHub hub, RunSpec spec) throws Exception {
        if (setup == null || setup.plan().isEmpty()) {
            return null;
        }
        AgentEndpoint ep = ScenarioLinks.agents(agents, Role.PROBE).get(0);
        AgentLink link = AgentLink.connect(hub, Role.PROBE, ep.host(), ep.port(), Deadlines.HANDSHAKE_MS, ep::deathReason);
        link.send(Envelope.newBuilder().setSpec(spec.toBuilder().setBrokerPid(setup.brokerPid())
                .setBrokerProcess(setup.brokerProcess()).addAllFaults(FaultSteps.toProto(setup.plan()))).build());
        hub.await(link, Deadlines.READY_MS, "the probe's set-up", Envelope.BodyCase.READY);
        link.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.WARMUP)).build());
        hub.await(link, Deadlines.READY_MS, "the probe's warm-up", Envelope.BodyCase.PHASE_DONE);
        return new ScenarioFaults(setup, link);
    }

    /** The fault clock starts at {@code startMono} (the coordinator's monotonic ns), the measurement's first instant. */
    void go(long startMono) {
        long now = System.nanoTime();
        originEpochNs = startMono + io.msgscope.core.Clock.process().epochMinusMono();
        probe.send(Envelope.newBuilder().setFaultsGo(io.msgscope.proto.FaultsGo.newBuilder()
                .setStartInNs(Math.max(0, startMono - now))).build());
    }

    /** The faults the probe applied (after the measurement: one not yet due is not applied), times from the start. */
    FaultLog collect(ControlHub hub) throws AgentFailure {
        probe.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.MEASURE)).build());
        List<FaultApplied> applied = hub.await(probe, Deadlines.READY_MS, "the probe's report",
                Envelope.BodyCase.PHASE_DONE).getPhaseDone().getFaultsList();
        return FaultLog.of(setup.plan(), applied, applied.isEmpty() ? 0 : applied.get(0).getOriginNs());
    }

    /**
     * What each fault cost, from the probe's report and the agents' counts by bucket (once their final figures are in);
     * a probe that does not report leaves every fault not applied, and the run failed, naming it.
     */
    void conclude(ScenarioCollector o, ControlHub hub, ScenarioConfig cfg) {
        FaultLog log;
        try {
            log = collect(hub);
        } catch (AgentFailure e) {
            o.fail("no report from the broker-probe agent: " + e.getMessage(), "aggregation");
            log = new FaultLog(setup.plan(), List.of());
        }
        o.faults = ScenarioFaultFigures.of(log, originEpochNs, cfg.durationMs() * 1_000_000L,
                o.buckets(bucketMs(cfg.durationMs()) * 1_000_000L), cfg.scenario().expected(1, cfg.subscribers()),
                o.windows);
    }

    long originEpochNs() {
        return originEpochNs;
    }

    AgentLink link() {
        return probe;
    }
}
