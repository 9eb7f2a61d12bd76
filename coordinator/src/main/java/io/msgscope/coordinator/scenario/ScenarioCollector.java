package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.agents.ClockOffset;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a scenario run gathers while it runs (issue 30): counters per role, histograms, the per-second series, the
 * connections, and how it failed; {@link ScenarioRun} and {@link ScenarioLinks} fill it, and at the end it becomes the
 * immutable {@link ScenarioOutcome} the summary is built from.
 */
final class ScenarioCollector {
    /**
     * The publishers agents' measured messages confirmed so far (agent-sender's PublishersRole names it), summed; absent
     * when one agent's publishers confirm nothing ({@link ScenarioLinks#aggregate}).
     */
    static final String CONFIRMED_SO_FAR = "messages_confirmed_so_far";
    /** When the run began (ISO-8601, UTC): summary.json's started_at. */
    String startedAt = java.time.Instant.now().toString();
    String failure;
    boolean usage;
    /** The phase a failure ended: set-up, warm-up, measurement, drain (the in-flight wait) or aggregation. */
    String failedDuring;
    /** Agents whose final figures could not be collected (dead, silent, or past the deadline), with why. */
    final List<String> missingAgents = new ArrayList<>();
    long sent;
    /** The counters of the publishers agents, summed over them (each agent's latest report, never twice). */
    final Map<String, Long> publisherCounters = new TreeMap<>();
    /** The same for the subscribers agents. */
    final Map<String, Long> subscriberCounters = new TreeMap<>();
    /** Errors the coordinator saw itself (an agent's failure report, a lost agent), by kind. */
    final Map<String, Long> runErrors = new TreeMap<>();
    /** The first error each agent reported, one line each. */
    final List<String> firstErrors = new ArrayList<>();
    /** What the client saw of the broker (the first subscribers agent's first connection). */
    final Map<String, String> broker = new LinkedHashMap<>();
    /** The environment as the agents reported it. */
    final Map<String, Object> environment = new LinkedHashMap<>();
    Histogram latency;
    Histogram intended;
    /** Connect times of every agent's connections (ns), merged. */
    Histogram connect;
    /** Why connections failed, per agent, one line each (empty when every connection opened). */
    final List<String> connectFailures = new ArrayList<>();
    /** Seconds from the first SETUP to the last connection open. */
    double setupSeconds;
    final List<ScenarioResult.Second> seconds = new ArrayList<>();
    /** The measurement's latency intervals (latency.hlog). */
    final List<ScenarioResult.Interval> intervals = new ArrayList<>();
    /** The measurement's poll windows, one per latency interval before the drain's (issue 31: per-phase figures). */
    final List<ScenarioPhases.Window> windows = new ArrayList<>();
    /** The publishers' sends counted by the last window's end. */
    private long windowSent;
    /** The in-flight wait ended with no delivery for --drain-timeout ({@link DrainWait.End#STALLED}). */
    boolean inFlightTimedOut;
    /** The in-flight wait's whole length, ms. */
    long drainMs;
    /** True when some agents run on another box than the (first) subscribers agent (R1). */
    boolean crossHost;
    /** Each agent's epoch-clock offset to the first subscribers agent's, with its bound (cross-host runs). */
    final Map<String, ClockOffset> clockOffsets = new LinkedHashMap<>();
    /** The clocks followed through the run (issue 33); set at set-up. */
    io.msgscope.coordinator.agents.ClockTracker clockTracker;
    /** Each role's agents' process CPU time (ns, summed) at the reset after the warm-up, and at the end. */
    final Map<String, Long> cpuAtReset = new TreeMap<>();
    /** The broker's backlog reads of the subscribers agents (issue 31 item 3); null when none reported any. */
    ScenarioBacklog.Reads backlogReads;
    /** Each role's agents' process CPU by the last window's end (ns, summed; issue 31 item 5). */
    private long windowPubCpu = -1;
    private long windowSubCpu = -1;
    /** Agents per role. */
    /** Phases that end on a word (issue 31): how they ended, the timeline as run; null when the run has none. */
    ScenarioWords words;

    int publishersAgents;
    int subscribersAgents;
    /** What each fault cost (issue 32 item 5), set once the final figures are in; null when none was planned. */
    ScenarioFaultFigures.Section faults;
    /**
     * The agents' counts by absolute bucket of epoch time (faults only): arrivals, sends by intent, deliveries by intent,
     * and of those the duplicates and the late ones.
     */
    private final java.util.TreeMap<Long, long[]> buckets = new java.util.TreeMap<>();
    /** Counts the agents stamped outside their buckets' span. */
    private long bucketsOutside;
    /** Whether every subscribers agent told every delivery apart by sequence; null before any reported. */
    private Boolean sequencesKnown;

    /** Adds one agent's FINAL counts by bucket (a subscribers agent's arrivals and deliveries, a publishers agent's sends). */
    void addBuckets(io.msgscope.proto.ScenarioReport fin, boolean subscriber) {
        long first = fin.getBucketFirst();
        add(first, 0, fin.getArrivedByBucketList());
        add(first, subscriber ? 2 : 1, fin.getDueByBucketList());
        add(first, 3, fin.getDuplicatedByBucketList());
        add(first, 4, fin.getLateByBucketList());
        if (subscriber) {
            sequencesKnown = (sequencesKnown == null || sequencesKnown) && fin.getSequencesKnown();
        }
        bucketsOutside += fin.getBucketOutside();
    }

    private void add(long first, int which, List<Long> counts) {
        for (int k = 0; k < counts.size(); k++) {
            buckets.computeIfAbsent(first + k, b -> new long[5])[which] += counts.get(k);
        }
    }

    /** The counts by bucket, {@code widthNs} wide, from the first any agent reported; empty arrays when none did. */
    ScenarioFaultFigures.Buckets buckets(long widthNs) {
        boolean sequences = sequencesKnown != null && sequencesKnown;
        if (buckets.isEmpty()) {
            return new ScenarioFaultFigures.Buckets(0, widthNs, new long[0], new long[0], new long[0], new long[0],
                    new long[0], sequences, bucketsOutside);
        }
        long first = buckets.firstKey();
        int n = (int) (buckets.lastKey() - first + 1);
        long[][] c = new long[5][n];
        buckets.forEach((b, v) -> {
            for (int j = 0; j < 5; j++) {
                c[j][(int) (b - first)] = v[j];
            }
        });
        return new ScenarioFaultFigures.Buckets(first, widthNs, c[0], c[1], c[2], c[3], c[4], sequences,
                bucketsOutside);
    }

    /**
     * One poll window of the measurement ({@code fromMs} to {@code toMs}): its latency interval (latency.hlog), and the
     * window the phases are made of — the publishers' sends since the last window (their counters are current), the
     * subscribers' deliveries and intended-time histograms in {@code subs}' answers, and the publishers' confirmed count
     * by its end (null when unknown).
     */
    void window(long fromMs, long toMs, List<io.msgscope.proto.ScenarioReport> subs, Histogram latency)
            throws java.util.zip.DataFormatException {
        ScenarioResult.Interval i = ScenarioLinks.interval(fromMs, toMs, null, latency);
        intervals.add(i);
        Histogram intendedHere = null;
        long received = 0;
        for (io.msgscope.proto.ScenarioReport r : subs) {
            intendedHere = ScenarioLinks.merge(intendedHere, ScenarioLinks.decode(r.getIntendedHistogram()));
            received += r.getMessages();
        }
        long sentNow = publisherCounters.getOrDefault("messages_sent", 0L);
        Long pubCpu = publisherCounters.get("publishers_agent_cpu_ns");
        Long subCpu = subscriberCounters.get("subscribers_agent_cpu_ns");
        long pubFrom = windowPubCpu >= 0 ? windowPubCpu : cpuAtReset.getOrDefault("publishers_agent_cpu_ns", -1L);
        long subFrom = windowSubCpu >= 0 ? windowSubCpu : cpuAtReset.getOrDefault("subscribers_agent_cpu_ns", -1L);
        windows.add(new ScenarioPhases.Window(i.startEpochMs(), i.endEpochMs(), sentNow - windowSent, received,
                i.histogram(), ScenarioLinks.interval(fromMs, toMs, null, intendedHere).histogram(),
                pubCpu == null || pubFrom < 0 ? null : pubCpu - pubFrom, subCpu == null || subFrom < 0 ? null
                : subCpu - subFrom, publisherCounters.get(CONFIRMED_SO_FAR)));
        windowSent = sentNow;
        windowPubCpu = pubCpu == null ? -1 : pubCpu;
        windowSubCpu = subCpu == null ? -1 : subCpu;
    }

    /**
     * Adds to the drain interval what the subscribers recorded after the last PROGRESS answer and before their FINAL
     * one (a message counted while the drain's last poll swapped its histograms): latency.hlog then sums to the
     * summary's latency. Nothing is done when an agent's final figures are missing (the total lacks its part).
     */
    void closeDrain(long nowMs) {
        if (latency == null || intervals.isEmpty() || !missingAgents.isEmpty()) {
            return;
        }
        Histogram rest = latency.copy();
        for (ScenarioResult.Interval i : intervals) {
            Histogram h = ScenarioLinks.decoded(i.histogram(), "a latency interval");
            if (h.getTotalCount() > 0) {
                rest.subtract(h);
            }
        }
        if (rest.getTotalCount() <= 0) {
            return;
        }
        ScenarioResult.Interval last = intervals.get(intervals.size() - 1);
        long fromMs = last.endEpochMs();
        if ("drain".equals(last.tag())) {
            intervals.remove(intervals.size() - 1);
            rest.add(ScenarioLinks.decoded(last.histogram(), "the drain's interval"));
            fromMs = last.startEpochMs();
        }
        intervals.add(ScenarioLinks.interval(fromMs, nowMs, "drain", rest));
    }

    /** Both roles' counters merged, as {@link ScenarioOutcome#counters()} (the run reads them as it goes). */
    Map<String, Long> counters() {
        return ScenarioOutcome.merged(publisherCounters, subscriberCounters, runErrors);
    }

    /** What the run gathered, as the immutable outcome (the histograms copied). */
    ScenarioOutcome outcome() {
        return new ScenarioOutcome(startedAt, failure, usage, failedDuring, missingAgents, sent, publisherCounters,
                subscriberCounters, runErrors, firstErrors, broker, environment, copy(latency), copy(intended),
                copy(connect), connectFailures, setupSeconds, seconds, intervals, windows, inFlightTimedOut, drainMs,
                crossHost, clockOffsets, cpuAtReset, publishersAgents, subscribersAgents, interruption, backlogReads,
                clockTracker == null ? null : clockTracker.track(), words == null ? null : words.asRun(), faults);
    }

    private static Histogram copy(Histogram h) {
        return h == null ? null : h.copy();
    }

    /** How far a run stopped by SIGINT or SIGTERM got (issue 29); null when none stopped it. */
    ScenarioInterruption interruption;

    /** Stopped by {@code signal} during {@code phase} after {@code measuredS} (null: before the measurement). */
    void interrupted(String signal, String phase, Double measuredS, double durationS) {
        if (failure != null) {
            return; // it failed first (every subscription lost, a publisher's error): the failure is the verdict
        }
        interruption = new ScenarioInterruption(signal, phase, measuredS, durationS);
        fail(interruption.reason(), phase);
    }

    void fail(String why, String phase) {
        if (failure == null) {
            failure = why;
            failedDuring = phase;
        }
    }
}
