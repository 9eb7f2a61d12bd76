package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.agents.ClockOffset;
import org.HdrHistogram.Histogram;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a scenario run measured, immutable (issue 30): counters per role, histograms, the per-second series, the
 * connections, and how it failed. {@link ScenarioRun} gathers it in a {@link ScenarioCollector};
 * {@link ScenarioSummary#build} turns it into the {@link ScenarioResult} the writers write. The histograms are the
 * outcome's own copies: nothing changes them after the run.
 *
 * @param startedAt         when the run began (ISO-8601, UTC): summary.json's started_at
 * @param usage             true when the failure is the user's (a usage error an agent reported)
 * @param failedDuring      the phase a failure ended: set-up, warm-up, measurement, drain (the in-flight wait) or
 *                          aggregation
 * @param missingAgents     agents whose final figures could not be collected (dead, silent, or past the deadline)
 * @param publisherCounters the counters of the publishers agents, summed over them (each agent's latest report)
 * @param subscriberCounters the same for the subscribers agents
 * @param runErrors         errors the coordinator saw itself (an agent's failure report, a lost agent), by kind
 * @param firstErrors       the first error each agent reported, one line each
 * @param broker            what the client saw of the broker (the first subscribers agent's first connection)
 * @param environment       the environment as the agents reported it
 * @param connect           connect times of every agent's connections (ns), merged
 * @param connectFailures   why connections failed, per agent, one line each (empty when every connection opened)
 * @param setupSeconds      seconds from the first SETUP to the last connection open
 * @param intervals         the measurement's latency intervals (latency.hlog)
 * @param windows           the measurement's poll windows, one per interval before the drain's (issue 31)
 * @param inFlightTimedOut  the in-flight wait ended with no delivery for --drain-timeout, deliveries still missing
 * @param drainMs           the in-flight wait's whole length, ms (Q9, issue 31 item 1)
 * @param crossHost         true when some agents run on another box than the (first) subscribers agent (R1)
 * @param clockOffsets      each agent's epoch-clock offset to the first subscribers agent's (cross-host runs)
 * @param cpuAtReset        each role's agents' process CPU time (ns, summed) at the reset after the warm-up
 * @param publishersAgents  agents per role
 * @param interruption      how far a run stopped by SIGINT or SIGTERM got (issue 29), null when none stopped it
 * @param clockTrack        the clocks followed through the run, fitted (issue 33); null when the run never got to set-up
 * @param asRun             the timeline as run when a phase ended on a word (issue 31); else null
 * @param faults            what each fault cost (issue 32 item 5); null when the run planned none
 */
public record ScenarioOutcome(String startedAt, String failure, boolean usage, String failedDuring,
                              List<String> missingAgents, long sent, Map<String, Long> publisherCounters,
                              Map<String, Long> subscriberCounters, Map<String, Long> runErrors,
                              List<String> firstErrors, Map<String, String> broker, Map<String, Object> environment,
                              Histogram latency, Histogram intended, Histogram connect, List<String> connectFailures,
                              double setupSeconds, List<ScenarioResult.Second> seconds,
                              List<ScenarioResult.Interval> intervals, List<ScenarioPhases.Window> windows,
                              boolean inFlightTimedOut, long drainMs,
                              boolean crossHost, Map<String, ClockOffset> clockOffsets, Map<String, Long> cpuAtReset,
                              int publishersAgents, int subscribersAgents, ScenarioInterruption interruption,
                              ScenarioBacklog.Reads backlogReads, io.msgscope.coordinator.agents.ClockTrack clockTrack,
                              io.msgscope.core.timeline.Timeline asRun, ScenarioFaultFigures.Section faults) {

    public ScenarioOutcome {
        missingAgents = List.copyOf(missingAgents);
        publisherCounters = sorted(publisherCounters);
        subscriberCounters = sorted(subscriberCounters);
        runErrors = sorted(runErrors);
        firstErrors = List.copyOf(firstErrors);
        broker = ordered(broker);
        environment = ordered(environment);
        connectFailures = List.copyOf(connectFailures);
        seconds = List.copyOf(seconds);
        intervals = List.copyOf(intervals);
        windows = List.copyOf(windows);
        clockOffsets = ordered(clockOffsets);
        cpuAtReset = sorted(cpuAtReset);
    }

    /**
     * The timeline as run (issue 31): {@code asked} with each phase that ended on a word given the length it took;
     * {@code asked} itself when the run had no such phase (or none).
     */
    public io.msgscope.core.timeline.Timeline timeline(io.msgscope.core.timeline.Timeline asked) {
        return asRun == null ? asked : asRun;
    }

    /** Both roles' counters merged: {@code errors_*} summed over agents and the coordinator, the rest as reported. */
    public Map<String, Long> counters() {
        return merged(publisherCounters, subscriberCounters, runErrors);
    }

    static Map<String, Long> merged(Map<String, Long> publishers, Map<String, Long> subscribers,
                                    Map<String, Long> runErrors) {
        Map<String, Long> m = new TreeMap<>(publishers);
        for (Map.Entry<String, Long> e : subscribers.entrySet()) {
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

    private static Map<String, Long> sorted(Map<String, Long> m) {
        return Collections.unmodifiableSortedMap(new TreeMap<>(m));
    }

    private static <V> Map<String, V> ordered(Map<String, V> m) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(m));
    }
}
