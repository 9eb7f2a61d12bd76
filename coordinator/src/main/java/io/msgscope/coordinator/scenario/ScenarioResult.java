package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.agents.ClockOffset;
import io.msgscope.coordinator.results.Envelope;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scenario run's result, typed and immutable (issue 15), the one model every writer reads: the {@link Envelope}
 * every mode's summary begins with, what ran ({@link Setup}), the agents whose figures are missing and the first
 * errors, the {@code results} ({@link ScenarioFigures}), the notes, and the per-second series and latency intervals
 * (timeseries.dat, latency.hlog). {@link ScenarioSummary#build} makes it; {@link ScenarioWriters} writes each format.
 *
 * @param missingAgents the agents whose final figures could not be collected, with why; null when none
 * @param firstErrors   the first error each agent reported, one line each
 * @param seconds       the measurement, second by second
 * @param intervals     the measurement's latency, one interval per second and the drain (on load phases each second's
 *                      tagged with its phase)
 * @param interruption  how far a run stopped by SIGINT or SIGTERM got (issue 29), null when none stopped it
 * @param phases        each load phase's figures (issue 31); null for a run at one rate
 * @param clocks        cross-host latency corrected by the tracked clocks (issue 33); null on one box
 * @param faults        what each fault cost (issue 32 item 5); null when the run planned none
 */
public record ScenarioResult(Envelope envelope, Setup setup, String missingAgents, List<String> firstErrors,
                             ScenarioFigures results, List<String> notes, List<Second> seconds,
                             List<Interval> intervals, ScenarioInterruption interruption, ScenarioPhases phases,
                             ScenarioClockFigures clocks, ScenarioFaultFigures.Section faults) {

    public ScenarioResult {
        firstErrors = List.copyOf(firstErrors);
        notes = List.copyOf(notes);
        seconds = List.copyOf(seconds);
        intervals = List.copyOf(intervals);
    }

    /** One second of the measurement: rate and percentiles over that interval. */
    public record Second(long second, double rate, double p50Us, double p99Us) {
    }

    /**
     * One interval of the latency log (latency.hlog): its wall-clock span in ms since the epoch, a tag (null, or
     * "drain" for what arrived after the publishers stopped) and the histogram, HdrHistogram's compressed form.
     */
    public record Interval(long startEpochMs, long endEpochMs, String tag, byte[] histogram) {
    }

    /**
     * What ran, after the envelope: the scenario, its delivery guarantee, the clients and their rate, the periods, the
     * messages (the rate per publisher null on load phases, whose rates are the spec's {@code phases}), the broker as the
     * client saw it; then why connections failed (when any did) and, across boxes, each
     * agent's clock offset to the subscribers' (R1).
     */
    public record Setup(String scenario, String delivery, int publishers, int subscribers, Double ratePerPublisher,
                        double warmupS, double durationS, int size, String padding, Map<String, String> broker,
                        List<String> connectFailures, boolean crossHost, Map<String, ClockOffset> clockOffsets) {
        public Setup {
            broker = Collections.unmodifiableMap(new LinkedHashMap<>(broker));
            connectFailures = List.copyOf(connectFailures);
            clockOffsets = Collections.unmodifiableMap(new LinkedHashMap<>(clockOffsets));
        }

        void putInto(Map<String, Object> m) {
            m.put("scenario", scenario);
            m.put("delivery", delivery);
            m.put("publishers", publishers);
            m.put("subscribers", subscribers);
            m.put("rate_per_publisher", ratePerPublisher);
            m.put("warmup_s", warmupS);
            m.put("duration_s", durationS);
            m.put("size", size);
            m.put("padding", padding);
            m.put("broker", new LinkedHashMap<>(broker));
            if (!connectFailures.isEmpty()) {
                m.put("connect_failures", connectFailures);
            }
            m.put("cross_host", crossHost);
            if (crossHost) {
                Map<String, Object> offsets = new LinkedHashMap<>();
                clockOffsets.forEach((agent, off) -> offsets.put(agent, Map.of("offset_us", off.offsetNs() / 1e3,
                        "error_bound_us", off.errorNs() / 1e3)));
                m.put("clock_offsets_to_subscribers", offsets);
            }
        }
    }

    /** summary.json's entries before {@code results}: the envelope, what ran, the missing agents, the first errors. */
    public Map<String, Object> header() {
        Map<String, Object> m = envelope.toMap();
        setup.putInto(m);
        m.put("missing_agents", missingAgents);
        if (!firstErrors.isEmpty()) {
            m.put("first_errors", firstErrors);
        }
        return m;
    }

    /** summary.json: the header, the results, the notes. */
    public Map<String, Object> toMap() {
        Map<String, Object> root = header();
        Map<String, Object> figures = results.toMap();
        if (clocks != null) {
            clocks.putResults(figures); // issue 33: corrected beside the uncorrected
            root.put("clock_tracking", clocks.toMap());
        }
        root.put("results", figures);
        if (interruption != null) {
            root.put("interrupted", interruption.toMap());
        }
        if (phases != null) {
            root.put("phases", phases.toList());
            if (phases.backlog() != null) {
                root.put("backlog", phases.backlog().toList()); // issue 31 item 3
            }
        }
        if (faults != null) {
            root.put("faults", faults.toList());
        }
        root.put("notes", notes);
        return root;
    }
}
