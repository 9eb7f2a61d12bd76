package io.msgscope.coordinator.history;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.coordinator.results.Envelope;
import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.ResultFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One run as the store keeps it (issue 34 item 1), read from its finished {@code summary.json} — the one code path for
 * every mode: the envelope (mode, run id, driver, start, status, failure, spec and its hash, the msgscope version),
 * the coordinator's environment in columns (host, OS, JVM, CPU model, cores) and whole as JSON, the broker where the
 * summary names it, the key figures ({@link FigureCatalog}), the user's labels, the folder, and {@code latency.hlog}
 * as written (null when the folder has none).
 *
 * @param startedMs the start in ms since the epoch (null when the summary has none)
 */
public record RunRecord(String mode, String runId, String driver, String startedAt, Long startedMs, String status,
                        String failureReason, String failedDuring, String toolVersion, String specHash, String specJson,
                        String environmentJson, String host, String os, String jvm, String cpuModel,
                        Integer logicalCores, String broker, String folder, String hlog, Map<String, Double> figures,
                        Map<String, String> labels) {
    /** Spec and environment stored as one-line JSON. */
    private static final com.fasterxml.jackson.databind.ObjectMapper COMPACT = new com.fasterxml.jackson.databind.ObjectMapper();
    /** The interval log a folder keeps (every mode but capacity, whose steps keep theirs). */
    static final String HLOG = "latency.hlog";

    public RunRecord {
        figures = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(figures));
        labels = Map.copyOf(labels);
    }

    /** Reads {@code dir/summary.json} (and {@code latency.hlog} beside it) into a record with {@code labels}. */
    public static RunRecord read(Path dir, Map<String, String> labels) throws IOException {
        JsonNode s = Json.MAPPER.readTree(dir.resolve(ResultFiles.SUMMARY).toFile());
        Path hlog = dir.resolve(HLOG);
        return of(s, dir.toAbsolutePath().normalize().toString(),
                Files.isRegularFile(hlog) ? Files.readString(hlog, StandardCharsets.UTF_8) : null, labels);
    }

    /** A record of summary {@code s} written in {@code folder}. */
    static RunRecord of(JsonNode s, String folder, String hlog, Map<String, String> labels) throws IOException {
        Envelope e = Envelope.read(s);
        JsonNode env = s.path("environment");
        JsonNode host = env.path("coordinator").isObject() ? env.path("coordinator") : env; // trace: per machine
        String status = s.path("status").isTextual() ? s.path("status").asText()
                : e.interrupted() ? "interrupted" : e.failureReason() != null ? "failed" : "ok";
        return new RunRecord(e.mode(), e.runId(), e.driver(), e.startedAt(), epochMs(e.startedAt()), status,
                e.failureReason(), e.failedDuring(), e.toolVersion(), e.specHash(),
                s.has("spec") ? COMPACT.writeValueAsString(s.path("spec")) : null,
                env.isObject() ? COMPACT.writeValueAsString(env) : null,
                text(host.path("host")), text(host.path("os")), text(host.path("jvm")), text(host.path("cpu_model")),
                host.path("logical_cores").isInt() ? host.path("logical_cores").asInt() : null, broker(s.path("broker")),
                folder, hlog, FigureCatalog.of(s), labels);
    }

    /** The broker as the summary names it (a scenario's protocol, product and version); null where it does not. */
    private static String broker(JsonNode b) {
        if (!b.isObject()) {
            return null;
        }
        StringBuilder out = new StringBuilder();
        for (String f : new String[] {"product", "version", "protocol"}) {
            String v = text(b.path(f));
            if (v != null) {
                out.append(out.isEmpty() ? "" : " ").append(v);
            }
        }
        return out.isEmpty() ? null : out.toString();
    }

    private static Long epochMs(String iso) {
        try {
            return iso == null ? null : Instant.parse(iso).toEpochMilli();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String text(JsonNode n) {
        return n.isValueNode() && !n.isNull() ? n.asText() : null;
    }
}
