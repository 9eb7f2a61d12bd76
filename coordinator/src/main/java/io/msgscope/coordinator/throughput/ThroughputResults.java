package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.ResultsFolder;
import io.msgscope.coordinator.results.Envelope;
import io.msgscope.core.EnvironmentInfo;
import io.msgscope.core.RunSpec;
import io.msgscope.core.Secrets;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Throughput mode's results (A5-A7): builds the typed {@link ThroughputResult} from a {@link ThroughputRun.Outcome}
 * and the options as given, and writes the F search's files, latency.hlog, the sample files and summary.json through
 * their writers. The command plans the run and calls this (issue 15: the commands do not assemble results);
 * {@link ThroughputConsole} says the same on the console.
 */
public final class ThroughputResults {
    private ThroughputResults() {
    }

    /** The options as the user gave them (units as on the command line): summary.json's spec and settings. */
    public record Given(int size, String padding, long requestedInFlight, int samples, String finalSamples,
                        double thresholdMs,
                        double skipFactor, double probeWarmupMs, double warmupMs, long warmupMessages, int maxExponent,
                        String pick, int remeasure, int maxProbes) {

        /** The pick as the summary spells it: {@code knee} or {@code peak}. */
        public String pickName() {
            return pick.trim().toLowerCase(Locale.ROOT);
        }

        public ThroughputRun.Pick parsedPick() {
            return ThroughputRun.Pick.valueOf(pick.trim().toUpperCase(Locale.ROOT));
        }

        Map<String, Object> settings(Map<String, String> driverOptions) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("size", size);
            m.put("padding", padding);
            m.put("in_flight", requestedInFlight == 0 ? "auto" : requestedInFlight);
            m.put("samples", samples);
            m.put("final_samples", finalSamples.equals("auto") ? finalSamples : Integer.valueOf(finalSamples));
            m.put("threshold_ms", thresholdMs);
            m.put("skip_factor", skipFactor);
            m.put("probe_warmup_time_ms", probeWarmupMs);
            m.put("warmup_time_ms", warmupMs);
            m.put("warmup_messages", warmupMessages);
            m.put("max_exponent", maxExponent);
            m.put("pick", pickName());
            m.put("remeasure", remeasure);
            m.put("max_probes", maxProbes);
            m.put("driver_options", Secrets.options(driverOptions));
            return m;
        }
    }

    /**
     * Writes every file of the run into {@code folder} from its typed result, one writer per format: search.dat and
     * search.gp ({@link SearchPlot}), latency.hlog ({@link ThroughputHlog}), the sample files
     * ({@link ThroughputSamples}) and summary.json last (the folder's commit); a file that cannot be written throws
     * {@link ResultsFolder.WriteFailed} naming it.
     */
    public static void write(Path dir, ResultsFolder folder, RunSpec spec, Given g, ThroughputRun.Outcome o,
                             String startedAt) throws IOException {
        // the run's id is its results folder's name, as the folder's placeholder summary already says
        write(dir, folder, spec, g, o, EnvironmentInfo.current(), dir.getFileName().toString(), startedAt);
    }

    /** The same with the environment and the run's id given (the golden test's fixed ones). */
    static void write(Path dir, ResultsFolder folder, RunSpec spec, Given g, ThroughputRun.Outcome o, EnvironmentInfo e,
                      String runId, String startedAt) throws IOException {
        ThroughputResult r = result(spec, g, o, e, runId, startedAt, List.of());
        List<String> files = new ArrayList<>();
        folder.write("the F search files", () -> files.addAll(SearchPlot.write(dir, r)));
        folder.write(ResultFiles.LATENCY_HLOG, () -> {
            if (ThroughputHlog.write(dir.resolve(ResultFiles.LATENCY_HLOG), o) > 0) {
                files.add(ResultFiles.LATENCY_HLOG);
            }
        });
        if (o.finalResult() != null) {
            folder.write("the throughput sample files", () -> files.addAll(
                    ThroughputSamples.write(dir, o.finalResult().getSamplesList(), o.finalStats().samples())));
        }
        files.add(ResultFiles.SUMMARY);
        folder.commit(r.withFiles(files).toMap());
    }

    /** summary.json of a throughput run, field by field in the order written. */
    static Map<String, Object> summary(RunSpec spec, Given g, ThroughputRun.Outcome o, EnvironmentInfo e,
                                       String runId, String startedAt, List<String> files) {
        return result(spec, g, o, e, runId, startedAt, files).toMap();
    }

    /**
     * The typed result of a throughput run (issue 15), built here and only here from the run's outcome and the
     * options as given: the envelope (the spec as given and its hash, the environment with the flow agent's
     * pinning), then each section; the search's through {@link SearchSection#of}.
     */
    public static ThroughputResult result(RunSpec spec, Given g, ThroughputRun.Outcome o, EnvironmentInfo e,
                                          String runId, String startedAt, List<String> files) {
        Map<String, Object> settings = g.settings(spec.driverOptions());
        Map<String, Object> specMap = new LinkedHashMap<>();
        specMap.put("driver", spec.driver());
        specMap.put("uri", spec.uriForDisplay());
        specMap.putAll(settings);
        Map<String, Object> env = Json.env(e);
        if (o.flowAgent() != null) {
            env.put("flow_agent_affinity", o.flowAgent().affinity().getObtained());
        }
        Envelope envelope = Envelope.of("throughput", runId, spec.driver(), startedAt, o.failure(), o.failedDuring(),
                o.warnings(), specMap, Json.specHash(specMap), env, o.interruption() != null);
        SearchSection search = o.search() == null ? null : SearchSection.of(o.search(), o.searchMethod(), g.pickName(),
                g.parsedPick() == ThroughputRun.Pick.KNEE);
        List<ThroughputResult.Probe> probes = new ArrayList<>();
        for (ThroughputRun.Probed p : o.probes()) {
            probes.add(ThroughputResult.Probe.of(p.stats(), p.phase()));
        }
        return new ThroughputResult(envelope, spec.uriForDisplay(), o.destination(), settings,
                o.warmup() == null ? null : ThroughputResult.SessionWarmup.of(o.warmup()), search, probes,
                o.finalResult() == null ? null : FinalMeasurement.of(o.finalResult(), o.finalStats(), g.size()), o.notes(),
                files, o.interruption());
    }
}
