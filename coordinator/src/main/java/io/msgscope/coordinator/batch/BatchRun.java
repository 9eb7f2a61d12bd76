package io.msgscope.coordinator.batch;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.analysis.output.HumanFormat;
import io.msgscope.coordinator.view.SummaryView;
import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.ResultFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One run of a batch as batch.json lists it: where it ran, how it ended, and its headline figures, read from its
 * summary.json (a run that left none is failed, its exit code and log named).
 *
 * @param msgS          the run's rate, null when it has none
 * @param latencyP50Us  its median latency in µs, null when it has none
 */
public record BatchRun(String name, String command, List<String> arguments, int exitCode, String status,
                       String failureReason, String specHash, Double msgS, Double latencyP50Us, Double latencyP99Us,
                       double wallS) {

    public BatchRun {
        arguments = List.copyOf(arguments);
    }

    /** The run named {@code name} in {@code runDir}, from its summary.json when it wrote one. */
    public static BatchRun read(String name, String command, List<String> arguments, Path runDir, int exitCode,
                                double wallS) {
        Path summary = runDir.resolve(ResultFiles.SUMMARY);
        JsonNode s;
        try {
            s = Files.isRegularFile(summary) ? Json.MAPPER.readTree(summary.toFile()) : null;
        } catch (IOException ex) {
            s = null;
        }
        if (s == null) {
            return new BatchRun(name, command, arguments, exitCode, "failed",
                    "no summary.json (exit " + exitCode + "; see " + name + "/run.log)", null, null, null, null, wallS);
        }
        SummaryView v = new SummaryView(s);
        return new BatchRun(name, command, arguments, exitCode, v.status(), v.envelope().failureReason(),
                v.envelope().specHash(), known(v.msgPerS()), known(v.latencyUs("p50")), known(v.latencyUs("p99")), wallS);
    }

    private static Double known(double v) {
        return Double.isNaN(v) ? null : v;
    }

    public boolean ok() {
        return "ok".equals(status);
    }

    /** Stopped by SIGINT or SIGTERM with what it measured written (issue 29). */
    public boolean interrupted() {
        return io.msgscope.coordinator.results.Envelope.INTERRUPTED.equals(status);
    }

    /** batch.json's line, in its order (the folder is the run's name). */
    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("command", command);
        m.put("arguments", arguments);
        m.put("folder", name);
        m.put("exit_code", exitCode);
        m.put("status", status);
        m.put("failure_reason", failureReason);
        m.put("spec_hash", specHash);
        m.put("msg_s", msgS);
        m.put("latency_p50_us", latencyP50Us);
        m.put("latency_p99_us", latencyP99Us);
        m.put("wall_s", wallS);
        return m;
    }

    /** The console's line once the run ended: status (and why it failed), rate, latency, wall time. */
    public String line() {
        return String.format(Locale.ROOT, "      %s%s, %s msg/s, latency p50 %s, p99 %s (%.1f s)", status,
                failureReason == null ? "" : " (" + failureReason + ")",
                msgS == null ? "-" : String.format(Locale.ROOT, "%,.0f", msgS), latency(latencyP50Us, "-"),
                latency(latencyP99Us, "-"), wallS);
    }

    /** batch.md's row. */
    String markdownRow() {
        return String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %.1f s |%n", name, command, status,
                msgS == null ? "–" : String.format(Locale.ROOT, "%,.0f", msgS), latency(latencyP50Us, "–"),
                latency(latencyP99Us, "–"), wallS);
    }

    private static String latency(Double us, String none) {
        return us == null ? none : HumanFormat.duration(us * 1e3);
    }
}
