package io.msgscope.coordinator.scenario;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlHub;
import io.msgscope.coordinator.agents.Deadlines;
import io.msgscope.coordinator.agents.AgentEndpoint;
import io.msgscope.coordinator.agents.AgentPlan;
import io.msgscope.core.driver.Drivers;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Go;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;

import java.util.Map;
import java.util.TreeMap;

/**
 * The scenario's middle box when the driver has one of its own (ZeroMQ: the XSUB/XPUB or PUSH/PULL
 * proxy, {@code via=proxy}): the broker-probe agent runs it (M1), the publishers connect to its
 * ingress port and the subscribers to its egress port. Its link joins the run's control hub, so a
 * dead proxy fails the run at once, naming it. It reports what it forwarded and its forwarding
 * thread's CPU time over the measurement only (counted from the reset after the warm-up, Q6/Q7):
 * {@code proxy_forwarded}, {@code proxy_cpu_ns}, from which the summary derives CPU per message (M3).
 * Kept apart from {@link ScenarioRun} so that the run stays driver-free.
 */
final class ScenarioMiddleBox {
    private final AgentLink link;
    private final String host;
    private final Ready ready;
    private Map<String, Long> atReset = Map.of();

    private ScenarioMiddleBox(AgentLink link, String host, Ready ready) {
        this.link = link;
        this.host = host;
        this.ready = ready;
    }

    /** Starts the proxy when the driver's options route through one; else null. */
    static ScenarioMiddleBox startIfNeeded(ScenarioConfig cfg, AgentPlan agents, ControlHub hub, RunSpec spec)
            throws Exception {
        if (!Drivers.load().get(cfg.driver()).usesRelay(cfg.options())) {
            return null;
        }
        AgentEndpoint ep = ScenarioLinks.agents(agents, Role.RELAY).get(0);
        AgentLink link = AgentLink.connect(hub, Role.RELAY, ep.host(), ep.port(), Deadlines.HANDSHAKE_MS, ep::deathReason);
        link.send(Envelope.newBuilder().setSpec(spec.toBuilder().setBindHost(ep.host())).build());
        Ready r = hub.await(link, Deadlines.READY_MS, "the proxy set-up", Envelope.BodyCase.READY).getReady();
        return new ScenarioMiddleBox(link, ep.host(), r);
    }

    RunSpec forPublishers(RunSpec spec) {
        return spec.toBuilder().setConnectHost(host).setConnectPort(ready.getIngressPort()).build();
    }

    RunSpec forSubscribers(RunSpec spec) {
        return spec.toBuilder().setConnectHost(host).setConnectPort(ready.getEgressPort()).build();
    }

    /** At the reset after the warm-up: what the measurement's figures start from. */
    void reset(ControlHub hub) throws AgentFailure {
        atReset = counters(hub);
    }

    /** The proxy's counters over the measurement (totals minus those at the reset). */
    Map<String, Long> measured(ControlHub hub) throws AgentFailure {
        Map<String, Long> end = counters(hub);
        Map<String, Long> m = new TreeMap<>();
        end.forEach((k, v) -> m.put(k, k.equals("proxy_subscriptions") ? v : v - atReset.getOrDefault(k, 0L)));
        return m;
    }

    private Map<String, Long> counters(ControlHub hub) throws AgentFailure {
        link.send(Envelope.newBuilder().setGo(Go.newBuilder().setPhase(Phase.MEASURE)).build());
        PhaseDone d = hub.await(link, 10_000, "the proxy's count", Envelope.BodyCase.PHASE_DONE).getPhaseDone();
        Map<String, Long> c = new TreeMap<>(d.getCountersMap());
        c.put("proxy_forwarded", d.getReceived());
        return c;
    }

    AgentLink link() {
        return link;
    }
}
