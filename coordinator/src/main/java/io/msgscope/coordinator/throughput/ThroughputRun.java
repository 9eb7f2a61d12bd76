package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.agents.Deadlines;
import io.msgscope.coordinator.agents.AgentEndpoint;
import io.msgscope.coordinator.agents.AgentInfo;
import io.msgscope.coordinator.agents.CorePlan;
import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlCodec;
import io.msgscope.control.ControlHub;
import io.msgscope.core.RunSpec;
import io.msgscope.proto.Bye;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.FlowProbe;
import io.msgscope.proto.FlowResult;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The flow-controlled throughput mode of seed 000 (A5-A7): one flow agent (publisher and consumer
 * in one process) keeps F messages in flight. Before the first probe a warm-up probe (discarded)
 * runs the client for the session warm-up's time and messages; each probe then warms up again by
 * messages (~2F, A7) and by time before it takes throughput samples over groups spanning at least the
 * threshold (issue 17). F is given or searched for (A6, {@link FSearch}); the search names the peak
 * and the knee and the final measurement uses the one {@link Pick} says.
 */
public final class ThroughputRun {
    /** Which of the search's results the final measurement uses. */
    public enum Pick { KNEE, PEAK }

    /** F of the session warm-up when F is searched for: a pipelined loop, seconds from any queue's limits. */
    public static final long WARMUP_IN_FLIGHT = 100;

    /**
     * Settings of the mode.
     *
     * @param warmupNs          the session warm-up before the first probe, at least this long …
     * @param warmupMessages    … and at least this many messages (0 and 0: none)
     * @param probeWarmupNs     every probe: after skipFactor·F messages, also at least this long
     * @param remeasure         the search's bounded re-measurements per comparison
     * @param maxProbes         the search's probe budget
     * @param pick              knee or peak for the final measurement
     */
    public record Settings(int samples, int finalSamples, long thresholdNs, double skipFactor, int maxExponent,
                           long warmupNs, long warmupMessages, long probeWarmupNs, int remeasure, int maxProbes,
                           Pick pick) {
    }

    /** One probe of the search as the agent answered it, with its phase and when the answer came. */
    public record Probed(ThroughputStats stats, String phase, long answeredEpochMs) {
    }

    /**
     * Everything the mode measured, immutable (issue 30; {@link ThroughputCollector} gathers it during the run).
     *
     * @param probes               every probe of the search in order; latency.hlog's intervals end when each came
     * @param finalAnsweredEpochMs when the final measurement's answer came (ms since the epoch)
     * @param failedDuring         the phase the failure ended (set-up, warm-up, search, measurement); null when none
     * @param usageFailure         true when the failure is the user's (exit code 2)
     * @param interruption         how far a run stopped by SIGINT or SIGTERM got (issue 29), null when none stopped it
     */
    public record Outcome(List<Probed> probes, long finalAnsweredEpochMs, FSearch.Result search, String searchMethod,
                          FlowResult warmup, FlowResult finalResult, ThroughputStats finalStats, AgentInfo flowAgent,
                          String destination, String failure, String failedDuring, boolean usageFailure,
                          List<String> warnings, List<String> notes, Interruption interruption) {
        public Outcome {
            probes = List.copyOf(probes);
            warnings = List.copyOf(warnings);
            notes = List.copyOf(notes);
        }

        /** A run that failed before any agent answered, e.g. when the agents could not be started. */
        public static Outcome failed(String failure, String failedDuring) {
            ThroughputCollector c = new ThroughputCollector();
            c.failure = failure;
            c.failedDuring = failedDuring;
            return c.outcome();
        }
    }

    private final RunSpec spec;
    private final Settings settings;
    private final CorePlan cores;
    private final PrintStream log;
    private io.msgscope.control.ControlCredentials credentials = io.msgscope.control.ControlCredentials.NONE;
    /** The signal that interrupted the run, null while none did; set from the signal's thread (issue 29). */
    private volatile String interruptedBy;
    /** The flow agent's link once connected: where an interrupt sends its Stop. */
    private volatile AgentLink flowAgentLink;

    /** What remote agents require: TLS certificates and/or the shared secret (issue 14). */
    public ThroughputRun credentials(io.msgscope.control.ControlCredentials c) {
        this.credentials = c;
        return this;
    }

    public ThroughputRun(RunSpec spec, Settings settings, CorePlan cores, PrintStream log) {
        this.spec = spec;
        this.settings = settings;
        this.cores = cores;
        this.log = log;
    }

    /**
     * SIGINT or SIGTERM (issue 29), from any thread: the probe under way ends now (the flow agent is told to stop and
     * answers what it took); the search's probes that finished are kept, a search probe cut short is not, and a final
     * measurement cut short is kept with the samples it took.
     */
    public void interrupt(String signal) {
        interruptedBy = signal;
        AgentLink l = flowAgentLink;
        if (l != null) {
            l.send(Envelope.newBuilder().setStop(io.msgscope.proto.Stop.getDefaultInstance()).build());
        }
    }

    /** Ends the run here when it was interrupted: what was measured so far is kept. */
    private void checkInterrupted(ThroughputCollector out, String stage) throws AgentFailure {
        String signal = interruptedBy;
        if (signal != null) {
            out.interrupted(signal, stage);
            throw new AgentFailure("msgscope", out.interruptedReason(), false);
        }
    }

    /**
     * @param inFlight F, or 0 to search for it
     * @param relay    the relay agent when the driver runs through it (tcp), else null
     */
    public Outcome run(AgentEndpoint flow, AgentEndpoint relay, long inFlight, Consumer<FSearch.Probe> progress) {
        ThroughputCollector out = new ThroughputCollector();
        out.warnings.addAll(cores.warnings());
        try (ControlHub hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME, credentials)) {
            AgentLink relayLink = null;
            AgentLink flowLink = null;
            String stage = "set-up";
            try {
                io.msgscope.proto.RunSpec.Builder base = io.msgscope.control.RunSpecs.throughput(spec);
                io.msgscope.proto.RunSpec.Builder fs = base.clone().setPinCpu(cores.sender());
                if (relay != null) {
                    relayLink = AgentLink.connect(hub, Role.RELAY, relay.host(), relay.port(), Deadlines.HANDSHAKE_MS,
                            relay::deathReason);
                    relayLink.send(Envelope.newBuilder().setSpec(base.clone().setPinCpu(cores.relay())
                            .setBindHost(relay.host())).build());
                    Ready r = hub.await(relayLink, Deadlines.READY_MS, "relay set-up", Envelope.BodyCase.READY)
                            .getReady();
                    fs.setConnectHost(relay.host()).setConnectPort(r.getEgressPort()).setIngressPort(r.getIngressPort());
                }
                flowLink = AgentLink.connect(hub, Role.FLOW, flow.host(), flow.port(), Deadlines.HANDSHAKE_MS,
                        flow::deathReason);
                flowLink.send(Envelope.newBuilder().setSpec(fs).build());
                Ready ready = hub.await(flowLink, Deadlines.READY_MS, "flow client set-up", Envelope.BodyCase.READY)
                        .getReady();
                flowAgentLink = flowLink; // prepared: a Stop from now on cuts its probe
                out.flowAgent = new AgentInfo("flow", flowLink.helloAck(), ready.getAffinity());
                out.destination = ready.getDestination();
                final AgentLink link = flowLink;
                if (settings.warmupNs() > 0 || settings.warmupMessages() > 0) {
                    stage = "warm-up";
                    checkInterrupted(out, stage);
                    long wf = inFlight > 0 ? inFlight : WARMUP_IN_FLIGHT;
                    out.warmup = probe(hub, link, wf, 0, settings.warmupMessages(), settings.warmupNs());
                    checkInterrupted(out, stage);
                    if (out.warmup.getTimedOut()) {
                        throw new AgentFailure("flow agent", "the warm-up at F = " + wf + " timed out ("
                                + out.warmup.getReceived() + " of " + out.warmup.getSent() + " messages came back)",
                                false);
                    }
                }
                FSearch.Measure measure = (f, phase) -> {
                    checkInterrupted(out, "search");
                    FlowResult r = probe(hub, link, f);
                    if (r.getSamplesCount() < settings.samples()) {
                        checkInterrupted(out, "search"); // a probe cut short is not the search's: discarded
                    }
                    if (r.getSamplesCount() == 0) {
                        throw new AgentFailure("flow agent", "no throughput sample at F = " + f
                                + (r.getTimedOut() ? " (timed out: " + r.getReceived() + " of " + r.getSent()
                                + " messages came back)" : ""), false);
                    }
                    ThroughputStats st = ThroughputStats.of(r);
                    out.probed(st, phase, System.currentTimeMillis());
                    return st.probe(phase);
                };
                long f = inFlight;
                if (f == 0) {
                    stage = "search";
                    FSearch search = new FSearch(measure, progress, settings.remeasure(), settings.maxProbes());
                    out.searchMethod = search.method(settings.maxExponent());
                    out.search = search.run(settings.maxExponent());
                    f = (settings.pick() == Pick.KNEE ? out.search.knee() : out.search.peak()).inFlight();
                    if (out.search.drifted()) {
                        io.msgscope.analysis.stats.MedianInterval c = out.search.peakThroughput().medianInterval();
                        io.msgscope.analysis.stats.MedianInterval p = out.search.peak().interval();
                        out.warnings.add(String.format(Locale.ROOT, "the peak's fresh probes at F = %d (median %.0f "
                                + "[%.0f, %.0f] msg/s) disagree with the probes that chose it (%.0f [%.0f, %.0f]): the "
                                + "system changed during the search, so peak and knee are unreliable; repeat on a "
                                + "quieter machine", out.search.peak().inFlight(), out.search.peakThroughput().median(),
                                c.lower(), c.upper(), out.search.peak().median(), p.lower(), p.upper()));
                    }
                    if (out.search.risesPastPlateau()) {
                        out.notes.add(String.format(Locale.ROOT, "the curve rises again past the plateau the knee was "
                                + "read off: the peak at F = %d (median %.0f msg/s) lies %.0f%% above the fitted plateau "
                                + "(%.0f msg/s); the knee is where the first plateau is reached (--pick peak measures at "
                                + "the peak)", out.search.peak().inFlight(), out.search.peakThroughput().median(),
                                100 * (out.search.peakThroughput().median() / out.search.fit().plateau() - 1),
                                out.search.fit().plateau()));
                    }
                    if (!out.search.fell()) {
                        out.warnings.add("throughput never clearly fell up to F = 10^" + settings.maxExponent()
                                + "; the peak may lie higher (raise --max-exponent)");
                    }
                }
                stage = "measurement";
                checkInterrupted(out, stage);
                // after a search the final measurement is the longer one (--final-samples); a fixed F's is its probe
                int finalSamples = inFlight == 0 ? settings.finalSamples() : settings.samples();
                FlowResult last = probe(hub, flowLink, f, finalSamples);
                out.finalAnsweredEpochMs = System.currentTimeMillis();
                if (interruptedBy != null && last.getSamplesCount() < finalSamples) {
                    out.finalCut(last, finalSamples); // cut short: kept when it took a sample
                    judge(out, f);
                    checkInterrupted(out, stage);
                }
                out.finalResult = last;
                out.finalStats = ThroughputStats.of(last);
                if (out.finalResult.getTimedOut() || out.finalStats.n() < finalSamples) {
                    out.failure = String.format(Locale.ROOT, "the final probe at F = %d took %d of %d samples%s", f,
                            out.finalStats.n(), finalSamples, out.finalResult.getTimedOut() ? " (timed out)" : "");
                }
                judge(out, f);
                if (out.failure != null) {
                    out.failedDuring = "measurement"; // too few samples, or the judge's verdict on the final probe
                }
            } catch (AgentFailure e) {
                if (interruptedBy != null) {
                    out.interrupted(interruptedBy, stage); // what the signal cut short failed: the signal is why
                }
                out.failure = out.interruptedDuring != null ? out.interruptedReason() : e.getMessage();
                out.failedDuring = out.interruptedDuring != null ? out.interruptedDuring : stage;
                out.usageFailure = e.usage();
            } catch (Exception e) {
                out.failure = e.getMessage() == null ? e.toString() : e.getMessage();
                out.failedDuring = stage;
            }
            for (AgentLink l : new AgentLink[] {flowLink, relayLink}) {
                if (l != null) {
                    l.send(Envelope.newBuilder().setBye(Bye.getDefaultInstance()).build());
                }
            }
        }
        return out.outcome();
    }

    /** The warnings and notes on the final measurement: stationarity, in flight, agreement with the search. */
    static void judge(ThroughputCollector out, long f) {
        ThroughputStats st = out.finalStats;
        if (st == null || st.n() == 0) {
            return;
        }
        String w = st.stationarityWarning();
        if (!w.isEmpty()) {
            out.warnings.add(w);
        }
        String n = st.inFlightNote();
        if (!n.isEmpty()) {
            out.notes.add(n);
        }
        if (out.search != null) {
            SearchPoint p = out.search.points().stream().filter(x -> x.inFlight() == f).findFirst().orElse(null);
            if (p != null) {
                io.msgscope.analysis.stats.SampleSummary s = p == out.search.peak() ? out.search.peakThroughput()
                        : p.summary();
                if (FSearch.disagree(s, st.samples())) {
                    out.warnings.add(String.format(Locale.ROOT, "the final median %.0f msg/s [%.0f, %.0f] disagrees "
                            + "with the search's at F = %d, %.0f msg/s [%.0f, %.0f]: the system drifted during the run",
                            st.median(), st.samples().medianInterval().lower(), st.samples().medianInterval().upper(), f,
                            s.median(), s.medianInterval().lower(), s.medianInterval().upper()));
                }
            }
        }
    }

    private FlowResult probe(ControlHub hub, AgentLink link, long f) throws AgentFailure {
        return probe(hub, link, f, settings.samples());
    }

    private FlowResult probe(ControlHub hub, AgentLink link, long f, int samples) throws AgentFailure {
        long skip = (long) Math.ceil(settings.skipFactor() * f);
        return probe(hub, link, f, samples, skip, settings.probeWarmupNs());
    }

    private FlowResult probe(ControlHub hub, AgentLink link, long f, int samples, long skip, long warmupNs)
            throws AgentFailure {
        // each sample spans at least the threshold: a long probe (--samples 8000 of 10 ms) needs that time and more
        long samplingMs = samples * settings.thresholdNs() / 1_000_000;
        long timeoutMs = 60_000 + 2 * samplingMs + skip / 100 + warmupNs / 1_000_000;
        link.send(Envelope.newBuilder().setFlowProbe(FlowProbe.newBuilder().setInFlight(f)
                .setSamples(samples).setThresholdNs(settings.thresholdNs()).setSkip(skip).setWarmupNs(warmupNs)
                .setTimeoutMs(timeoutMs)).build());
        return hub.await(link, timeoutMs + 60_000, "the throughput probe at F = " + f,
                Envelope.BodyCase.FLOW_RESULT).getFlowResult();
    }
}
