package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.ClockOffset;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What a scenario run measured: counters per role, histograms, the per-second series, the connections, and how it failed. */
public final class ScenarioOutcome {
    /** When the run began (ISO-8601, UTC): summary.json's started_at. */
    public String startedAt = java.time.Instant.now().toString();
    public String failure;
    public boolean usage;
    /** The phase a failure ended: set-up, warm-up, measurement, drain (the in-flight wait) or aggregation. */
    public String failedDuring;
    /** Agents whose final figures could not be collected (dead, silent, or past the deadline), with why. */
    public final List<String> missingAgents = new ArrayList<>();
    public long sent;
    /** The counters of the publishers agents, summed over them (each agent's latest report, never twice). */
    public final Map<String, Long> publisherCounters = new TreeMap<>();
    /** The same for the subscribers agents. */
    public final Map<String, Long> subscriberCounters = new TreeMap<>();
    /** Errors the coordinator saw itself (an agent's failure report, a lost agent), by kind. */
    public final Map<String, Long> runErrors = new TreeMap<>();
    /** The first error each agent reported, one line each. */
    public final List<String> firstErrors = new ArrayList<>();
    /** What the client saw of the broker (the first subscribers agent's first connection). */
    public final Map<String, String> broker = new LinkedHashMap<>();
    /** The environment as the agents reported it. */
    public final Map<String, Object> environment = new LinkedHashMap<>();
    public Histogram latency;
    public Histogram intended;
    /** Connect times of every agent's connections (ns), merged. */
    public Histogram connect;
    /** Why connections failed, per agent, one line each (empty when every connection opened). */
    public final List<String> connectFailures = new ArrayList<>();
    /** Seconds from the first SETUP to the last connection open. */
    public double setupSeconds;
    public final List<ScenarioResult.Second> seconds = new ArrayList<>();
    /** The measurement's latency intervals (latency.hlog). */
    public final List<ScenarioResult.Interval> intervals = new ArrayList<>();
    public boolean inFlightTimedOut;
    public long drainMs;
    /** True when some agents run on another box than the (first) subscribers agent (R1). */
    public boolean crossHost;
    /** Each agent's epoch-clock offset to the first subscribers agent's, with its bound (cross-host runs). */
    public final Map<String, ClockOffset> clockOffsets = new LinkedHashMap<>();
    /** Each role's agents' process CPU time (ns, summed) at the reset after the warm-up, and at the end. */
    public final Map<String, Long> cpuAtReset = new TreeMap<>();
    /** Agents per role. */
    public int publishersAgents;
    public int subscribersAgents;

    /** Both roles' counters merged: {@code errors_*} summed over agents and the coordinator, the rest as reported. */
    public Map<String, Long> counters() {
        Map<String, Long> m = new TreeMap<>(publisherCounters);
        for (Map.Entry<String, Long> e : subscriberCounters.entrySet()) {
            if (e.getKey().startsWith("errors_") || e.getKey().startsWith("connect") || e.getKey().startsWith("connections_")) {
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
