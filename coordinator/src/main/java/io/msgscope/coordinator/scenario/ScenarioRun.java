package io.msgscope.coordinator.scenario;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlCodec;
import io.msgscope.control.ControlHub;
import io.msgscope.control.Frames;
import io.msgscope.coordinator.AgentEndpoint;
import io.msgscope.coordinator.ClockOffset;
import io.msgscope.coordinator.LocalAgents;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs one scenario (seed 002) with one or more publishers agents and one or more subscribers agents
 * (issue 13: several agents of a role split the connections, their histograms merge with
 * {@code add()}): spec handshake; set-up, in which every agent opens its share of the connections at
 * its share of {@code --connect-rate} while the coordinator shows connected/target (a connection that
 * fails fails the run at set-up, its reason counted by kind and the connect times kept); warm-up;
 * explicit reset; measurement with a poll of every agent each second (the per-second series, counters;
 * the run ends early when every subscription is lost or every publisher stopped); in-flight wait (up to
 * 5 s, Q9); final histograms and counters from every agent still alive within 3 s.
 */
public final class ScenarioRun {
    /** How the final aggregation waits for the agents still alive (Q9; issue 5: never hang). */
    static final long FINAL_DEADLINE_MS = 3_000;
    /** A ramp that opens (or fails) no connection for this long has stalled. */
    static final long SETUP_STALL_MS = 60_000;

    private final ScenarioConfig cfg;
    private final ProgressLine progress;
    private io.msgscope.coordinator.LiveMetrics metrics;
    private final ScenarioSupport support;

    /** ZeroMQ's proxy in the broker-probe agent when the driver routes through one (M1); else null. */
    private ScenarioMiddleBox box;
    /** The agents of each role, and each one's latest counters. */
    private final List<AgentLink> subs = new ArrayList<>();
    private final List<AgentLink> pubs = new ArrayList<>();
    private final Map<AgentLink, Map<String, Long>> latest = new LinkedHashMap<>();

    /** Live metrics to keep current each second (null: none). */
    public ScenarioRun metrics(io.msgscope.coordinator.LiveMetrics m) {
        this.metrics = m;
        return this;
    }

    public ScenarioRun(ScenarioConfig cfg, ProgressLine progress) {
        this.cfg = cfg;
        this.progress = progress;
        this.support = Drivers.load().get(cfg.driver()).scenarios();
        if (support == null) {
            throw new IllegalArgumentException("the " + cfg.driver() + " driver has no scenario support");
        }
    }

    public ScenarioOutcome run(Path dir, List<String> jvmArgs) {
        return run(dir, jvmArgs, Map.of(), null);
    }

    /**
     * Runs the scenario; never throws and never hangs. A failure in any phase (an agent's error report, a
     * dead or silent agent, a refused connection, every subscription lost) ends the run there: the
     * coordinator then collects the final figures from every agent still alive within
     * {@link #FINAL_DEADLINE_MS}, names the agents it could not reach, and records the phase.
     *
     * @param remote agent daemons to use instead of local ones (issue 6), by role; publishers and
     *               subscribers may have several (issue 13)
     * @param credentials what those agents require: TLS certificates and/or the shared secret (issue 14)
     */
    public ScenarioOutcome run(Path dir, List<String> jvmArgs, Map<Role, List<AgentEndpoint>> remote,
                       io.msgscope.control.ControlCredentials credentials) {
        ScenarioOutcome o = new ScenarioOutcome();
        String[] phase = {"set-up"};
        try (LocalAgents agents = new LocalAgents();
             ControlHub hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME, credentials)) {
            try {
                measure(o, phase, agents, hub, dir, jvmArgs, remote);
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
            List<AgentLink> links = new ArrayList<>(subs);
            links.addAll(pubs);
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

    private void measure(ScenarioOutcome o, String[] phase, LocalAgents agents, ControlHub hub, Path dir, List<String> jvmArgs,
                         Map<Role, List<AgentEndpoint>> remote) throws Exception {
        connect(hub, agents, dir, jvmArgs, remote, Role.SUBSCRIBERS, subs);
        connect(hub, agents, dir, jvmArgs, remote, Role.PUBLISHERS, pubs);
        o.publishersAgents = pubs.size();
        o.subscribersAgents = subs.size();
        environment(o);
        clocks(o, hub);
        RunSpec spec = cfg.toProto();
        Map<Role, AgentEndpoint> relay = remote.containsKey(Role.RELAY) ? Map.of(Role.RELAY, remote.get(Role.RELAY).get(0))
                : Map.of();
        box = ScenarioMiddleBox.startIfNeeded(cfg, agents, hub, dir, jvmArgs, relay, spec);
        for (AgentLink l : all()) {
            RunSpec own = box == null ? spec : l.role() == Role.SUBSCRIBERS ? box.forSubscribers(spec) : box.forPublishers(spec);
            l.send(Envelope.newBuilder().setSpec(own).build());
        }
        for (AgentLink l : all()) {
            hub.await(l, 30_000, "the run spec", Envelope.BodyCase.READY);
        }
        setup(o, hub);
        if (o.failure != null) {
            return;
        }
        if (cfg.warmupMs() > 0) {
            phase[0] = "warm-up";
            sendAll(pubs, go(Phase.WARMUP));
            if (!tick(hub, cfg.warmupMs(), "warm-up", null, o)) {
                queryAll(hub, pubs, kind(ScenarioQuery.Kind.STOP), 10_000);
                awaitDone(hub, 30_000, "the warm-up");
                return;
            }
            awaitDone(hub, cfg.warmupMs() + 60_000, "the warm-up");
        }
        queryAll(hub, all(), kind(ScenarioQuery.Kind.RESET), 10_000);
        aggregate(o);
        for (String key : List.of("publishers_agent_cpu_ns", "subscribers_agent_cpu_ns")) {
            o.cpuAtReset.put(key, o.counters().getOrDefault(key, 0L));
        }
        if (box != null) {
            box.reset(hub);
        }
        phase[0] = "measurement";
        sendAll(pubs, go(Phase.MEASURE));
        boolean full = tick(hub, cfg.durationMs(), "", o.seconds, o);
        if (!full) {
            queryAll(hub, pubs, kind(ScenarioQuery.Kind.STOP), 10_000);
        }
        o.sent = awaitDone(hub, full ? cfg.durationMs() + 60_000 : 30_000, "the measurement");
        aggregate(o);
        if (!full && allLost(o.subscriberCounters)) {
            return; // nothing left to receive in-flight messages
        }
        // Q9: publishers stopped; wait up to 5 s for in-flight messages
        phase[0] = "drain";
        long expected = cfg.scenario().expected(o.sent, cfg.subscribers());
        long t0 = System.nanoTime();
        long drainFromMs = o.intervals.isEmpty() ? System.currentTimeMillis()
                : o.intervals.get(o.intervals.size() - 1).endEpochMs();
        Histogram drained = null;
        while (true) {
            for (ScenarioReport r : queryAll(hub, subs, kind(ScenarioQuery.Kind.PROGRESS), 10_000)) {
                drained = merge(drained, decode(r.getLatencyHistogram()));
            }
            aggregate(o);
            long received = o.subscriberCounters.getOrDefault("messages_received", 0L);
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
        if (drained != null && drained.getTotalCount() > 0) {
            o.intervals.add(interval(drainFromMs, System.currentTimeMillis(), "drain", drained));
        }
        phase[0] = "aggregation";
    }

    /** Starts (or takes the remote daemons of) every agent of a role and connects to each. */
    private static void connect(ControlHub hub, LocalAgents agents, Path dir, List<String> jvmArgs,
                                Map<Role, List<AgentEndpoint>> remote, Role role, List<AgentLink> into)
            throws Exception {
        List<AgentEndpoint> eps;
        try {
            eps = remote.containsKey(role) ? remote.get(role) : List.of(agents.start(role, dir, jvmArgs, 30_000));
        } catch (LocalAgents.StartFailure e) {
            throw e.asAgentFailure(); // an agent that died (or never came up) while it started is an agent lost at set-up
        }
        for (AgentEndpoint ep : eps) {
            into.add(AgentLink.connect(hub, role, ep.host(), ep.port(), 10_000, ep::deathReason));
        }
    }

    private List<AgentLink> all() {
        List<AgentLink> l = new ArrayList<>(subs);
        l.addAll(pubs);
        return l;
    }

    /**
     * Boxes (R1): latency subtracts the publishers' epoch stamps (Q1) from the subscribers' clock. On one
     * box both read one CLOCK_MONOTONIC; across boxes the run is marked cross-host and each agent's
     * epoch-clock offset to the first subscribers agent is measured by min-RTT ping-pong and reported
     * with its error bound (the latencies themselves are not corrected).
     */
    private void clocks(ScenarioOutcome o, ControlHub hub) throws AgentFailure {
        String ref = subs.get(0).helloAck().getEnvironment().getBootId();
        for (AgentLink l : all()) {
            String b = l.helloAck().getEnvironment().getBootId();
            if (ref.isEmpty() || b.isEmpty() || !b.equals(ref)) {
                o.crossHost = true;
            }
        }
        if (!o.crossHost) {
            return;
        }
        ClockOffset base = ClockOffset.measureEpoch(hub, subs.get(0), 16);
        for (AgentLink l : all()) {
            if (l != subs.get(0)) {
                o.clockOffsets.put(l.name(), ClockOffset.between(ClockOffset.measureEpoch(hub, l, 16), base));
            }
        }
    }

    /**
     * Set-up (issue 13): each agent gets its slice of the connections and of the connect rate, opens them
     * while the coordinator shows connected/target, and reports when its ramp is done. A connection that
     * could not be made fails the run here, its reason named and counted; the connect times are kept.
     */
    private void setup(ScenarioOutcome o, ControlHub hub) throws Exception {
        List<String> pubTopics = cfg.scenario().publisherTopics(base(), support.separator(), cfg.publishers());
        List<String> subTopics = cfg.scenario().subscriberTopics(base(), support.separator(), cfg.subscribers());
        String group = cfg.scenario() == Scenario.ROUND_ROBIN ? "msgscope" + Long.toHexString(cfg.seed()) : "";
        int total = cfg.publishers() + cfg.subscribers();
        long t0 = System.nanoTime();
        for (List<AgentLink> role : List.of(subs, pubs)) {
            List<String> topics = role == subs ? subTopics : pubTopics;
            for (int k = 0; k < role.size(); k++) {
                int from = (int) ((long) topics.size() * k / role.size());
                int to = (int) ((long) topics.size() * (k + 1) / role.size());
                ScenarioPlan.Builder p = ScenarioPlan.newBuilder().setScenario(cfg.scenario().label()).setGroup(group)
                        .setRate(cfg.rate()).setWarmupMs(cfg.warmupMs()).setDurationMs(cfg.durationMs())
                        .setIoThreads(cfg.connections().ioThreads())
                        .setConnectRate(cfg.connections().connectRate() * (to - from) / Math.max(1, total))
                        .addAllSourceAddresses(cfg.connections().sourceAddresses())
                        .setFirstIndex(from).setRoleTotal(topics.size());
                if (role == subs) {
                    p.addAllSubscriberTopics(topics.subList(from, to));
                } else {
                    p.addAllPublisherTopics(topics.subList(from, to));
                }
                query(hub, role.get(k), ScenarioQuery.newBuilder().setKind(ScenarioQuery.Kind.SETUP).setPlan(p).build(),
                        30_000);
            }
        }
        long lastChange = System.nanoTime();
        long lastCount = -1;
        while (true) {
            List<ScenarioReport> reports = queryAll(hub, all(), kind(ScenarioQuery.Kind.PROGRESS), 10_000);
            aggregate(o);
            boolean done = reports.stream().allMatch(ScenarioReport::getSetupDone);
            Map<String, Long> c = o.counters();
            long opened = c.getOrDefault("connections_opened", 0L);
            long failed = failedConnections(c);
            if (progress != null) {
                progress.connecting(opened, total, failed, (System.nanoTime() - t0) / 1e9);
            }
            if (done) {
                for (int k = 0; k < reports.size(); k++) {
                    if (!reports.get(k).getConnectFailures().isEmpty()) {
                        o.connectFailures.add(all().get(k).name() + ": " + reports.get(k).getConnectFailures());
                    }
                    if (o.broker.isEmpty() && !reports.get(k).getInfoMap().isEmpty()) {
                        o.broker.putAll(reports.get(k).getInfoMap());
                    }
                }
                o.setupSeconds = (System.nanoTime() - t0) / 1e9;
                if (opened < total) {
                    o.fail((total - opened) + " of " + total + " connections could not be opened ("
                            + (failed > 0 ? failed + " failed" : "") + (total - opened - failed > 0
                            ? (failed > 0 ? ", " : "") + (total - opened - failed) + " not attempted after the failures" : "")
                            + "): " + String.join("; ", o.connectFailures), "set-up");
                }
                return;
            }
            if (opened + failed != lastCount) {
                lastCount = opened + failed;
                lastChange = System.nanoTime();
            } else if (System.nanoTime() - lastChange > SETUP_STALL_MS * 1_000_000L) {
                o.fail("set-up stalled: no connection opened or failed for " + SETUP_STALL_MS / 1000 + " s ("
                        + opened + " of " + total + " open)", "set-up");
                return;
            }
            Thread.sleep(250);
        }
    }

    static long failedConnections(Map<String, Long> counters) {
        long n = 0;
        for (Map.Entry<String, Long> e : counters.entrySet()) {
            if (e.getKey().startsWith("connect_failed_")) {
                n += e.getValue();
            }
        }
        return n;
    }

    /** Recomputes the per-role sums from each agent's latest counters. */
    private void aggregate(ScenarioOutcome o) {
        o.publisherCounters.clear();
        o.subscriberCounters.clear();
        for (Map.Entry<AgentLink, Map<String, Long>> e : latest.entrySet()) {
            Map<String, Long> into = e.getKey().role() == Role.SUBSCRIBERS ? o.subscriberCounters : o.publisherCounters;
            e.getValue().forEach((k, v) -> into.merge(k, v, Long::sum));
        }
    }

    /** Waits for every publishers agent's end of phase; returns the messages they sent in it, summed. */
    private long awaitDone(ControlHub hub, long timeoutMs, String what) throws AgentFailure {
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
     * dead, silent or late is named in {@link ScenarioOutcome#missingAgents} and the run marked failed.
     */
    private void collectFinal(ScenarioOutcome o, ControlHub hub, List<AgentLink> links) {
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
                        o.latency = merge(o.latency, decode(fin.getLatencyHistogram()));
                        o.intended = merge(o.intended, decode(fin.getIntendedHistogram()));
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

    private static Histogram merge(Histogram into, Histogram h) {
        if (into == null) {
            return h;
        }
        into.add(h);
        return into;
    }

    /** The proxy's counters over the measurement; a dead or silent proxy is named missing and fails the run. */
    private static void collectProxy(ScenarioOutcome o, ControlHub hub, ScenarioMiddleBox box) {
        try {
            o.publisherCounters.putAll(box.measured(hub));
        } catch (Exception e) {
            String why = e instanceof AgentFailure f ? f.getMessage() : e.getClass().getSimpleName() + ": " + e.getMessage();
            missing(o, new ArrayList<>(), box.link(), why);
            o.fail("missing final figures from " + String.join("; ", o.missingAgents), "aggregation");
        }
    }

    private static void missing(ScenarioOutcome o, List<AgentLink> gone, AgentLink l, String why) {
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

    private void environment(ScenarioOutcome o) {
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

    /** The scenario's topic base: {@code --topic-prefix}, else the driver's default for this run. */
    String base() {
        return cfg.topicPrefix() != null ? cfg.topicPrefix()
                : support.defaultBase(cfg.scenario(), Long.toHexString(cfg.seed()));
    }

    /**
     * Polls every agent once a second for {@code ms}: the subscribers' interval (rate, percentiles, merged
     * over the subscribers agents; the series when {@code series} is given) and every agent's counters.
     * Returns false when the run must end early: every subscription lost, or every publisher stopped on an
     * error.
     */
    private boolean tick(ControlHub hub, long ms, String phaseLabel, List<ScenarioResult.Second> series, ScenarioOutcome o)
            throws Exception {
        long start = System.nanoTime();
        long fromMs = System.currentTimeMillis();
        long total = (ms + 999) / 1000;
        String phaseName = phaseLabel.isEmpty() ? "measurement" : phaseLabel;
        for (long s = 1; s <= total; s++) {
            long due = start + s * 1_000_000_000L;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            long toMs = System.currentTimeMillis();
            List<ScenarioReport> sr = queryAll(hub, subs, kind(ScenarioQuery.Kind.PROGRESS), 10_000);
            List<ScenarioReport> pr = queryAll(hub, pubs, kind(ScenarioQuery.Kind.PROGRESS), 10_000);
            aggregate(o);
            Histogram h = null;
            long messages = 0;
            long intervalNs = 0;
            for (ScenarioReport r : sr) {
                h = merge(h, decode(r.getLatencyHistogram()));
                messages += r.getMessages();
                intervalNs = Math.max(intervalNs, r.getIntervalNs());
            }
            double secs = intervalNs > 0 ? intervalNs / 1e9 : 1.0;
            double rate = messages / secs;
            long p99 = h == null || h.getTotalCount() == 0 ? -1 : h.getValueAtPercentile(99);
            if (series != null) {
                series.add(new ScenarioResult.Second(s, rate,
                        p99 < 0 ? 0 : h.getValueAtPercentile(50) / 1e3, Math.max(0, p99) / 1e3));
                o.intervals.add(interval(fromMs, toMs, null, h));
                fromMs = toMs;
            }
            if (progress != null) {
                progress.update(phaseLabel, s, total, rate, p99, errors(o.counters()));
            }
            if (metrics != null) {
                Map<String, Long> c = o.counters();
                long sentNow = c.getOrDefault("messages_sent", 0L);
                long receivedNow = c.getOrDefault("messages_received", 0L);
                metrics.phase(phaseName);
                metrics.counts(() -> sentNow, () -> receivedNow);
                metrics.interval(rate, h);
                metrics.health(errors(o.counters()), c.getOrDefault("connections_opened", 0L));
            }
            if (allLost(o.subscriberCounters)) {
                o.fail("all " + o.subscriberCounters.get("subscriptions") + " subscriptions lost"
                        + firstError(sr), phaseName);
                return false;
            }
            if (allStopped(o.publisherCounters)) {
                o.fail("every publisher stopped on an error" + firstError(pr), phaseName);
                return false;
            }
        }
        return true;
    }

    private static String firstError(List<ScenarioReport> reports) {
        for (ScenarioReport r : reports) {
            if (!r.getFirstError().isEmpty()) {
                return ": " + r.getFirstError();
            }
        }
        return "";
    }

    private ScenarioReport query(ControlHub hub, AgentLink l, ScenarioQuery q, long timeoutMs) throws AgentFailure {
        l.send(Envelope.newBuilder().setScenarioQuery(q).build());
        ScenarioReport r = hub.await(l, timeoutMs, "scenario " + q.getKind(), Envelope.BodyCase.SCENARIO_REPORT)
                .getScenarioReport();
        latest.put(l, new TreeMap<>(r.getCountersMap()));
        return r;
    }

    /** Sends the query to every agent first, then collects the answers in order (one round trip, not one per agent). */
    private List<ScenarioReport> queryAll(ControlHub hub, List<AgentLink> links, ScenarioQuery q, long timeoutMs)
            throws AgentFailure {
        Envelope env = Envelope.newBuilder().setScenarioQuery(q).build();
        for (AgentLink l : links) {
            l.send(env);
        }
        List<ScenarioReport> out = new ArrayList<>();
        for (AgentLink l : links) {
            ScenarioReport r = hub.await(l, timeoutMs, "scenario " + q.getKind(), Envelope.BodyCase.SCENARIO_REPORT)
                    .getScenarioReport();
            latest.put(l, new TreeMap<>(r.getCountersMap()));
            out.add(r);
        }
        return out;
    }

    private static void sendAll(List<AgentLink> links, Envelope env) {
        for (AgentLink l : links) {
            l.send(env);
        }
    }

    private static ScenarioQuery kind(ScenarioQuery.Kind k) {
        return ScenarioQuery.newBuilder().setKind(k).build();
    }

    private static Envelope go(Phase p) {
        return Envelope.newBuilder().setGo(Go.newBuilder().setPhase(p)).build();
    }

    /** An interval of the latency log; a missing histogram (no subscribers agent answered) is an empty one. */
    private static ScenarioResult.Interval interval(long fromMs, long toMs, String tag, Histogram h) {
        Histogram hist = h != null ? h : io.msgscope.core.LatencyRange.histogram();
        ByteBuffer buf = ByteBuffer.allocate(hist.getNeededByteBufferCapacity());
        int len = hist.encodeIntoCompressedByteBuffer(buf);
        return new ScenarioResult.Interval(fromMs, Math.max(fromMs, toMs), tag, java.util.Arrays.copyOf(buf.array(), len));
    }

    static Histogram decode(com.google.protobuf.ByteString b) throws java.util.zip.DataFormatException {
        if (b.isEmpty()) {
            // empty: the wider of the two ranges decoded here (connect times up to 60 s, latency up to 10 s)
            return new Histogram(io.msgscope.core.driver.ConnectStats.LOWEST_NS,
                    io.msgscope.core.driver.ConnectStats.HIGHEST_NS, io.msgscope.core.LatencyRange.DIGITS);
        }
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(b.toByteArray()), 0);
    }
}
