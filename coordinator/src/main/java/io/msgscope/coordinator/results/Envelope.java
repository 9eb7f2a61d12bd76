package io.msgscope.coordinator.results;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.core.Version;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What every mode's {@code summary.json} begins with, in one order (issue 15: the trace, throughput and scenario
 * headers had drifted apart — throughput had no run id and no failed phase, scenario wrote {@code tool} as a string
 * and no warnings): the tool, the mode, the run, its status and failure with the phase it ended in, the warnings,
 * the spec as given with its hash, and the environment. Each mode's results follow it. Immutable; written by
 * {@link #toMap()} and read back, from any version's summary, by {@link #read(JsonNode)}.
 *
 * @param toolVersion the msgscope version that wrote the summary
 * @param mode trace, throughput or scenario
 * @param runId the run's id (trace and scenario: the id the agents were given; throughput: the results folder's name)
 * @param driver the driver's name (M10)
 * @param startedAt ISO-8601 instant, UTC
 * @param failureReason one line, or null when the run is ok
 * @param failedDuring the phase a failure ended (set-up, warm-up, search, measurement, upload, drain, aggregation,
 *                     analysis); null when the run is ok
 * @param warnings what the reader must know to trust the figures, one line each
 * @param spec the spec as given, secrets masked: what {@code specHash} identifies (its loading back is issue 18's)
 * @param specHash SHA-256 of the spec, hex; each mode keeps the hash function its earlier summaries used, so that a
 *                 spec loaded back from any of them hashes the same
 * @param environment the coordinator's and the agents' machines, as the mode records them
 * @param interrupted the run was stopped by SIGINT or SIGTERM (issue 29): status {@code interrupted}, its failure
 *                    reason says so, and every figure is over the part that ran
 */
public record Envelope(String toolVersion, String mode, String runId, String driver, String startedAt,
                       String failureReason, String failedDuring, List<String> warnings, Map<String, Object> spec,
                       String specHash, Map<String, Object> environment, boolean interrupted) {
    public static final String TOOL_NAME = "msgscope";
    /** Turns a summary's spec and environment back into plain maps; thread-safe, as it is never reconfigured. */
    private static final ObjectMapper PLAIN = new ObjectMapper();

    public Envelope {
        Objects.requireNonNull(mode, "mode");
        warnings = List.copyOf(warnings);
        spec = Collections.unmodifiableMap(new LinkedHashMap<>(spec));
        environment = Collections.unmodifiableMap(new LinkedHashMap<>(environment));
        if (failureReason == null && failedDuring != null) {
            throw new IllegalArgumentException("failed_during " + failedDuring + " on a run that did not fail");
        }
        if (interrupted && failureReason == null) {
            throw new IllegalArgumentException("an interrupted run says so in its failure reason");
        }
    }

    /** A summary of a run that was not interrupted. */
    public Envelope(String toolVersion, String mode, String runId, String driver, String startedAt, String failureReason,
                    String failedDuring, List<String> warnings, Map<String, Object> spec, String specHash,
                    Map<String, Object> environment) {
        this(toolVersion, mode, runId, driver, startedAt, failureReason, failedDuring, warnings, spec, specHash,
                environment, false);
    }

    /** A summary this version writes. */
    public static Envelope of(String mode, String runId, String driver, String startedAt, String failureReason,
                              String failedDuring, List<String> warnings, Map<String, Object> spec, String specHash,
                              Map<String, Object> environment) {
        return of(mode, runId, driver, startedAt, failureReason, failedDuring, warnings, spec, specHash, environment,
                false);
    }

    /** A summary this version writes, {@code interrupted} by a signal or not. */
    public static Envelope of(String mode, String runId, String driver, String startedAt, String failureReason,
                              String failedDuring, List<String> warnings, Map<String, Object> spec, String specHash,
                              Map<String, Object> environment, boolean interrupted) {
        return new Envelope(Version.TOOL, mode, runId, driver, startedAt, failureReason,
                failureReason == null ? null : failedDuring, warnings, spec, specHash, environment, interrupted);
    }

    public boolean failed() {
        return failureReason != null;
    }

    /** {@code ok}, {@code failed} or {@code interrupted}, as summary.json spells it. */
    public String status() {
        return interrupted ? INTERRUPTED : failed() ? "failed" : "ok";
    }

    /** The status of a run stopped by SIGINT or SIGTERM, its figures over the part that ran (issue 29). */
    public static final String INTERRUPTED = "interrupted";

    /** The tool as summary.json writes it: {@code {"name": "msgscope", "version": ...}}, always in that order. */
    public static Map<String, Object> tool(String version) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", TOOL_NAME);
        m.put("version", version);
        return m;
    }

    /** The envelope's fields in summary.json's order; the mode appends its own after them. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tool", tool(toolVersion));
        m.put("mode", mode);
        m.put("run_id", runId);
        m.put("driver", driver);
        m.put("started_at", startedAt);
        m.put("status", status());
        m.put("failure_reason", failureReason);
        m.put("failed_during", failedDuring);
        m.put("warnings", new ArrayList<>(warnings));
        m.put("spec", new LinkedHashMap<>(spec));
        m.put("spec_hash", specHash);
        m.put("environment", new LinkedHashMap<>(environment));
        return m;
    }

    /**
     * The envelope of any summary.json, also those earlier versions wrote: a scenario's {@code tool} as the string
     * "msgscope VERSION", a throughput run without {@code run_id} and {@code failed_during}, a trace run's mode
     * missing (the first release). What is absent is null (empty for lists and maps); a failed run without a reason
     * reads "failed (no reason recorded)".
     */
    public static Envelope read(JsonNode s) {
        JsonNode tool = s.path("tool");
        String version = tool.isObject() ? text(tool.path("version"))
                : tool.isTextual() && tool.asText().startsWith(TOOL_NAME + " ") ? tool.asText().substring(TOOL_NAME.length() + 1)
                : null;
        String mode = s.path("mode").asText("trace");
        String failure = text(s.path("failure_reason"));
        boolean interrupted = INTERRUPTED.equals(s.path("status").asText());
        if (failure == null && ("failed".equals(s.path("status").asText()) || interrupted)) {
            failure = interrupted ? "interrupted (no reason recorded)" : "failed (no reason recorded)";
        }
        List<String> warnings = new ArrayList<>();
        s.path("warnings").forEach(w -> warnings.add(w.asText()));
        return new Envelope(version, mode, text(s.path("run_id")), text(s.path("driver")), text(s.path("started_at")),
                failure, failure == null ? null : text(s.path("failed_during")), warnings, plain(s.path("spec")),
                text(s.path("spec_hash")), plain(s.path("environment")), interrupted);
    }

    private static String text(JsonNode n) {
        return n.isValueNode() && !n.isNull() ? n.asText() : null;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> plain(JsonNode n) {
        if (!n.isObject()) {
            return Map.of();
        }
        return PLAIN.convertValue(n, LinkedHashMap.class);
    }
}
