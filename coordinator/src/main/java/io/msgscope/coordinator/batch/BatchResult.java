package io.msgscope.coordinator.batch;

import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.coordinator.results.Unfinished;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch's runs, in the order they ran; failed when one of them is not ok, interrupted when SIGINT or SIGTERM stopped
 * it ({@code stopped} says how far it got, issue 29; else null). Written as batch.json and batch.md.
 */
public record BatchResult(List<BatchRun> runs, Unfinished stopped) {

    public BatchResult {
        runs = List.copyOf(runs);
    }

    /** A batch that ran to its end. */
    public BatchResult(List<BatchRun> runs) {
        this(runs, null);
    }

    public boolean failed() {
        return runs.stream().anyMatch(r -> !r.ok());
    }

    /** Writes batch.json and batch.md into {@code dir}. */
    public void write(Path dir) throws IOException {
        Files.writeString(dir.resolve(ResultFiles.BATCH), Json.text(toMap()), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(ResultFiles.BATCH_MD), markdown(), StandardCharsets.UTF_8);
    }

    Map<String, Object> toMap() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("tool", Json.tool());
        root.put("mode", "batch");
        Unfinished.putStatus(root, stopped, failed());
        root.put("runs", runs.stream().map(BatchRun::toMap).toList());
        return root;
    }

    String markdown() {
        StringBuilder md = new StringBuilder("| run | command | status | msg/s | p50 | p99 | wall |\n"
                + "|---|---|---|---:|---:|---:|---:|\n");
        runs.forEach(r -> md.append(r.markdownRow()));
        if (stopped != null) {
            md.append("\n").append(stopped.line().substring(0, 1).toUpperCase(java.util.Locale.ROOT))
                    .append(stopped.line().substring(1)).append(".\n");
        }
        return md.toString();
    }
}
