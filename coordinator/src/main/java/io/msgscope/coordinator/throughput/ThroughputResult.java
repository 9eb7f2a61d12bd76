package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.Envelope;
import io.msgscope.analysis.stats.SampleSummary;
import io.msgscope.proto.FlowResult;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A throughput run's result (A5-A7), typed and immutable (issue 15): the {@link Envelope} every mode's summary begins
 * with, then the mode's own sections — where it ran, the settings, the session warm-up, the F search, every probe, the
 * final measurement, the notes and the files. {@code ThroughputResults} builds it from the run's outcome; each format
 * has its writer: summary.json is {@link #toMap()} through Jackson, in the order below, and the search's gnuplot files
 * ({@code SearchPlot}) read {@link #probes} and {@link #search}.
 *
 * @param uri         the broker's URI, secrets masked
 * @param destination the queue or subject the flow agent used
 * @param settings    the spec's fields under the name earlier versions used, kept for their readers
 * @param warmup      the session warm-up before the first probe, or null when none ran
 * @param search      the F search, or null when F was given
 * @param probes      every probe of the search, in the order taken
 * @param result      the final measurement, or null when it never ran
 * @param notes       what the reader should know, one line each
 * @param files       the files of the results folder, summary.json last
 * @param interruption how far a run stopped by SIGINT or SIGTERM got (issue 29), null when none stopped it
 */
public record ThroughputResult(Envelope envelope, String uri, String destination, Map<String, Object> settings,
                               SessionWarmup warmup, SearchSection search, List<Probe> probes,
                               FinalMeasurement result, List<String> notes, List<String> files,
                               Interruption interruption) {

    public ThroughputResult {
        settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
        probes = List.copyOf(probes);
        notes = List.copyOf(notes);
        files = List.copyOf(files);
    }

    /** The same result listing {@code files} (known once every other file is written). */
    public ThroughputResult withFiles(List<String> files) {
        return new ThroughputResult(envelope, uri, destination, settings, warmup, search, probes, result, notes, files,
                interruption);
    }

    /** The discarded warm-up before the first probe: its F, messages, time and rate (null when it took no time). */
    public record SessionWarmup(long inFlight, long messages, double elapsedMs, Double rateMsgS) {
        public static SessionWarmup of(FlowResult w) {
            return new SessionWarmup(w.getInFlight(), w.getWarmupReceived(), w.getWarmupElapsedNs() / 1e6,
                    w.getWarmupElapsedNs() > 0 ? w.getWarmupReceived() * 1e9 / w.getWarmupElapsedNs() : null);
        }

        Map<String, Object> toMap() {
            Map<String, Object> w = new LinkedHashMap<>();
            w.put("in_flight", inFlight);
            w.put("messages", messages);
            w.put("elapsed_ms", elapsedMs);
            w.put("rate_msg_s", rateMsgS);
            w.put("note", "discarded: the client, its connections and the broker's queue warmed up before the first probe");
            return w;
        }
    }

    /**
     * One probe of the search as taken: its F and phase, its samples' figures, the rate over its sampling period, the
     * mean in flight (Little's law, at arrivals) and its latency p50/p99 in µs; an unmeasured figure is null.
     */
    public record Probe(long inFlight, String phase, SampleSummary samples, Double rateOverSamplingMsgS,
                        Double littlesLaw, Double atArrivals, Double latencyP50Us, Double latencyP99Us) {
        public static Probe of(ThroughputStats st, String phase) {
            Histogram h = st.latency();
            boolean lat = h != null && h.getTotalCount() > 0;
            return new Probe(st.inFlight(), phase, st.samples(), Json.finite(st.rateOverSampling()),
                    Json.finite(st.littleInFlight()), Json.finite(st.countedInFlight()),
                    lat ? h.getValueAtPercentile(50) / 1e3 : null, lat ? h.getValueAtPercentile(99) / 1e3 : null);
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("in_flight", inFlight);
            m.put("phase", phase);
            m.putAll(SamplesJson.samples(samples));
            m.put("steady", samples.stationarity().steady());
            m.put("rate_over_sampling_msg_s", rateOverSamplingMsgS);
            m.put("mean_in_flight_littles_law", littlesLaw);
            m.put("mean_in_flight_at_arrivals", atArrivals);
            m.put("latency_p50_us", latencyP50Us);
            m.put("latency_p99_us", latencyP99Us);
            return m;
        }
    }

    /** summary.json, field by field in the order written: the envelope, then this mode's sections. */
    public Map<String, Object> toMap() {
        Map<String, Object> root = envelope.toMap();
        root.put("uri", uri);
        root.put("destination", destination);
        root.put("settings", new LinkedHashMap<>(settings));
        if (warmup != null) {
            root.put("warmup", warmup.toMap());
        }
        if (search != null) {
            root.put("search", search.toMap());
        }
        List<Map<String, Object>> ps = new ArrayList<>();
        for (Probe p : probes) {
            ps.add(p.toMap());
        }
        root.put("probes", ps);
        if (result != null) {
            root.put("result", result.toMap());
        }
        if (interruption != null) {
            root.put("interrupted", interruption.toMap());
        }
        root.put("notes", notes);
        root.put("files", files);
        return root;
    }
}
