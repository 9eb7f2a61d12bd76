package io.msgscope.coordinator;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlCodec;
import io.msgscope.control.ControlHub;
import io.msgscope.core.Padding;
import io.msgscope.core.RunSpec;
import io.msgscope.proto.Bye;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.FlowProbe;
import io.msgscope.proto.FlowResult;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The flow-controlled throughput mode of seed 000 (A5-A7): one flow agent (publisher and consumer
 * in one process) keeps F messages in flight; each probe skips ~2F messages, then takes throughput
 * samples over groups spanning at least the threshold; F is given or searched for (A6, {@link FSearch}).
 */
public final class ThroughputRun {
    /** Settings of the mode. */
    public record Settings(int samples, long thresholdNs, double skipFactor, int maxExponent) {
    }

    /** Everything the mode measured. */
    public static final class Outcome {
        public final List<FSearch.Probe> probes = new ArrayList<>();
        public FSearch.Result search;
        public FlowResult finalResult;
        public ThroughputStats finalStats;
        public AgentInfo flowAgent;
        public String destination = "";
        public String failure;
        public boolean usageFailure;
        public final List<String> warnings = new ArrayList<>();
    }

    private final RunSpec spec;
    private final Settings settings;
    private final CorePlan cores;
    private final PrintStream log;
    private io.msgscope.control.ControlCredentials credentials = io.msgscope.control.ControlCredentials.NONE;

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
     * @param inFlight F, or 0 to search for it
     * @param relay    the relay agent when the driver runs through it (tcp), else null
     */
    public Outcome run(AgentEndpoint flow, AgentEndpoint relay, long inFlight, Consumer<FSearch.Probe> progress) {
        Outcome out = new Outcome();
        out.warnings.addAll(cores.warnings());
        try (ControlHub hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME, credentials)) {
            AgentLink relayLink = null;
            AgentLink flowLink = null;
            try {
                io.msgscope.proto.RunSpec.Builder base = io.msgscope.proto.RunSpec.newBuilder().setRunId("throughput")
                        .setCount(1).setSize(spec.size()).setRandomPadding(spec.padding() == Padding.RANDOM)
                        .setSeed(spec.seed()).setSocketBuffer(spec.socketBuffer()).setDriver(spec.driver())
                        .setUri(spec.uri()).putAllDriverOptions(spec.driverOptions()).setPinCpu(-1);
                io.msgscope.proto.RunSpec.Builder fs = base.clone().setPinCpu(cores.sender());
                if (relay != null) {
                    relayLink = AgentLink.connect(hub, Role.RELAY, relay.host(), relay.port(), TraceRun.HANDSHAKE_MS,
                            relay::deathReason);
                    relayLink.send(Envelope.newBuilder().setSpec(base.clone().setPinCpu(cores.relay())
                            .setBindHost(relay.host())).build());
                    Ready r = hub.await(relayLink, TraceRun.READY_MS, "relay set-up", Envelope.BodyCase.READY)
                            .getReady();
                    fs.setConnectHost(relay.host()).setConnectPort(r.getEgressPort()).setIngressPort(r.getIngressPort());
                }
                flowLink = AgentLink.connect(hub, Role.FLOW, flow.host(), flow.port(), TraceRun.HANDSHAKE_MS,
                        flow::deathReason);
                flowLink.send(Envelope.newBuilder().setSpec(fs).build());
                Ready ready = hub.await(flowLink, TraceRun.READY_MS, "flow client set-up", Envelope.BodyCase.READY)
                        .getReady();
                out.flowAgent = new AgentInfo("flow", flowLink.helloAck(), ready.getAffinity());
                out.destination = ready.getDestination();
                final AgentLink link = flowLink;
                FSearch.Measure measure = (f, phase) -> {
                    FlowResult r = probe(hub, link, f);
                    if (r.getSamplesCount() == 0) {
                        throw new AgentFailure("flow agent", "no throughput sample at F = " + f
                                + (r.getTimedOut() ? " (timed out: " + r.getReceived() + " of " + r.getSent()
                                + " messages came back)" : ""), false);
                    }
                    ThroughputStats st = ThroughputStats.of(r.getSamplesList().stream().mapToDouble(d -> d).toArray());
                    FSearch.Probe p = new FSearch.Probe(f, st.median(), st.mean(), st.stddev(), st.n(), phase);
                    out.probes.add(p);
                    return p;
                };
                long f = inFlight;
                if (f == 0) {
                    out.search = new FSearch(measure, progress).run(settings.maxExponent());
                    f = out.search.optimal();
                    if (!out.search.fell()) {
                        out.warnings.add("throughput still rose at F = 10^" + settings.maxExponent()
                                + "; the optimum may lie higher (raise --max-exponent)");
                    }
                }
                out.finalResult = probe(hub, flowLink, f);
                out.finalStats = ThroughputStats.of(out.finalResult.getSamplesList().stream()
                        .mapToDouble(d -> d).toArray());
                if (out.finalResult.getTimedOut() || out.finalStats.n() < settings.samples()) {
                    out.failure = String.format(Locale.ROOT, "the final probe at F = %d took %d of %d samples%s", f,
                            out.finalStats.n(), settings.samples(), out.finalResult.getTimedOut() ? " (timed out)" : "");
                }
            } catch (AgentFailure e) {
                out.failure = e.getMessage();
                out.usageFailure = e.usage();
            } catch (Exception e) {
                out.failure = e.getMessage() == null ? e.toString() : e.getMessage();
            }
            for (AgentLink l : new AgentLink[] {flowLink, relayLink}) {
                if (l != null) {
                    l.send(Envelope.newBuilder().setBye(Bye.getDefaultInstance()).build());
                }
            }
        }
        return out;
    }

    private FlowResult probe(ControlHub hub, AgentLink link, long f) throws AgentFailure {
        long skip = (long) Math.ceil(settings.skipFactor() * f);
        long timeoutMs = 60_000 + skip / 100;
        link.send(Envelope.newBuilder().setFlowProbe(FlowProbe.newBuilder().setInFlight(f)
                .setSamples(settings.samples()).setThresholdNs(settings.thresholdNs()).setSkip(skip)
                .setTimeoutMs(timeoutMs)).build());
        return hub.await(link, timeoutMs + 60_000, "the throughput probe at F = " + f,
                Envelope.BodyCase.FLOW_RESULT).getFlowResult();
    }
}
