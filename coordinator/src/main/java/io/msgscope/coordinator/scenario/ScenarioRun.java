package io.msgscope.coordinator.scenario;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlCodec;
import io.msgscope.control.ControlHub;
import io.msgscope.coordinator.agents.Deadlines;
import io.msgscope.coordinator.agents.AgentEndpoint;
import io.msgscope.coordinator.agents.AgentPlan;
import io.msgscope.coordinator.agents.LocalAgents;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Phase;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.ScenarioPlan;
import io.msgscope.proto.ScenarioQuery;
import io.msgscope.proto.ScenarioReport;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Map;

/**
 * Runs one scenario (seed 002) with one or more publishers agents and one or more subscribers agents
 * (issue 13: several agents of a role split the connections, their histograms merge with
 * {@code add()}): spec handshake; set-up, in which every agent opens its share of the connections at
 * its share of {@code --connect-rate} while the coordinator shows connected/target (a connection that
 * fails fails the run at set-up, its reason counted by kind and the connect times kept); warm-up;
 * explicit reset; measurement with a poll of every agent each second (the per-second series, counters;
 * the run ends early when every subscription is lost or every publisher stopped); the in-flight wait (Q9)
 * until drained ({@link DrainWait}, issue 31 item 1); final histograms and counters from every agent still alive
 * within 3 s.
 */
public final class ScenarioRun {
    /** A ramp that opens (or fails) no connection for this long has stalled. */
    static final long SETUP_STALL_MS = 60_000;

    private final ScenarioConfig cfg;
    private final ProgressLine progress;
    private io.msgscope.coordinator.results.LiveMetrics metrics;
    private final ScenarioSupport support;

    /** ZeroMQ's proxy in the broker-probe agent when the driver routes through one (M1); else null. */
    private ScenarioMiddleBox box;
    /** The agents of the run once connected, and what each last reported. */
    private ScenarioLinks links;
    /** The clocks, followed between polls on a cross-host run (issue 33), and how wide their error may be. */
    private io.msgscope.coordinator.agents.ClockTracker clocks;
    private io.msgscope.coordinator.agents.ClockErrorLimit clockLimit = io.msgscope.coordinator.agents.ClockErrorLimit.DEFAULT;
    /** The faults the broker-probe agent applies (issue 32 item 5); null when none. */
    private ScenarioFaults.Setup faultSetup;
    private ScenarioFaults faults;
    /** The signal that interrupted the run, null while none did; set from the signal's thread (issue 29). */
    private volatile String interruptedBy;

    /** Live metrics to keep current each second (null: none). */
    public ScenarioRun metrics(io.msgscope.coordinator.results.LiveMetrics m) {
        this.metrics = m;
        return this;
    }

    /** The faults to apply during the measurement (issue 32 item 5); null or an empty plan for none. */
    public ScenarioRun faults(ScenarioFaults.Setup setup) {
        this.faultSetup = setup == null || setup.plan().isEmpty() ? null : setup;
        return this;
    }

    /** {@code --max-clock-error} (issue 33). */
    public ScenarioRun clockLimit(io.msgscope.coordinator.agents.ClockErrorLimit limit) {
        this.clockLimit = limit;
        return this;
    }

    /** SIGINT or SIGTERM (issue 29), any thread: the publishers stop within a second, what was measured is kept. */
    public void interrupt(String signal) {
        interruptedBy = signal;
    }

    /** Ends the run here when a signal interrupted it; {@code measuredS} is null before the measurement. */
    private boolean interrupted(ScenarioCollector o, String phase, Double measuredS) {
        String signal = interruptedBy;
        if (signal != null) {
            o.interrupted(signal, phase, measuredS, cfg.durationMs() / 1000.0);
        }
        return signal != null;
    }

    public ScenarioRun(ScenarioConfig cfg, ProgressLine progress) {
        this.cfg = cfg;
        this.progress = progress;
        this.support = Drivers.load().get(cfg.driver()).scenarios();
        if (support == null) {
            throw new IllegalArgumentException("the " + cfg.driver() + " driver has no scenario support");
        }
    }

    /**
     * Runs the scenario; never throws and never hangs. A failure in any phase (an agent's error report, a
     * dead or silent agent, a refused connection, every subscription lost) ends the run there: the
     * coordinator then collects the final figures from every agent still alive within
     * {@link ScenarioLinks#FINAL_DEADLINE_MS}, names the agents it could not reach, and records the phase.
     *
     * @param agents where the agents of each role are (daemons given with --agent, issue 6, or JVMs started here) and
     *               what they require (issue 14); publishers and subscribers may have several (issue 13). The caller
     *               closes it once the run has returned.
     */
    public ScenarioOutcome run(AgentPlan agents) {
        ScenarioCollector o = new ScenarioCollector();
        String[] phase = {"set-up"};
        try (ControlHub hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME, agents.credentials())) {
            links = new ScenarioLinks(hub);
            try {
                measure(o, phase, agents, hub);
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
            List<AgentLink> everyone = links.all();
            links.collectFinal(o, everyone);
            if (faults != null) {
                faults.conclude(o, hub, cfg);
                everyone.add(faults.link());
            }
            o.closeDrain(System.currentTimeMillis()); // latency.hlog sums to the summary's latency
            if (box != null) {
                links.collectProxy(o, box);
                everyone.add(box.link());
            }
            for (AgentLink l : everyone) {
                l.send(Envelope.newBuilder().setBye(io.msgscope.proto.Bye.getDefaultInstance()).build());
            }
        } catch (Exception e) {
            o.fail(e.getClass().getSimpleName() + ": " + e.getMessage(), phase[0]);
        }
        if (progress != null) {
            progress.finish();
        }
        return o.outcome();
    }

    private void measure(ScenarioCollector o, String[] phase, AgentPlan agents, ControlHub hub) throws Exception {
        agents.prepare(java.util.List.of(Role.SUBSCRIBERS, Role.PUBLISHERS)); // side by side (see LocalAgents)
        links.connect(agents, Role.SUBSCRIBERS, links.subs);
        links.connect(agents, Role.PUBLISHERS, links.pubs);
        o.publishersAgents = links.pubs.size();
        o.subscribersAgents = links.subs.size();
        links.environment(o);
        clocks = ScenarioClocks.setUp(o, hub, links, clockLimit); // R1, issue 33
        RunSpec spec = cfg.toProto();
        box = ScenarioMiddleBox.startIfNeeded(cfg, agents, hub, spec);
        faults = ScenarioFaults.startIfNeeded(faultSetup, agents, hub, spec);
        for (AgentLink l : links.all()) {
            RunSpec own = box == null ? spec : l.role() == Role.SUBSCRIBERS ? box.forSubscribers(spec) : box.forPublishers(spec);
            l.send(Envelope.newBuilder().setSpec(own).build());
        }
        for (AgentLink l : links.all()) {
            hub.await(l, Deadlines.READY_MS, "the run spec", Envelope.BodyCase.READY);
        }
        setup(o, hub);
        if (o.failure != null || interrupted(o, "set-up", null)) {
            return;
        }
        if (cfg.warmupMs() > 0) {
            phase[0] = "warm-up";
            ScenarioLinks.sendAll(links.pubs, ScenarioLinks.go(Phase.WARMUP));
            if (!tick(hub, cfg.warmupMs(), "warm-up", null, o)) {
                links.queryAll(links.pubs, ScenarioLinks.kind(ScenarioQuery.Kind.STOP), 10_000);
                links.awaitDone(Deadlines.STOPPED_MS, "the warm-up");
                interrupted(o, "warm-up", null);
                return;
            }
            links.awaitDone(cfg.warmupMs() + Deadlines.OVERRUN_MS, "the warm-up");
            if (interrupted(o, "warm-up", null)) {
                return;
            }
        }
        links.queryAll(links.all(), ScenarioLinks.kind(ScenarioQuery.Kind.RESET), 10_000);
        links.aggregate(o);
        for (String key : List.of("publishers_agent_cpu_ns", "subscribers_agent_cpu_ns")) {
            o.cpuAtReset.put(key, o.counters().getOrDefault(key, 0L));
        }
        if (box != null) {
            box.reset(hub);
        }
        phase[0] = "measurement";
        o.words = ScenarioWords.of(cfg); // phases that end on a word (issue 31): one start for every agent
        links.start(Phase.MEASURE, cfg.timeline() != null && cfg.timeline().pausesConsumers(), o.words, startMono -> {
            if (faults != null) {
                faults.go(startMono); // the fault clock starts with the publishers' schedule
            }
        });
        long measureNs = System.nanoTime();
        boolean full = tick(hub, cfg.durationMs(), "", o.seconds, o);
        double measuredS = (System.nanoTime() - measureNs) / 1e9;
        if (!full) {
            links.queryAll(links.pubs, ScenarioLinks.kind(ScenarioQuery.Kind.STOP), 10_000);
        }
        o.sent = links.awaitDone(full ? cfg.durationMs() + Deadlines.OVERRUN_MS : Deadlines.STOPPED_MS,
                "the measurement");
        links.aggregate(o);
        if (!full) {
            interrupted(o, "measurement", measuredS); // the in-flight wait still runs
        }
        if (!full && ScenarioCounters.allLost(o.subscriberCounters)) {
            return; // nothing left to receive in-flight messages
        }
        // Q9, issue 31 item 1: publishers stopped; wait for in-flight messages until drained (DrainWait)
        phase[0] = "drain";
        DrainWait wait = new DrainWait(cfg.scenario().expected(o.sent, cfg.subscribers()), cfg.drainTimeoutMs());
        long t0 = System.nanoTime();
        long drainFromMs = o.intervals.isEmpty() ? System.currentTimeMillis()
                : o.intervals.get(o.intervals.size() - 1).endEpochMs();
        Histogram drained = null;
        boolean signalledBefore = interruptedBy != null; // a first Ctrl-C that cut the measurement does not end the wait
        for (DrainWait.End end = DrainWait.End.WAITING; end == DrainWait.End.WAITING; ) {
            for (ScenarioReport r : links.queryAll(links.subs, ScenarioLinks.kind(ScenarioQuery.Kind.PROGRESS), 10_000)) {
                drained = ScenarioLinks.merge(drained, ScenarioLinks.decode(r.getLatencyHistogram()));
            }
            links.aggregate(o);
            long received = o.subscriberCounters.getOrDefault("messages_received", 0L);
            long nowMs = (System.nanoTime() - t0) / 1_000_000;
            end = wait.at(nowMs, received, received + o.subscriberCounters.getOrDefault("warmup_received", 0L),
                    ScenarioCounters.allLost(o.subscriberCounters));
            o.inFlightTimedOut = end == DrainWait.End.STALLED;
            boolean cut = !signalledBefore && interruptedBy != null && end == DrainWait.End.WAITING;
            if (progress != null) {
                progress.draining(received, wait.expected(), nowMs / 1000.0, wait.quietMs(nowMs) / 1000.0,
                        wait.timeoutMs() / 1000.0, end != DrainWait.End.WAITING || cut);
            }
            if (cut) { // Ctrl-C during the wait (issue 29): what arrived is kept, the rest is not waited for
                interrupted(o, "drain", measuredS);
                break;
            }
            if (end == DrainWait.End.WAITING) {
                Thread.sleep(100);
            }
        }
        o.drainMs = (System.nanoTime() - t0) / 1_000_000;
        if (drained != null && drained.getTotalCount() > 0) {
            o.intervals.add(ScenarioLinks.interval(drainFromMs, System.currentTimeMillis(), "drain", drained));
        }
        phase[0] = "aggregation";
    }

    /**
     * Set-up (issue 13): each agent gets its slice of the connections and of the connect rate, opens them
     * while the coordinator shows connected/target, and reports when its ramp is done. A connection that
     * could not be made fails the run here, its reason named and counted; the connect times are kept.
     */
    private void setup(ScenarioCollector o, ControlHub hub) throws Exception {
        List<String> pubTopics = cfg.scenario().publisherTopics(base(), support.separator(), cfg.publishers());
        List<String> subTopics = cfg.scenario().subscriberTopics(base(), support.separator(), cfg.subscribers());
        String group = cfg.scenario() == Scenario.ROUND_ROBIN ? "msgscope" + Long.toHexString(cfg.seed()) : "";
        int total = cfg.publishers() + cfg.subscribers();
        long t0 = System.nanoTime();
        links.setUp(cfg, subTopics, pubTopics, group, faultSetup == null ? 0 : ScenarioFaults.bucketMs(cfg.durationMs()));
        long lastChange = System.nanoTime();
        long lastCount = -1;
        while (true) {
            List<ScenarioReport> reports = links.queryAll(links.all(), ScenarioLinks.kind(ScenarioQuery.Kind.PROGRESS), 10_000);
            links.aggregate(o);
            boolean done = reports.stream().allMatch(ScenarioReport::getSetupDone);
            Map<String, Long> c = o.counters();
            long opened = c.getOrDefault("connections_opened", 0L);
            long failed = ScenarioCounters.failedConnections(c);
            if (progress != null) {
                progress.connecting(opened, total, failed, (System.nanoTime() - t0) / 1e9);
            }
            if (done) {
                for (int k = 0; k < reports.size(); k++) {
                    if (!reports.get(k).getConnectFailures().isEmpty()) {
                        o.connectFailures.add(links.all().get(k).name() + ": " + reports.get(k).getConnectFailures());
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
    private boolean tick(ControlHub hub, long ms, String phaseLabel, List<ScenarioResult.Second> series, ScenarioCollector o)
            throws Exception {
        long start = System.nanoTime();
        long fromMs = System.currentTimeMillis();
        long total = (ms + 999) / 1000;
        String phaseName = phaseLabel.isEmpty() ? "measurement" : phaseLabel;
        long warmupBefore = o.subscriberCounters.getOrDefault("warmup_received", 0L); // warm-up progress (issue 29)
        long warmupAtNs = start;
        for (long s = 1; s <= total; s++) {
            long due = start + s * 1_000_000_000L;
            if (o.words != null && series != null) { // a word phase looked at meanwhile; the run as long as it ran
                o.words.sleepUntil(clocks, due, links);
                total = Math.min(total, Math.max(s, o.words.seconds()));
            } else {
                clocks.sleepUntil(due); // probing the clocks meanwhile on a cross-host run (issue 33)
            }
            long toMs = System.currentTimeMillis();
            List<ScenarioReport> all = links.queryAll(links.all(), ScenarioLinks.kind(ScenarioQuery.Kind.PROGRESS), 10_000);
            List<ScenarioReport> sr = all.subList(0, links.subs.size()), pr = all.subList(sr.size(), all.size());
            links.aggregate(o);
            Histogram h = null;
            long messages = 0;
            long intervalNs = 0;
            for (ScenarioReport r : sr) {
                h = ScenarioLinks.merge(h, ScenarioLinks.decode(r.getLatencyHistogram()));
                messages += r.getMessages();
                intervalNs = Math.max(intervalNs, r.getIntervalNs());
            }
            double secs = intervalNs > 0 ? intervalNs / 1e9 : 1.0;
            double rate = messages / secs;
            if (series == null) {
                long warmupNow = o.subscriberCounters.getOrDefault("warmup_received", 0L);
                long now = System.nanoTime();
                rate = (warmupNow - warmupBefore) / Math.max(1e-3, (now - warmupAtNs) / 1e9);
                warmupBefore = warmupNow;
                warmupAtNs = now;
            }
            long p99 = h == null || h.getTotalCount() == 0 ? -1 : h.getValueAtPercentile(99);
            if (series != null) {
                series.add(new ScenarioResult.Second(s, rate,
                        p99 < 0 ? 0 : h.getValueAtPercentile(50) / 1e3, Math.max(0, p99) / 1e3));
                o.window(fromMs, toMs, sr, h); // the latency interval and the window phases are made of (issue 31)
                fromMs = toMs;
            }
            if (progress != null) {
                progress.update(phaseLabel, s, total, rate, p99, ScenarioCounters.errors(o.counters()));
            }
            if (metrics != null) {
                Map<String, Long> c = o.counters();
                long sentNow = c.getOrDefault("messages_sent", 0L);
                long receivedNow = c.getOrDefault("messages_received", 0L);
                metrics.phase(phaseName);
                metrics.counts(() -> sentNow, () -> receivedNow);
                metrics.interval(rate, h);
                metrics.health(ScenarioCounters.errors(o.counters()), c.getOrDefault("connections_opened", 0L));
            }
            if (ScenarioCounters.allLost(o.subscriberCounters)) {
                o.fail("all " + o.subscriberCounters.get("subscriptions") + " subscriptions lost"
                        + ScenarioLinks.firstError(sr), phaseName);
                return false;
            }
            if (ScenarioCounters.allStopped(o.publisherCounters)) {
                o.fail("every publisher stopped on an error" + ScenarioLinks.firstError(pr), phaseName);
                return false;
            }
            if (interruptedBy != null) {
                return false;
            }
        }
        return true;
    }
}
