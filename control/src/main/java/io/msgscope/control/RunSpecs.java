package io.msgscope.control;

import io.msgscope.core.Padding;
import io.msgscope.core.Workload;
import io.msgscope.core.timeline.LoadPhase;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.RunSpec;

/**
 * Where the coordinator's specs become the control protocol's {@link RunSpec}, one place for every mode (issue 15:
 * the proto was built field by field in the trace, throughput and scenario runs). Every spec starts from
 * {@link #common}, the fields every role of every mode reads; each mode adds what its roles read and nothing else,
 * because a field a role reads changes what it does (a relay given a count and a CPU period stamps CPU samples). The
 * pinning is left unset (-1): the run sets each role's core.
 */
public final class RunSpecs {
    /**
     * A trace run's measurement schedule starts this long after the sender heard its Go (or 1 ms after it is ready,
     * if its preparation took longer), and the probe's fault clock this long after its FaultsGo, sent just before
     * that Go (issue 32): the two clocks start together whatever the sender prepares first (its load phases took
     * 18-20 ms to set up, and faults came that much early on the run's clock).
     */
    public static final long MEASURE_LEAD_NS = 50_000_000L;

    private RunSpecs() {
    }

    /** The run id, the workload (message size and padding, seed, driver, its URI and options), and no pinning. */
    public static RunSpec.Builder common(String runId, Workload w) {
        return RunSpec.newBuilder().setRunId(runId).setSize(w.size()).setRandomPadding(w.padding() == Padding.RANDOM)
                .setSeed(w.seed()).setDriver(w.driver()).setUri(w.uri()).putAllDriverOptions(w.driverOptions())
                .setPinCpu(-1);
    }

    /** A trace run (msgscope run): every field of {@code spec}, as the sender, receiver and relay read them. */
    public static RunSpec trace(io.msgscope.core.RunSpec spec, String runId) {
        return common(runId, spec.workload())
                .setCount(spec.count()).setWarmupCount(spec.warmupCount()).setSocketBuffer(spec.socketBuffer())
                .setCpuEvery(spec.cpuEvery())
                .setRate(spec.sender().rate()).setSendBatch(spec.sender().sendBatch())
                .setDrainTimeoutMs(spec.receiver().drainTimeoutMs())
                .setRelayBurnNs(spec.relay().burnNs()).addAllPhases(phases(spec.timeline())).build();
    }

    /** The timeline's phases as the sender (or a scenario's publishers) read them; none for a run at one rate. */
    public static java.util.List<io.msgscope.proto.LoadPhase> phases(Timeline timeline) {
        return timeline == null ? java.util.List.of() : timeline.phases().stream()
                .map(p -> io.msgscope.proto.LoadPhase.newBuilder().setName(p.name()).setDurationNs(p.durationNs())
                        .setFromRate(p.fromRate()).setToRate(p.toRate()).setConsumersPaused(p.consumersPaused())
                        .setTargetMessages(p.targetMessages()).setUntilDrained(p.untilDrained())
                        .setBacklogTarget(p.backlogTarget()).build())
                .toList();
    }

    /**
     * A word phase's end as the sender told it (issue 31): its length, why it ended, what was missing (-1: unknown), the
     * first message after it (-1: not told) and the broker's count that ended a backlog target (null: none).
     */
    public static Timeline.WordEnd wordEnd(io.msgscope.proto.PhaseEnd e) {
        return new Timeline.WordEnd(e.getPhase(), e.getDurationNs(), e.getEndedBy(),
                e.getMissing() < 0 ? null : e.getMissing(), e.hasNextMessage() ? e.getNextMessage() : -1,
                e.hasBrokerMessages() ? e.getBrokerMessages() : null);
    }

    /** The sender's and receiver's timeline from its run spec, or null when the spec has one rate. */
    public static Timeline timeline(RunSpec spec) {
        return timeline(spec.getPhasesList());
    }

    /** The timeline of {@code phases} (a run spec's, a scenario plan's), or null when there are none. */
    public static Timeline timeline(java.util.List<io.msgscope.proto.LoadPhase> phases) {
        return phases.isEmpty() ? null : new Timeline(phases.stream()
                .map(p -> new LoadPhase(p.getName(), p.getDurationNs(), p.getFromRate(), p.getToRate(),
                        p.getConsumersPaused(), p.getTargetMessages(),
                        p.getUntilDrained() || p.getBacklogTarget() > 0 ? p.getDurationNs() : 0, p.getBacklogTarget()))
                .toList());
    }

    /**
     * A throughput run's flow client and relay: the message and the socket buffer; a count of 1 and no CPU period, so
     * that the relay forwards without stamping (the flow agent sets its own counts per probe).
     */
    public static RunSpec.Builder throughput(io.msgscope.core.RunSpec spec) {
        return common("throughput", spec.workload()).setCount(1).setSocketBuffer(spec.socketBuffer());
    }
}
