package io.msgscope.coordinator.scenario;

import io.msgscope.core.scenario.Scenario;
import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlCodec;
import io.msgscope.control.ControlHub;
import io.msgscope.coordinator.LocalAgents;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Go;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.ScenarioPlan;
import io.msgscope.proto.ScenarioQuery;
import io.msgscope.proto.ScenarioReport;
import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import io.msgscope.control.Frames;
import io.msgscope.core.driver.Fault;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs one scenario (seed 002) with a publishers agent and a subscribers agent on this box: spec
 * handshake, set-up (subscribers first, so no message finds an empty topic), warm-up, explicit reset,
 * measurement with a poll of both agents every second (the per-second series, counters; the run ends
 * early when every subscription is lost or every publisher stopped), in-flight wait (up to 5 s, Q9),
 * final histograms and counters from every agent still alive within 3 s.
 */
public final class ScenarioRun {
    /** What the run asks for. */
    public record Config(Scenario scenario, String driver, String uri, Map<String, String> options, int publishers,
                         int subscribers, double rate, long warmupMs, long durationMs, int size, boolean randomPadding,
                         long seed, String topicPrefix) {
    }

    /** What the run measured. */
    public static final class Outcome {
        public String failure;
        public boolean usage;
        /** The phase a failure ended: set-up, warm-up, measurement, drain (the in-flight wait) or aggregation. */
        public String failedDuring;
        /** Agents whose final figures could not be collected (dead, silent, or past the deadline), with why. */
        public final List<String> missingAgents = new ArrayList<>();
        public long sent;
        /** The latest counters of each agent (replaced by each report, never summed twice). */
        public final Map<String, Long> publisherCounters = new HashMap<>();
        public final Map<String, Long> subscriberCounters = new HashMap<>();
        /** Errors the coordinator saw itself (an agent's failure report, a lost agent), by kind. */
        public final Map<String, Long> runErrors = new TreeMap<>();
        /** The first error each agent reported, one line each. */
        public final List<String> firstErrors = new ArrayList<>();
        /** What the client saw of the broker (the subscribers' first connection). */
        public final Map<String, String> broker = new LinkedHashMap<>();
        /** The environment as the agents reported it (one box: latency compares their clocks). */
        public final Map<String, Object> environment = new LinkedHashMap<>();
        public Histogram latency;
        public Histogram intended;
        public final List<ScenarioResult.Second> seconds = new ArrayList<>();
        public boolean inFlightTimedOut;
        public long drainMs;

        /** Both agents' counters merged: {@code errors_*} summed over agents and the coordinator, the rest as reported. */
        public Map<String, Long> counters() {
            Map<String, Long> m = new HashMap<>(publisherCounters);
            for (Map.Entry<String, Long> e : subscriberCounters.entrySet()) {
                if (e.getKey().startsWith("errors_")) {
                    m.merge(e.getKey(), e.getValue(), Long::sum);
                } else {
                    m.put(e.getKey(), e.getValue());
                }
            }
            for (Map.Entry<String, Long> e : runErrors.entrySet()) {
                m.merge(e.getKey(), e.getValue(), Long::sum);
            }
            return m;
        }

        void fail(String why, String phase) {
            if (failure == null) {
                failure = why;
                failedDuring = phase;
            }
        }
    }

    /** How long the final aggregation waits for the agents still alive (Q9; issue 5: never hang). */
    static final long FINAL_DEADLINE_MS = 3_000;

    private final Config cfg;
    private final ProgressLine progress;

    /** ZeroMQ's proxy in the broker-probe agent when the driver routes through one (M1); else null. */
    private ScenarioMiddleBox box;

    public ScenarioRun(Config cfg, ProgressLine progress) {
        this.cfg = cfg;
        this.progress = progress;
    }

    public Outcome run(Path dir, List<String> jvmArgs) {
        return run(dir, jvmArgs, java.util.Map.of(), null);
    }

    /**
     * Runs the scenario; never throws and never hangs. A failure in any phase (an agent's error report, a
     * dead or silent agent, a refused connection, every subscription lost) ends the run there: the
     * coordinator then collects the final figures from every agent still alive within
     * {@link #FINAL_DEADLINE_MS}, names the agents it could not reach, and records the phase.
     *
     * @param remote agent daemons to use instead of local ones (issue 6), by role
     * @param secret the shared secret those agents require, or null
     */
    public Outcome run(Path dir, List<String> jvmArgs, java.util.Map<Role, io.msgscope.coordinator.AgentEndpoint> remote,
                       io.msgscope.control.SharedSecret secret) {
        Outcome o = new Outcome();
        String[] phase = {"set-up"};
        try (LocalAgents agents = new LocalAgents();
             ControlHub hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME, secret)) {
            List<AgentLink> links = new ArrayList<>();
            try {
                measure(o, phase, agents, hub, links, dir, jvmArgs, remote);
            } catch (AgentFailure e) {
                o.fail(e.getMessage(), phase[0]);
                o.usage = e.usage();
                String kind = e.kind().isEmpty() ? Fault.Kind.AGENT_LOST.name() : e.kind();
                if (!e.usage()) {
                    o.runErrors.merge(Fault.Kind.of(kind).field(), 1L, Long::sum);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                o.fail("interrupted", phase[0]);
            } catch (Exception e) {
                o.fail(e.getClass().getSimpleName() + ": " + e.getMessage(), phase[0]);
            }
            collectFinal(o, hub, links);
            if (box != null) {
                collectProxy(o, hub, box);
                links.add(box.link());
            }
            for (AgentLink l : links) {
                l.send(Envelope.newBuilder().setBye(io.msgscope.proto.Bye.getDefaultInstance()).build());
            }
        } catch (Exception e) {
            o.fail(e.getClass().getSimpleName() + ": " + e.getMessage(), phase[0]);
        }
        if (progress != null) {
            progress.finish();
        }
        return o;
    }

    private void measure(Outcome o, String[] phase, LocalAgents agents, ControlHub hub, List<AgentLink> links, Path dir,
                         List<String> jvmArgs, java.util.Map<Role, io.msgscope.coordinator.AgentEndpoint> remote)
            throws Exception {
        io.msgscope.coordinator.AgentEndpoint subA = remote.containsKey(Role.SUBSCRIBERS)
                ? remote.get(Role.SUBSCRIBERS) : agents.start(Role.SUBSCRIBERS, dir, jvmArgs, 30_000);
        io.msgscope.coordinator.AgentEndpoint pubA = remote.containsKey(Role.PUBLISHERS)
                ? remote.get(Role.PUBLISHERS) : agents.start(Role.PUBLISHERS, dir, jvmArgs, 30_000);
        AgentLink subs = AgentLink.connect(hub, Role.SUBSCRIBERS, subA.host(), subA.port(), 10_000, subA::deathReason);
        links.add(subs);
        AgentLink pubs = AgentLink.connect(hub, Role.PUBLISHERS, pubA.host(), pubA.port(), 10_000, pubA::deathReason);
        links.add(pubs);
        environment(o, subs, pubs);
        String pb = pubs.helloAck().getEnvironment().getBootId();
        String sb = subs.helloAck().getEnvironment().getBootId();
        if (!pb.isEmpty() && !sb.isEmpty() && !pb.equals(sb)) {
            // latency subtracts the publishers' epoch stamps from the subscribers' clock (Q1, R1)
            throw new AgentFailure("publishers and subscribers", "they run on different "
                    + "boxes (boot ids differ); latency compares their clocks, so they must share one box", true);
        }
        RunSpec spec = RunSpec.newBuilder().setRunId(Long.toHexString(cfg.seed())).setSize(cfg.size())
                .setRate(cfg.rate()).setRandomPadding(cfg.randomPadding()).setSeed(cfg.seed()).setPinCpu(-1)
                .setDriver(cfg.driver()).setUri(cfg.uri()).putAllDriverOptions(cfg.options()).build();
        box = ScenarioMiddleBox.startIfNeeded(cfg, agents, hub, dir, jvmArgs, remote, spec);
        for (AgentLink l : List.of(subs, pubs)) {
            RunSpec own = box == null ? spec : l == subs ? box.forSubscribers(spec) : box.forPublishers(spec);
            l.send(Envelope.newBuilder().setSpec(own).build());
            hub.await(l, 30_000, "the run spec", Envelope.BodyCase.READY);
        }
        ScenarioPlan plan = ScenarioPlan.newBuilder().setScenario(cfg.scenario().label())
                .addAllPublisherTopics(cfg.scenario().publisherTopics(base(), separator(), cfg.publishers()))
                .addAllSubscriberTopics(cfg.scenario().subscriberTopics(base(), separator(), cfg.subscribers()))
                .setGroup(cfg.scenario() == Scenario.ROUND_ROBIN ? "msgscope" + Long.toHexString(cfg.seed()) : "")
                .setRate(cfg.rate()).setWarmupMs(cfg.warmupMs()).setDurationMs(cfg.durationMs()).build();
        ScenarioReport setup = query(hub, subs, ScenarioQuery.newBuilder().setKind(ScenarioQuery.Kind.SETUP)
                .setPlan(plan).build(), 60_000);
        o.broker.putAll(setup.getInfoMap());
        query(hub, pubs, ScenarioQuery.newBuilder().setKind(ScenarioQuery.Kind.SETUP).setPlan(plan).build(), 60_000);

        if (cfg.warmupMs() > 0) {
            phase[0] = "warm-up";
            pubs.send(go(Phase.WARMUP));
            if (!tick(hub, subs, pubs, cfg.warmupMs(), "warm-up", null, o)) {
                query(hub, pubs, kind(ScenarioQuery.Kind.STOP), 10_000);
                hub.await(pubs, 30_000, "the warm-up", Envelope.BodyCase.PHASE_DONE);
                return;
            }
            hub.await(pubs, cfg.warmupMs() + 60_000, "the warm-up", Envelope.BodyCase.PHASE_DONE);
        }
        query(hub, subs, kind(ScenarioQuery.Kind.RESET), 10_000);
        query(hub, pubs, kind(ScenarioQuery.Kind.RESET), 10_000);
        if (box != null) {
            box.reset(hub);
        }
        phase[0] = "measurement";
        pubs.send(go(Phase.MEASURE));
        boolean full = tick(hub, subs, pubs, cfg.durationMs(), "", o.seconds, o);
        if (!full) {
            query(hub, pubs, kind(ScenarioQuery.Kind.STOP), 10_000);
        }
        PhaseDone done = hub.await(pubs, full ? cfg.durationMs() + 60_000 : 30_000, "the measurement",
                Envelope.BodyCase.PHASE_DONE).getPhaseDone();
        o.sent = done.getSent();
        o.publisherCounters.putAll(done.getCountersMap());
        if (!full && allLost(o.subscriberCounters)) {
            return; // nothing left to receive in-flight messages
        }
        // Q9: publishers stopped; wait up to 5 s for in-flight messages
        phase[0] = "drain";
        long expected = cfg.scenario().expected(o.sent, cfg.subscribers());
        long t0 = System.nanoTime();
        while (true) {
            ScenarioReport p = query(hub, subs, kind(ScenarioQuery.Kind.PROGRESS), 10_000);
            o.subscriberCounters.putAll(p.getCountersMap());
            long received = p.getCountersOrDefault("messages_received", 0);
            long waited = (System.nanoTime() - t0) / 1_000_000;
            if (received >= expected || allLost(o.subscriberCounters)) {
                break;
            }
            if (waited >= 5_000) {
                o.inFlightTimedOut = true;
                break;
            }
            Thread.sleep(100);
        }
        o.drainMs = (System.nanoTime() - t0) / 1_000_000;
        phase[0] = "aggregation";
    }

    /**
     * Q9 with a deadline: FINAL from the subscribers (histograms, counters) and the publishers, each agent
     * still alive answering within {@link #FINAL_DEADLINE_MS} in all; an agent that is dead, silent or
     * late is named in {@link Outcome#missingAgents} and the run marked failed.
     */
    private static void collectFinal(Outcome o, ControlHub hub, List<AgentLink> links) {
        long deadline = System.nanoTime() + FINAL_DEADLINE_MS * 1_000_000L;
        List<AgentLink> gone = new ArrayList<>();
        for (AgentLink l : links) {
            while (!gone.contains(l)) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    missing(o, gone, l, "no final figures within " + FINAL_DEADLINE_MS + " ms");
                    break;
                }
                try {
                    ScenarioReport fin = query(hub, l, kind(ScenarioQuery.Kind.FINAL), left);
                    if (l.role() == Role.SUBSCRIBERS) {
                        o.subscriberCounters.putAll(fin.getCountersMap());
                        o.latency = decode(fin.getLatencyHistogram());
                        o.intended = decode(fin.getIntendedHistogram());
                    } else {
                        o.publisherCounters.putAll(fin.getCountersMap());
                    }
                    if (!fin.getFirstError().isEmpty()) {
                        o.firstErrors.add(Frames.name(l.role()) + ": " + fin.getFirstError());
                    }
                    break;
                } catch (AgentFailure e) {
                    // the agent asked, or another one the hub found dead meanwhile (then ask again)
                    AgentLink culprit = links.stream().filter(x -> x.name().equals(e.agent())).findFirst().orElse(l);
                    missing(o, gone, culprit, e.getMessage());
                } catch (Exception e) {
                    missing(o, gone, l, e.getClass().getSimpleName() + ": " + e.getMessage());
                }
            }
        }
        if (!o.missingAgents.isEmpty()) {
            o.fail("missing final figures from " + String.join("; ", o.missingAgents), "aggregation");
        }
    }

    /** The proxy's counters over the measurement; a dead or silent proxy is named missing and fails the run. */
    private static void collectProxy(Outcome o, ControlHub hub, ScenarioMiddleBox box) {
        try {
            o.publisherCounters.putAll(box.measured(hub));
        } catch (Exception e) {
            String why = e instanceof AgentFailure f ? f.getMessage() : e.getClass().getSimpleName() + ": " + e.getMessage();
            missing(o, new ArrayList<>(), box.link(), why);
            o.fail("missing final figures from " + String.join("; ", o.missingAgents), "aggregation");
        }
    }

    private static void missing(Outcome o, List<AgentLink> gone, AgentLink l, String why) {
        if (!gone.contains(l)) {
            gone.add(l);
            o.missingAgents.add(why.startsWith(l.name()) ? why : l.name() + ": " + why);
            l.close(); // from now on the hub ignores this agent
        }
    }

    /** Every {@code errors_<kind>} counter summed. */
    static long errors(Map<String, Long> counters) {
        long n = 0;
        for (Fault.Kind k : Fault.Kind.values()) {
            n += counters.getOrDefault(k.field(), 0L);
        }
        return n;
    }

    private static boolean allLost(Map<String, Long> subCounters) {
        long n = subCounters.getOrDefault("subscriptions", 0L);
        return n > 0 && subCounters.getOrDefault("subscriptions_lost", 0L) >= n;
    }

    private static boolean allStopped(Map<String, Long> pubCounters) {
        long n = pubCounters.getOrDefault("publishers", 0L);
        return n > 0 && pubCounters.getOrDefault("publishers_stopped", 0L) >= n;
    }

    private static void environment(Outcome o, AgentLink subs, AgentLink pubs) {
        io.msgscope.proto.Environment e = subs.helloAck().getEnvironment();
        o.environment.put("host", e.getHostname());
        o.environment.put("jvm", e.getJvm());
        o.environment.put("os", e.getOs());
        o.environment.put("cpu_model", e.getCpuModel());
        o.environment.put("logical_cores", e.getLogicalCores());
        o.environment.put("physical_cores", e.getPhysicalCores());
        o.environment.put("tool", "msgscope " + subs.helloAck().getToolVersion());
        o.environment.put("subscribers_agent", subs.helloAck().getHost() + " pid " + subs.helloAck().getPid());
        o.environment.put("publishers_agent", pubs.helloAck().getHost() + " pid " + pubs.helloAck().getPid());
    }

    /** The scenario's topic base: {@code --topic-prefix}, else {@code msgscope/<scenario>-<run id>} (mqtt) or with dots (nats). */
    String base() {
        if (cfg.topicPrefix() != null) {
            return cfg.topicPrefix();
        }
        return (cfg.driver().equals("mqtt") ? "msgscope/" : "msgscope.") + cfg.scenario().label() + "-"
                + Long.toHexString(cfg.seed());
    }

    char separator() {
        return cfg.driver().equals("mqtt") ? '/' : '.';
    }

    /**
     * Polls the agents once a second for {@code ms}: the subscribers' interval (rate, percentiles; the
     * series when {@code series} is given) and both agents' counters. Returns false when the run must
     * end early: every subscription lost, or every publisher stopped on an error.
     */
    private boolean tick(ControlHub hub, AgentLink subs, AgentLink pubs, long ms, String phaseLabel,
                         List<ScenarioResult.Second> series, Outcome o) throws Exception {
        long start = System.nanoTime();
        long total = (ms + 999) / 1000;
        String phaseName = phaseLabel.isEmpty() ? "measurement" : phaseLabel;
        for (long s = 1; s <= total; s++) {
            long due = start + s * 1_000_000_000L;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            ScenarioReport r = query(hub, subs, kind(ScenarioQuery.Kind.PROGRESS), 10_000);
            o.subscriberCounters.putAll(r.getCountersMap());
            ScenarioReport pr = query(hub, pubs, kind(ScenarioQuery.Kind.PROGRESS), 10_000);
            o.publisherCounters.putAll(pr.getCountersMap());
            Histogram h = decode(r.getLatencyHistogram());
            double secs = r.getIntervalNs() > 0 ? r.getIntervalNs() / 1e9 : 1.0;
            double rate = r.getMessages() / secs;
            long p99 = h.getTotalCount() == 0 ? -1 : h.getValueAtPercentile(99);
            if (series != null) {
                series.add(new ScenarioResult.Second(s, rate,
                        h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(50) / 1e3, Math.max(0, p99) / 1e3));
            }
            if (progress != null) {
                progress.update(phaseLabel, s, total, rate, p99, errors(o.counters()));
            }
            if (allLost(o.subscriberCounters)) {
                o.fail("all " + o.subscriberCounters.get("subscriptions") + " subscriptions lost"
                        + (r.getFirstError().isEmpty() ? "" : ": " + r.getFirstError()), phaseName);
                return false;
            }
            if (allStopped(o.publisherCounters)) {
                o.fail("every publisher stopped on an error" + (pr.getFirstError().isEmpty() ? ""
                        : ": " + pr.getFirstError()), phaseName);
                return false;
            }
        }
        return true;
    }

    private static ScenarioReport query(ControlHub hub, AgentLink l, ScenarioQuery q, long timeoutMs) throws AgentFailure {
        l.send(Envelope.newBuilder().setScenarioQuery(q).build());
        return hub.await(l, timeoutMs, "scenario " + q.getKind(), Envelope.BodyCase.SCENARIO_REPORT).getScenarioReport();
    }

    private static ScenarioQuery kind(ScenarioQuery.Kind k) {
        return ScenarioQuery.newBuilder().setKind(k).build();
    }

    private static Envelope go(Phase p) {
        return Envelope.newBuilder().setGo(Go.newBuilder().setPhase(p)).build();
    }

    static Histogram decode(com.google.protobuf.ByteString b) throws java.util.zip.DataFormatException {
        if (b.isEmpty()) {
            return new Histogram(1_000, 10_000_000_000L, 3);
        }
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(b.toByteArray()), 0);
    }
}
