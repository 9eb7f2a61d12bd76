package io.msgscope.coordinator.scenario;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlHub;
import io.msgscope.control.Frames;
import io.msgscope.coordinator.agents.AgentEndpoint;
import io.msgscope.coordinator.agents.AgentPlan;
import io.msgscope.coordinator.agents.Deadlines;
import io.msgscope.coordinator.agents.LocalAgents;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Go;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Role;
import io.msgscope.proto.ScenarioQuery;
import io.msgscope.proto.ScenarioReport;
import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The agents of one scenario run once connected (issue 13: one or more per role): their links by role, what each
 * last reported, the queries the run sends them (one round trip for all), and the final collection with its deadline
 * (Q9). {@link ScenarioRun} drives the phases; this holds whom it talks to and what they said.
 */
final class ScenarioLinks {
    /** How the final aggregation waits for the agents still alive (Q9; issue 5: never hang). */
    static final long FINAL_DEADLINE_MS = 3_000;

    private final ControlHub hub;
    /** The agents of each role, and each one's latest counters. */
    final List<AgentLink> subs = new ArrayList<>();
    final List<AgentLink> pubs = new ArrayList<>();
    private final Map<AgentLink, Map<String, Long>> latest = new LinkedHashMap<>();

    ScenarioLinks(ControlHub hub) {
        this.hub = hub;
    }

    /**
     * SETUP to every agent: each gets its slice of its role's topics (its connections) and of the connect rate, and
     * counts its messages per {@code bucketMs} of epoch time when above 0 (faults, issue 32).
     */
    void setUp(ScenarioConfig cfg, List<String> subTopics, List<String> pubTopics, String group, int bucketMs)
            throws AgentFailure {
        int total = cfg.publishers() + cfg.subscribers();
        for (List<AgentLink> role : List.of(subs, pubs)) {
            List<String> topics = role == subs ? subTopics : pubTopics;
            for (int k = 0; k < role.size(); k++) {
                int from = (int) ((long) topics.size() * k / role.size());
                int to = (int) ((long) topics.size() * (k + 1) / role.size());
                io.msgscope.proto.ScenarioPlan.Builder p = io.msgscope.proto.ScenarioPlan.newBuilder()
                        .setScenario(cfg.scenario().label()).setGroup(group)
                        .setRate(cfg.rate()).setWarmupMs(cfg.warmupMs()).setDurationMs(cfg.durationMs())
                        .setIoThreads(cfg.connections().ioThreads()).addAllPhases(ScenarioPhases.proto(cfg))
                        .setConnectRate(cfg.connections().connectRate() * (to - from) / Math.max(1, total))
                        .addAllSourceAddresses(cfg.connections().sourceAddresses())
                        .setFirstIndex(from).setRoleTotal(topics.size()).setBucketMs(bucketMs);
                if (role == subs) {
                    p.addAllSubscriberTopics(topics.subList(from, to));
                } else {
                    p.addAllPublisherTopics(topics.subList(from, to));
                }
                query(role.get(k), ScenarioQuery.newBuilder().setKind(ScenarioQuery.Kind.SETUP).setPlan(p).build(),
                        Deadlines.START_MS);
            }
        }
    }

    /** Every agent, the subscribers agents first; a new list the caller may extend. */
    List<AgentLink> all() {
        List<AgentLink> l = new ArrayList<>(subs);
        l.addAll(pubs);
        return l;
    }

    /** Recomputes the per-role sums from each agent's latest counters. */
    void aggregate(ScenarioCollector o) {
        o.publisherCounters.clear();
        o.subscriberCounters.clear();
        for (Map.Entry<AgentLink, Map<String, Long>> e : latest.entrySet()) {
            Map<String, Long> into = e.getKey().role() == Role.SUBSCRIBERS ? o.subscriberCounters : o.publisherCounters;
            e.getValue().forEach((k, v) -> into.merge(k, v, Long::sum));
        }
        ScenarioCounters.confirmedOnlyFromAll(o.publisherCounters, pubs.stream()
                .map(l -> latest.getOrDefault(l, Map.of())).toList());
    }

    /** Waits for every publishers agent's end of phase; returns the messages they sent in it, summed. */
    long awaitDone(long timeoutMs, String what) throws AgentFailure {
        long sent = 0;
        for (AgentLink l : pubs) {
            PhaseDone d = hub.await(l, timeoutMs, what, Envelope.BodyCase.PHASE_DONE).getPhaseDone();
            latest.put(l, new TreeMap<>(d.getCountersMap()));
            sent += d.getSent();
        }
        return sent;
    }

    /**
     * Q9 with a deadline: FINAL from every subscribers agent (histograms, counters) and every publishers
     * agent, each agent still alive answering within {@link #FINAL_DEADLINE_MS} in all; an agent that is
     * dead, silent or late is named in {@link ScenarioCollector#missingAgents} and the run marked failed.
     */
    void collectFinal(ScenarioCollector o, List<AgentLink> links) {
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
                    ScenarioReport fin = query(l, kind(ScenarioQuery.Kind.FINAL), left);
                    o.addBuckets(fin, l.role() == Role.SUBSCRIBERS); // faults only (issue 32); else nothing
                    if (l.role() == Role.SUBSCRIBERS) {
                        o.latency = merge(o.latency, decode(fin.getLatencyHistogram()));
                        o.intended = merge(o.intended, decode(fin.getIntendedHistogram()));
                        o.backlogReads = ScenarioBacklog.Reads.add(o.backlogReads, fin);
                    }
                    o.connect = merge(o.connect, decode(fin.getConnectHistogram()));
                    if (!fin.getFirstError().isEmpty()) {
                        o.firstErrors.add(Frames.name(l.role()) + (sameRole(l) > 1 ? " " + l.name() : "") + ": "
                                + fin.getFirstError());
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
        aggregate(o);
        if (!o.missingAgents.isEmpty()) {
            o.fail("missing final figures from " + String.join("; ", o.missingAgents), "aggregation");
        }
    }

    private int sameRole(AgentLink l) {
        return l.role() == Role.SUBSCRIBERS ? subs.size() : pubs.size();
    }

    static Histogram merge(Histogram into, Histogram h) {
        if (into == null) {
            return h;
        }
        into.add(h);
        return into;
    }

    /** The proxy's counters over the measurement; a dead or silent proxy is named missing and fails the run. */
    void collectProxy(ScenarioCollector o, ScenarioMiddleBox box) {
        try {
            o.publisherCounters.putAll(box.measured(hub));
        } catch (Exception e) {
            String why = e instanceof AgentFailure f ? f.getMessage() : e.getClass().getSimpleName() + ": " + e.getMessage();
            missing(o, new ArrayList<>(), box.link(), why);
            o.fail("missing final figures from " + String.join("; ", o.missingAgents), "aggregation");
        }
    }

    private static void missing(ScenarioCollector o, List<AgentLink> gone, AgentLink l, String why) {
        if (!gone.contains(l)) {
            gone.add(l);
            o.missingAgents.add(why.startsWith(l.name()) ? why : l.name() + ": " + why);
            l.close(); // from now on the hub ignores this agent
        }
    }

    void environment(ScenarioCollector o) {
        io.msgscope.proto.Environment e = subs.get(0).helloAck().getEnvironment();
        o.environment.put("host", e.getHostname());
        o.environment.put("jvm", e.getJvm());
        o.environment.put("os", e.getOs());
        o.environment.put("cpu_model", e.getCpuModel());
        o.environment.put("logical_cores", e.getLogicalCores());
        o.environment.put("physical_cores", e.getPhysicalCores());
        o.environment.put("tool", "msgscope " + subs.get(0).helloAck().getToolVersion());
        o.environment.put("subscribers_agent", agents(subs));
        o.environment.put("publishers_agent", agents(pubs));
    }

    private static String agents(List<AgentLink> links) {
        List<String> s = new ArrayList<>();
        for (AgentLink l : links) {
            s.add(l.helloAck().getHost() + " pid " + l.helloAck().getPid());
        }
        return String.join(", ", s);
    }

    ScenarioReport query(AgentLink l, ScenarioQuery q, long timeoutMs) throws AgentFailure {
        l.send(Envelope.newBuilder().setScenarioQuery(q).build());
        ScenarioReport r = hub.await(l, timeoutMs, "scenario " + q.getKind(), Envelope.BodyCase.SCENARIO_REPORT)
                .getScenarioReport();
        latest.put(l, new TreeMap<>(r.getCountersMap()));
        return r;
    }

    /** Sends the query to every agent first, then collects the answers in order (one round trip, not one per agent). */
    List<ScenarioReport> queryAll(List<AgentLink> links, ScenarioQuery q, long timeoutMs)
            throws AgentFailure {
        Envelope env = Envelope.newBuilder().setScenarioQuery(q).build();
        for (AgentLink l : links) {
            l.send(env);
        }
        List<ScenarioReport> out = new ArrayList<>();
        for (AgentLink l : links) {
            ScenarioReport r = hub.await(l, timeoutMs, "scenario " + q.getKind(), Envelope.BodyCase.SCENARIO_REPORT)
                    .getScenarioReport();
            if (r.getCountersCount() > 0) { // a light answer (WATCH, FREEZE, PHASE_END) carries none
                latest.put(l, new TreeMap<>(r.getCountersMap()));
            }
            out.add(r);
        }
        return out;
    }

    static void sendAll(List<AgentLink> links, Envelope env) {
        for (AgentLink l : links) {
            l.send(env);
        }
    }

    /**
     * Go(phase) to every publishers agent, then a wait of {@link #PUBLISHERS_LEAD_MS}: the publishers start sending
     * that long after their Go, so the poll windows counted from here begin with their schedule (issue 31: a load
     * phase's windows would otherwise hold the lead's worth of the phase before). On phases that pause the consumers
     * ({@code subscribersFollow}) the subscribers agents get the Go first: they follow the same timeline from it.
     */
    void start(Phase p, boolean subscribersFollow) throws InterruptedException {
        start(p, subscribersFollow, null);
    }

    /**
     * As {@link #start(Phase, boolean)}, every agent on the instant {@code words} picks (issue 31: phases that end on a
     * word), which this waits for; null: each publishers agent starts {@link #PUBLISHERS_LEAD_MS} after its go.
     */
    void start(Phase p, boolean subscribersFollow, ScenarioWords words) throws InterruptedException {
        start(p, subscribersFollow, words, startMono -> { });
    }

    /** The same, telling {@code startsAt} the instant the publishers start (monotonic ns) before any Go is sent. */
    void start(Phase p, boolean subscribersFollow, ScenarioWords words, java.util.function.LongConsumer startsAt)
            throws InterruptedException {
        Envelope go = go(p, words == null ? 0 : words.pickStart());
        startsAt.accept(words == null ? System.nanoTime() + PUBLISHERS_LEAD_MS * 1_000_000L : words.startMono());
        if (subscribersFollow) {
            sendAll(subs, go); // no answer: the agent pauses and resumes on its own (issue 31 item 3)
        }
        sendAll(pubs, go);
        if (words == null) {
            Thread.sleep(PUBLISHERS_LEAD_MS);
        } else {
            for (long left; (left = words.startMono() - System.nanoTime()) > 0; ) {
                java.util.concurrent.locks.LockSupport.parkNanos(left);
            }
        }
    }

    /** How long after its Go a publishers agent starts a phase (agent-sender's PublishersRole: every pacer on one schedule). */
    static final long PUBLISHERS_LEAD_MS = 20;

    static ScenarioQuery kind(ScenarioQuery.Kind k) {
        return ScenarioQuery.newBuilder().setKind(k).build();
    }

    static Envelope go(Phase p) {
        return go(p, 0);
    }

    /** Go(phase); with {@code startEpochNs} above 0 every agent starts the timeline on that instant (issue 31). */
    static Envelope go(Phase p, long startEpochNs) {
        Go.Builder g = Go.newBuilder().setPhase(p);
        if (startEpochNs > 0) {
            g.setStartEpochNs(startEpochNs);
        }
        return Envelope.newBuilder().setGo(g).build();
    }

    /** An interval of the latency log; a missing histogram (no subscribers agent answered) is an empty one. */
    static ScenarioResult.Interval interval(long fromMs, long toMs, String tag, Histogram h) {
        Histogram hist = h != null ? h : io.msgscope.core.LatencyRange.histogram();
        ByteBuffer buf = ByteBuffer.allocate(hist.getNeededByteBufferCapacity());
        int len = hist.encodeIntoCompressedByteBuffer(buf);
        return new ScenarioResult.Interval(fromMs, Math.max(fromMs, toMs), tag, java.util.Arrays.copyOf(buf.array(), len));
    }

    /** A histogram the agents sent compressed ({@code what} names it when it does not decode: a bug, not input). */
    static Histogram decoded(byte[] compressed, String what) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(compressed), 0);
        } catch (java.util.zip.DataFormatException e) {
            throw new IllegalStateException(what + " does not decode: " + e.getMessage(), e);
        }
    }

    static Histogram decode(com.google.protobuf.ByteString b) throws java.util.zip.DataFormatException {
        if (b.isEmpty()) {
            // empty: the wider of the two ranges decoded here (connect times up to 60 s, latency up to 10 s)
            return new Histogram(io.msgscope.core.driver.ConnectStats.LOWEST_NS,
                    io.msgscope.core.driver.ConnectStats.HIGHEST_NS, io.msgscope.core.LatencyRange.DIGITS);
        }
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(b.toByteArray()), 0);
    }

    /** Every agent of a role from the plan, connected. */
    void connect(AgentPlan agents, Role role, List<AgentLink> into) throws Exception {
        for (AgentEndpoint ep : agents(agents, role)) {
            into.add(AgentLink.connect(hub, role, ep.host(), ep.port(), Deadlines.HANDSHAKE_MS, ep::deathReason));
        }
    }

    /**
     * The agents of {@code role} from the plan; one that died (or never came up) while it started is an agent lost at
     * set-up, as the control plane reports one, whichever role it had.
     */
    static List<AgentEndpoint> agents(AgentPlan agents, Role role) throws Exception {
        try {
            return agents.agents(role);
        } catch (LocalAgents.StartFailure e) {
            throw e.asAgentFailure();
        }
    }

    /** ": " and the first error any report names, or nothing. */
    static String firstError(List<ScenarioReport> reports) {
        for (ScenarioReport r : reports) {
            if (!r.getFirstError().isEmpty()) {
                return ": " + r.getFirstError();
            }
        }
        return "";
    }
}
