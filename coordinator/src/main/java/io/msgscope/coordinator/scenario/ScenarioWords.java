package io.msgscope.coordinator.scenario;

import io.msgscope.core.scenario.Scenario;
import io.msgscope.core.timeline.LoadPhase;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.PhaseEnd;
import io.msgscope.proto.ScenarioQuery;
import io.msgscope.proto.ScenarioReport;

import java.util.ArrayList;
import java.util.List;

/**
 * A scenario's phases that end on a word (issue 31): until drained ({@code drain:60s@0/drained}, or publishing on at one
 * rate) and until the broker holds N ({@code fill:60s@10k/paused/backlog=20k}). Every agent starts the timeline on one
 * instant the coordinator gives ({@link #startEpochNs}), so an intended send time names its phase on every agent. While
 * such a phase is on, the coordinator asks the subscribers agents ten times a second ({@code WATCH}) for their
 * measured deliveries by the phase their intended send time is in, and for the broker's latest count, and ends the
 * phase when
 * <ul>
 *   <li>a drain: the deliveries of every message scheduled before it reached those expected of them ({@code drained}),
 *       or none of them arrived for the drain timeout ({@code quiet}, the rest missing);</li>
 *   <li>a backlog target: every subscribers agent's latest read, taken inside the phase, sums to the target or more
 *       ({@code backlog});</li>
 *   <li>either: its cap ran out first ({@code cap}: the agents followed the timeline as asked, nothing to tell them but
 *       that it ended).</li>
 * </ul>
 * To end it on one instant across publishers agents, it first freezes them ({@code FREEZE}: each answers an offset
 * after every message it sent of the phase, and sends none due from then on), takes the latest answer as the phase's
 * end, and tells the subscribers agents first (they count by phase on the timeline as run before any later message can
 * reach them) and then the publishers agents ({@code PHASE_END}), which send what they held (due before the end, late)
 * and go on with the later phases earlier than the cap had them. The phase's messages are those due before its end.
 */
final class ScenarioWords {
    /** How often a word phase is looked at. */
    static final long WATCH_NS = 100_000_000L;
    /** How far ahead of the go the shared start lies: every agent has its go by then. */
    static final long START_LEAD_NS = 50_000_000L;

    private final Timeline asked;
    private final List<Integer> words;
    private final Scenario scenario;
    private final int subscribers;
    private final long drainTimeoutNs;
    private final List<Timeline.WordEnd> ended = new ArrayList<>();
    private Timeline asRun;
    private int next;
    private long startMono;
    private long startEpochNs;
    private long lastReceived = -1;
    private long lastChangeMono;

    ScenarioWords(Timeline asked, Scenario scenario, int subscribers, long drainTimeoutMs) {
        this.asked = asked;
        this.asRun = asked;
        this.words = asked.wordPhases();
        this.scenario = scenario;
        this.subscribers = subscribers;
        this.drainTimeoutNs = drainTimeoutMs * 1_000_000L;
    }

    /** For a config whose timeline has a word phase; else null. */
    static ScenarioWords of(ScenarioConfig cfg) {
        Timeline t = cfg.timeline();
        return t == null || t.wordPhases().isEmpty() ? null
                : new ScenarioWords(t, cfg.scenario(), cfg.subscribers(), cfg.drainTimeoutMs());
    }

    /** Picks the shared start, {@link #START_LEAD_NS} from now: epoch ns, for the agents' go. */
    long pickStart() {
        startMono = System.nanoTime() + START_LEAD_NS;
        startEpochNs = startMono + io.msgscope.core.Clock.process().epochMinusMono();
        return startEpochNs;
    }

    /** The shared start on this clock (monotonic ns). */
    long startMono() {
        return startMono;
    }

    /** The timeline as run so far: the word phases that ended have their length. */
    Timeline asRun() {
        return asRun;
    }

    /** How the word phases ended so far, in order. */
    List<Timeline.WordEnd> ended() {
        return List.copyOf(ended);
    }

    /** The measurement's length as run so far, whole seconds rounded up. */
    long seconds() {
        return (asRun.durationNs() + 999_999_999L) / 1_000_000_000L;
    }

    /** Sleeps until {@code dueMono}, looking at the word phase that is on every {@link #WATCH_NS} meanwhile. */
    void sleepUntil(io.msgscope.coordinator.agents.ClockTracker clocks, long dueMono, ScenarioLinks links)
            throws Exception {
        while (true) {
            long now = System.nanoTime();
            if (now >= dueMono) {
                return;
            }
            clocks.sleepUntil(next < words.size() ? Math.min(dueMono, now + WATCH_NS) : dueMono);
            if (next < words.size()) {
                watch(links, System.nanoTime() - startMono);
            }
        }
    }

    /** Looks at the next word phase at offset {@code off}: ends it when its word (or its cap) came. */
    void watch(ScenarioLinks links, long off) throws Exception {
        int k = words.get(next);
        if (off < asRun.startNs(k)) {
            return;
        }
        List<ScenarioReport> rs = links.queryAll(links.subs, ScenarioLinks.kind(ScenarioQuery.Kind.WATCH), 10_000);
        Verdict v = judge(k, off, rs, System.nanoTime());
        if (v != null) {
            end(links, k, v);
        }
    }

    /** Why a word phase ends: {@code drained}, {@code quiet}, {@code backlog} or {@code cap}, and what it counted. */
    record Verdict(String endedBy, Long missing, Long brokerMessages) {
    }

    /** Whether word phase {@code k} ends at offset {@code off} on the subscribers' reports; null while it goes on. */
    Verdict judge(int k, long off, List<ScenarioReport> rs, long nowMono) {
        LoadPhase p = asRun.phases().get(k);
        boolean capPassed = off >= asRun.endNs(k);
        if (p.untilDrained()) {
            long received = 0;
            for (ScenarioReport r : rs) {
                for (int j = 0; j < k && j < r.getPhaseReceivedCount(); j++) {
                    received += r.getPhaseReceived(j);
                }
            }
            long expected = scenario.expected(asRun.firstMessage(k), subscribers);
            if (lastReceived < 0 || received != lastReceived) {
                lastReceived = received;
                lastChangeMono = nowMono;
            }
            if (received >= expected) {
                return new Verdict("drained", 0L, null);
            }
            long quietSince = Math.max(lastChangeMono, startMono + asRun.startNs(k));
            if (nowMono - quietSince >= drainTimeoutNs) {
                return new Verdict("quiet", expected - received, null);
            }
            return capPassed ? new Verdict("cap", expected - received, null) : null;
        }
        long depth = 0;
        boolean inside = !rs.isEmpty();
        for (ScenarioReport r : rs) {
            inside &= r.getBacklogLatestEpochNs() >= startEpochNs + asRun.startNs(k) && r.getBacklogLatestDepth() >= 0;
            depth += r.getBacklogLatestDepth();
        }
        if (inside && depth >= p.backlogTarget()) {
            return new Verdict("backlog", null, depth);
        }
        return capPassed ? new Verdict("cap", null, null) : null;
    }

    /**
     * Ends word phase {@code k}: freezes the publishers (unless its cap ran out), takes the latest freeze as its end, and
     * tells the subscribers agents, then the publishers agents.
     */
    private void end(ScenarioLinks links, int k, Verdict v) throws Exception {
        long at = asRun.endNs(k);
        String by = v.endedBy();
        if (!by.equals("cap")) {
            PhaseEnd freeze = PhaseEnd.newBuilder().setPhase(k).build();
            at = asRun.startNs(k) + 1_000_000L;
            for (ScenarioReport r : links.queryAll(links.pubs, ScenarioQuery.newBuilder()
                    .setKind(ScenarioQuery.Kind.FREEZE).setPhaseEnd(freeze).build(), 10_000)) {
                at = Math.max(at, r.getFrozenAtNs());
            }
            if (at >= asRun.endNs(k)) { // frozen after the cap: the agents already went on as asked
                at = asRun.endNs(k);
                by = "cap";
            }
        }
        Timeline.WordEnd e = endOf(k, at - asRun.startNs(k), by, v);
        ended.add(e);
        asRun = asked.asRun(ended);
        next++;
        lastReceived = -1;
        PhaseEnd.Builder told = PhaseEnd.newBuilder().setPhase(k).setDurationNs(e.durationNs())
                .setEndedBy(e.endedBy()).setMissing(e.missing() == null ? -1 : e.missing());
        if (e.nextMessage() >= 0) {
            told.setNextMessage(e.nextMessage());
        }
        if (e.brokerMessages() != null) {
            told.setBrokerMessages(e.brokerMessages());
        }
        ScenarioQuery q = ScenarioQuery.newBuilder().setKind(ScenarioQuery.Kind.PHASE_END).setPhaseEnd(told).build();
        links.queryAll(links.subs, q, 10_000); // first: they count by the timeline as run before a later message comes
        links.queryAll(links.pubs, q, 10_000);
    }

    /**
     * Phase {@code k}'s end after {@code ns}: a phase that publishes holds the messages due before its end (none told
     * on its cap, which changes nothing); a pause holds none.
     */
    Timeline.WordEnd endOf(int k, long ns, String by, Verdict v) {
        LoadPhase p = asRun.phases().get(k);
        long nextMessage = by.equals("cap") || p.kind() == LoadPhase.Kind.PAUSE ? -1
                : asRun.firstDueFrom(k, asRun.startNs(k) + ns);
        return new Timeline.WordEnd(k, ns, by, v.missing(), nextMessage,
                by.equals("backlog") ? v.brokerMessages() : null);
    }
}
