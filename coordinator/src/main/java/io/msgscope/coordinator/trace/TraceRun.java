package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.agents.Deadlines;
import io.msgscope.coordinator.agents.AgentEndpoint;
import io.msgscope.coordinator.agents.AgentPlan;
import io.msgscope.coordinator.agents.AgentInfo;
import io.msgscope.coordinator.agents.CorePlan;
import io.msgscope.coordinator.faults.FaultSteps;
import io.msgscope.coordinator.results.Interruptions;
import io.msgscope.coordinator.results.LiveMetrics;
import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlHub;
import io.msgscope.control.Frames;
import io.msgscope.core.RunSpec;
import io.msgscope.proto.Bye;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Go;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.SenderFinished;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives one trace run through the lifecycle (STYLE "Lifecycle like a JMH fork"): handshake →
 * spec → ready → warm-up (discarded) → measure → upload → bye, with a deadline on every step. Any
 * agent's error, lost connection or dead process fails the run with the agent's name and reason;
 * whatever was recorded by then is still uploaded from the agents that can, so nothing is lost.
 */
public final class TraceRun {
    private final RunSpec spec;
    private final BrokerCpu brokerCpu;
    private final CorePlan cores;
    private final int ingressPort;
    private final int egressPort;
    private final PrintStream log;
    private boolean forcePingPong;
    private boolean verbose = true;
    /** The signal that interrupted the run, null while none did; set from the signal's thread (issue 29). */
    private volatile String interruptedBy;
    /** The sender's link once connected: where an interrupt sends its Stop. */
    private volatile AgentLink senderLink;
    private LiveMetrics metrics;
    private io.msgscope.control.ControlCredentials credentials = io.msgscope.control.ControlCredentials.NONE;
    private io.msgscope.core.fault.FaultPlan faults = new io.msgscope.core.fault.FaultPlan(java.util.List.of());
    private io.msgscope.coordinator.agents.ClockErrorLimit clockLimit = io.msgscope.coordinator.agents.ClockErrorLimit.DEFAULT;

    public TraceRun(RunSpec spec, BrokerCpu brokerCpu, CorePlan cores, int ingressPort,
                    int egressPort, PrintStream log) {
        this.spec = spec;
        this.brokerCpu = brokerCpu;
        this.cores = cores;
        this.ingressPort = ingressPort;
        this.egressPort = egressPort;
        this.log = log;
    }

    /** What remote agents on a test network require: TLS certificates and/or the shared secret (issue 14). */
    public TraceRun credentials(io.msgscope.control.ControlCredentials c) {
        this.credentials = c;
        return this;
    }

    /** The faults the broker-probe agent applies during the measurement (issue 32); it must be in sidecar mode. */
    public TraceRun faults(io.msgscope.core.fault.FaultPlan plan) {
        this.faults = plan;
        return this;
    }

    /** {@code --max-clock-error} (issue 33 item 3): how wide a cross-host run's clock bound may be before it warns. */
    public TraceRun clockLimit(io.msgscope.coordinator.agents.ClockErrorLimit limit) {
        this.clockLimit = limit;
        return this;
    }

    /** Live metrics to keep current (null: none). */
    public TraceRun metrics(LiveMetrics m) {
        this.metrics = m;
        return this;
    }

    /** Whether a failure's course (the failure, the upload of what was recorded) is logged as it happens. */
    public TraceRun verbose(boolean v) {
        this.verbose = v;
        return this;
    }

    /** Measure the probe's clock offset by ping-pong even on one box (tests the cross-box path). */
    public TraceRun forcePingPong(boolean force) {
        this.forcePingPong = force;
        return this;
    }

    /**
     * SIGINT or SIGTERM (issue 29), from any thread: a measurement under way ends now — the sender is told to stop,
     * the receiver drains what was sent, the traces are uploaded and analysed as usual, and the result says it was
     * interrupted; before the measurement the run ends with nothing measured; after it, the run completes as it is.
     */
    public void interrupt(String signal) {
        interruptedBy = signal;
        AgentLink s = senderLink;
        if (s != null) {
            s.send(Envelope.newBuilder().setStop(io.msgscope.proto.Stop.getDefaultInstance()).build());
        }
    }

    /** Ends a run interrupted before its measurement started: nothing was measured. */
    private void checkInterrupted(TraceCollector out) throws AgentFailure {
        String signal = interruptedBy;
        if (signal != null) {
            out.interruptedBy = signal;
            throw new AgentFailure("msgscope", Interruptions.nothingMeasured(signal, out.phase), false);
        }
    }

    /** The agents' addresses and how to tell that one died; {@code probe} is null unless in sidecar mode. */
    public record Endpoints(AgentEndpoint sender, AgentEndpoint receiver, AgentEndpoint relay, AgentEndpoint probe) {
        /** The run's agents from {@code agents}, in the order they start: relay (when relayed), receiver, sender, probe. */
        public static Endpoints of(AgentPlan agents, boolean relayed, boolean sidecar) throws java.io.IOException {
            List<Role> roles = new ArrayList<>(List.of(Role.RECEIVER, Role.SENDER));
            if (relayed) {
                roles.add(0, Role.RELAY);
            }
            if (sidecar) {
                roles.add(Role.PROBE);
            }
            agents.prepare(roles);
            AgentEndpoint relay = relayed ? agents.agent(Role.RELAY) : null;
            AgentEndpoint receiver = agents.agent(Role.RECEIVER);
            AgentEndpoint sender = agents.agent(Role.SENDER);
            return new Endpoints(sender, receiver, relay, sidecar ? agents.agent(Role.PROBE) : null);
        }
    }

    /** Runs the lifecycle; whatever happens, returns what was brought back (a failure is in the result). */
    public TraceResult run(Endpoints ep, String runId) {
        TraceCollector out = new TraceCollector(spec, runId);
        out.warnings.addAll(cores.warnings());
        out.faultPlan = faults;
        try (ControlHub hub = new ControlHub(io.msgscope.control.ControlCodec.DEFAULT_MAX_FRAME, credentials)) {
            AgentLink relay = null;
            AgentLink receiver = null;
            AgentLink sender = null;
            AgentLink probe = null;
            io.msgscope.coordinator.agents.ClockTracker clocks = null;
            String clocksWhy = null;
            try {
                out.phase = "set-up";
                io.msgscope.proto.RunSpec base = io.msgscope.control.RunSpecs.trace(spec, runId);
                Ready relayReady = null;
                if (ep.relay() != null) {
                    relay = AgentLink.connect(hub, Role.RELAY, ep.relay().host(), ep.relay().port(), Deadlines.HANDSHAKE_MS,
                            ep.relay()::deathReason);
                    String relayData = ep.relay().host();
                    relay.send(spec(base.toBuilder().setPinCpu(cores.relay()).setBindHost(relayData)
                            .setIngressPort(ingressPort).setEgressPort(egressPort)));
                    relayReady = hub.await(relay, Deadlines.READY_MS, "relay set-up", Envelope.BodyCase.READY).getReady();
                    record(out, relay, relayReady);
                }
                receiver = AgentLink.connect(hub, Role.RECEIVER, ep.receiver().host(), ep.receiver().port(), Deadlines.HANDSHAKE_MS,
                        ep.receiver()::deathReason);
                sender = AgentLink.connect(hub, Role.SENDER, ep.sender().host(), ep.sender().port(), Deadlines.HANDSHAKE_MS,
                        ep.sender()::deathReason);
                senderLink = sender;
                if (ep.probe() != null) {
                    probe = AgentLink.connect(hub, Role.PROBE, ep.probe().host(), ep.probe().port(), Deadlines.HANDSHAKE_MS,
                            ep.probe()::deathReason);
                    long pid = brokerCpu.targetsEmbeddedRelay() && relay != null ? relay.helloAck().getPid()
                            : brokerCpu.brokerPid();
                    probe.send(spec(base.toBuilder().setPinCpu(cores.probe(Runtime.getRuntime().availableProcessors()))
                            .setBrokerPid(pid)
                            .setBrokerProcess(brokerCpu.brokerProcess()).setBrokerCgroup(brokerCpu.brokerCgroup())
                            .setSamplePeriodUs(brokerCpu.periodUs()).addAllFaults(FaultSteps.toProto(faults))));
                    record(out, probe, hub.await(probe, Deadlines.READY_MS, "probe set-up", Envelope.BodyCase.READY).getReady());
                }

                io.msgscope.proto.RunSpec.Builder rs = base.toBuilder().setPinCpu(cores.receiver());
                if (relayReady != null) {
                    rs.setConnectHost(ep.relay().host()).setConnectPort(relayReady.getEgressPort());
                }
                receiver.send(spec(rs));
                Ready receiverReady = hub.await(receiver, Deadlines.READY_MS, "receiver set-up", Envelope.BodyCase.READY)
                        .getReady();
                record(out, receiver, receiverReady);
                out.destination = receiverReady.getDestination();
                io.msgscope.proto.RunSpec.Builder ss = base.toBuilder().setPinCpu(cores.sender())
                        .setDestination(receiverReady.getDestination());
                if (relayReady != null) {
                    ss.setConnectHost(ep.relay().host()).setConnectPort(relayReady.getIngressPort());
                }
                sender.send(spec(ss));
                record(out, sender, hub.await(sender, Deadlines.READY_MS, "sender set-up", Envelope.BodyCase.READY)
                        .getReady());
                clocks = TraceClocks.start(hub, sender, receiver, clockLimit); // two boxes: followed (issue 33)
                clocksWhy = TraceClocks.why(sender, receiver);
                checkPinning(out);
                if (probe != null) {
                    out.sidecarSameBox = !forcePingPong && io.msgscope.coordinator.agents.ClockTracker.sameBox(probe, receiver);
                    out.sidecarOffset = AgentClocks.offset(hub, probe, receiver, out.sidecarSameBox);
                    probe.send(go(Phase.WARMUP));
                    hub.await(probe, Deadlines.READY_MS, "the probe's warm-up", Envelope.BodyCase.PHASE_DONE);
                }

                checkInterrupted(out);
                out.phase = "warm-up";
                if (metrics != null) {
                    metrics.phase("warm-up");
                    metrics.counts(sender::progress, receiver::progress);
                }
                log.println("warm-up: " + spec.warmupCount() + " messages (discarded)");
                receiver.send(go(Phase.WARMUP));
                sender.send(go(Phase.WARMUP));
                // no fixed budget (a slow system is waited for): failed once the sender makes no progress for a minute
                hub.awaitProgressing(sender, sender, stallMs(), "the warm-up", Envelope.BodyCase.PHASE_DONE);
                // the receiver ends a warm-up that stopped arriving after the drain timeout instead of hanging
                receiver.send(Envelope.newBuilder().setSenderFinished(SenderFinished.newBuilder()
                        .setSent(spec.warmupCount())).build());
                out.warmupReceived = hub.awaitProgressing(receiver, receiver, spec.drainTimeoutMs() + stallMs(),
                        "the warm-up", Envelope.BodyCase.PHASE_DONE).getPhaseDone().getReceived();
                out.warmupDone = true;
                if (out.warmupReceived < spec.warmupCount()) {
                    String w = "warm-up: " + out.warmupReceived + " of " + spec.warmupCount()
                            + " warm-up messages arrived; nothing more came for the drain timeout ("
                            + spec.drainTimeoutMs() + " ms), so the measurement started anyway";
                    out.warnings.add(w);
                    log.println("warning: " + w);
                }

                checkInterrupted(out);
                out.phase = "measurement";
                if (metrics != null) {
                    metrics.phase("measurement");
                }
                boolean atMost = spec.timeline() != null && spec.timeline().messagesUnknown();
                log.println("measuring: " + (atMost ? "at most " : "") + spec.count() + " messages of " + spec.size() + " B"
                        + (spec.timeline() != null ? " on phases " + spec.timeline().shorthand()
                        : spec.rate() > 0 ? " at " + spec.rate() + " msg/s" : " at full speed"));
                out.measureEpochMs = System.currentTimeMillis();
                if (spec.timeline() != null && !spec.timeline().wordPhases().isEmpty()) {
                    // a drain's end: the receiver sees it, the sender acts on it, the receiver follows the sender
                    hub.forward(receiver, Envelope.BodyCase.PHASE_END, sender);
                    hub.forward(sender, Envelope.BodyCase.PHASE_END, receiver);
                }
                receiver.send(go(Phase.MEASURE));
                if (probe != null && !faults.isEmpty()) { // the fault clock starts with the sender's schedule
                    probe.send(Envelope.newBuilder().setFaultsGo(io.msgscope.proto.FaultsGo.newBuilder()
                            .setStartInNs(io.msgscope.control.RunSpecs.MEASURE_LEAD_NS)).build());
                    if (metrics != null) {
                        metrics.faults(faults.steps(), System.nanoTime() + io.msgscope.control.RunSpecs.MEASURE_LEAD_NS);
                    }
                }
                sender.send(go(Phase.MEASURE));
                PhaseDone sent;
                PhaseDone got;
                try (RunProgress shown = RunProgress.start(log, System.console() != null, spec.count(), spec.rate(),
                        sender::progress, receiver::progress)) {
                    sent = hub.awaitProgressing(sender, sender, stallMs(), "the measurement",
                            Envelope.BodyCase.PHASE_DONE).getPhaseDone();
                    receiver.send(Envelope.newBuilder().setSenderFinished(SenderFinished.newBuilder()
                            .setSent(sent.getSent())).build());
                    got = hub.awaitProgressing(receiver, receiver, spec.drainTimeoutMs() + stallMs(),
                            "the measurement", Envelope.BodyCase.PHASE_DONE).getPhaseDone();
                }
                TraceClocks.stop(hub, clocks);
                if (metrics != null) {
                    metrics.phase("upload");
                }
                out.interruptedBy = interruptedBy; // stopped early by it, or it came too late to matter
                List<io.msgscope.core.timeline.Timeline.WordEnd> ended = WordsAsRun.ends(hub); // may shorten it
                if (out.interruptedBy != null && sent.getSent() >= (ended.isEmpty() ? spec.count()
                        : spec.timeline().asRun(ended).messages())) {
                    out.interruptedBy = null;
                }
                out.measured(sent, got);
                if (relay != null) {
                    relay.send(go(Phase.MEASURE));
                    PhaseDone forwarded = hub.await(relay, Deadlines.READY_MS, "the relay's count",
                            Envelope.BodyCase.PHASE_DONE).getPhaseDone();
                    out.relayForwarded = forwarded.getReceived();
                    out.hotThreadAllocatedBytes.put("relay", forwarded.getHotThreadAllocatedBytes());
                }
                if (probe != null) {
                    probe.send(go(Phase.MEASURE));
                    PhaseDone p = hub.await(probe, Deadlines.READY_MS, "the probe's report", Envelope.BodyCase.PHASE_DONE)
                            .getPhaseDone();
                    out.sidecarSource = p.getNote();
                    out.faultsApplied = p.getFaultsList();
                    out.sampling.put("probe", new TraceResult.Sampling(p.getSamples(), p.getSamplingNs()));
                    out.sidecarOffsetAfter = AgentClocks.offset(hub, probe, receiver, out.sidecarSameBox);
                }
            } catch (AgentFailure f) {
                out.failure = f.getMessage();
                out.failedDuring = out.phase;
                out.usageFailure = f.usage();
                if (verbose) {
                    log.println("run failed: " + f.getMessage());
                }
            }
            hub.between(null); // a failed run probes no more
            WordsAsRun.apply(WordsAsRun.ends(hub), spec, out, log);
            out.phase = "upload";
            if (out.failure == null || verbose) {
                log.println("uploading the traces" + (out.failure == null ? "" : " that were recorded"));
            }
            new TraceUploads(hub, out).all(sender, receiver, probe);
            out.countFromTraces();
            out.clocks = TraceClocks.correct(out, clocks, clocksWhy);
            for (AgentLink l : new AgentLink[] {sender, receiver, relay, probe}) {
                if (l != null) {
                    l.send(Envelope.newBuilder().setBye(Bye.getDefaultInstance()).build());
                }
            }
        }
        return out.result();
    }

    /** The result of a run whose agents could not be started: failed in set-up, nothing recorded, counts unknown. */
    public static TraceResult notStarted(RunSpec spec, String runId, String reason) {
        TraceCollector out = new TraceCollector(spec, runId);
        out.failure = reason;
        out.failedDuring = "set-up";
        out.tracesMissing.addAll(java.util.List.of("sender", "receiver"));
        return out.result();
    }

    private void record(TraceCollector out, AgentLink link, Ready ready) {
        out.agents.put(Frames.name(link.role()), new AgentInfo(Frames.name(link.role()), link.helloAck(),
                ready.getAffinity(), link.address()));
    }

    private static void checkPinning(TraceCollector out) {
        for (AgentInfo a : out.agents.values()) {
            if (a.affinity().getRequestedCpu() >= 0 && !a.affinity().getPinned()) {
                out.warnings.add(a.role() + " asked for core " + a.affinity().getRequestedCpu() + " but runs on "
                        + a.affinity().getObtained() + (a.affinity().getNote().isEmpty() ? ""
                        : " (" + a.affinity().getNote() + ")"));
            }
        }
    }

    /**
     * How long the warm-up and the measurement may go without progress (the sender's or receiver's count, from
     * their heartbeat answers) before the run fails: no fixed budget, so a slow but steady system (MQTT QoS 2,
     * AMQP transactions) is measured whatever its rate, and a stuck one fails within a minute (issue 18).
     */
    static final long STALL_MS = 60_000;

    /** {@link #STALL_MS}, or three message periods at a rate below one message in 20 s. */
    private long stallMs() {
        if (spec.timeline() != null) { // a pause, or the widest gap of a slow phase, is not a stall
            return Math.max(STALL_MS, 3 * spec.timeline().longestGapNs() / 1_000_000);
        }
        return spec.rate() > 0 ? Math.max(STALL_MS, (long) (3_000 / spec.rate())) : STALL_MS;
    }

    private static Envelope spec(io.msgscope.proto.RunSpec.Builder b) {
        return Envelope.newBuilder().setSpec(b).build();
    }

    private static Envelope go(Phase phase) {
        return Envelope.newBuilder().setGo(Go.newBuilder().setPhase(phase)).build();
    }
}
