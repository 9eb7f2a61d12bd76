package io.msgscope.coordinator.batch;

import io.msgscope.core.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** batch.json and batch.md byte for byte (issue 30: moved out of the CLI, their bytes unchanged). */
class BatchResultTest {
    @TempDir
    Path dir;

    @Test
    void aRunThatLeftNoSummaryIsFailedAndBothFilesSaySoInTheirFormat() throws Exception {
        BatchRun lost = BatchRun.read("a", "run", List.of("run", "--count", "10"), dir.resolve("a"), 1, 2.25);
        BatchRun ok = new BatchRun("b", "throughput", List.of("throughput"), 0, "ok", null, "abc", 12345.6, 50.0, 1500.0,
                3.0);
        BatchResult result = new BatchResult(List.of(lost, ok));
        assertTrue(result.failed());
        assertFalse(new BatchResult(List.of(ok)).failed());
        result.write(dir);
        assertEquals("""
                {
                  "tool" : {
                    "name" : "msgscope",
                    "version" : "%s"
                  },
                  "mode" : "batch",
                  "status" : "failed",
                  "runs" : [ {
                    "name" : "a",
                    "command" : "run",
                    "arguments" : [ "run", "--count", "10" ],
                    "folder" : "a",
                    "exit_code" : 1,
                    "status" : "failed",
                    "failure_reason" : "no summary.json (exit 1; see a/run.log)",
                    "spec_hash" : null,
                    "msg_s" : null,
                    "latency_p50_us" : null,
                    "latency_p99_us" : null,
                    "wall_s" : 2.25
                  }, {
                    "name" : "b",
                    "command" : "throughput",
                    "arguments" : [ "throughput" ],
                    "folder" : "b",
                    "exit_code" : 0,
                    "status" : "ok",
                    "failure_reason" : null,
                    "spec_hash" : "abc",
                    "msg_s" : 12345.6,
                    "latency_p50_us" : 50.0,
                    "latency_p99_us" : 1500.0,
                    "wall_s" : 3.0
                  } ]
                }
                """.formatted(Version.TOOL), Files.readString(dir.resolve("batch.json"), StandardCharsets.UTF_8));
        assertEquals("""
                | run | command | status | msg/s | p50 | p99 | wall |
                |---|---|---|---:|---:|---:|---:|
                | a | run | failed | – | – | – | 2.3 s |
                | b | throughput | ok | 12,346 | %s | %s | 3.0 s |
                """.formatted(io.msgscope.analysis.output.HumanFormat.duration(50_000),
                io.msgscope.analysis.output.HumanFormat.duration(1_500_000)),
                Files.readString(dir.resolve("batch.md"), StandardCharsets.UTF_8));
        assertEquals("      failed (no summary.json (exit 1; see a/run.log)), - msg/s, latency p50 -, p99 - (2.3 s)",
                lost.line());
    }

    @Test
    void aRunsFiguresComeFromItsSummary() throws Exception {
        Path run = Files.createDirectories(dir.resolve("t"));
        Files.copy(Path.of(getClass().getResource("/io/msgscope/coordinator/golden/trace-summary.json").toURI()),
                run.resolve("summary.json"));
        BatchRun r = BatchRun.read("t", "run", List.of("run"), run, 1, 1.0);
        assertEquals("failed", r.status());
        assertEquals("1 of 10 messages lost", r.failureReason());
        assertFalse(r.specHash() == null || r.specHash().isEmpty());
    }

    /** Issue 29: a batch stopped by SIGINT lists the runs that finished, the cut one kept as interrupted. */
    @Test
    void anInterruptedBatchListsTheRunsThatFinishedAndSaysHowFarItGot() throws Exception {
        BatchRun ok = new BatchRun("a", "run", List.of("run"), 0, "ok", null, "h1", 1000.0, 50.0, 90.0, 2.0);
        BatchRun cut = new BatchRun("b", "run", List.of("run"), 130, "interrupted", "interrupted by SIGINT after 5 of 9",
                "h2", 900.0, 55.0, 95.0, 1.5);
        assertTrue(cut.interrupted());
        io.msgscope.coordinator.results.Unfinished stopped = new io.msgscope.coordinator.results.Unfinished("SIGINT", 2,
                4, List.of("c", "d"));
        assertEquals("interrupted by SIGINT after 2 of 4 runs; the tables hold the 2, not finished: c, d",
                stopped.line());
        new BatchResult(List.of(ok, cut), stopped).write(dir);
        com.fasterxml.jackson.databind.JsonNode json = io.msgscope.coordinator.results.Json.MAPPER.readTree(
                dir.resolve("batch.json").toFile());
        assertEquals("interrupted", json.get("status").asText());
        assertEquals("{\"signal\":\"SIGINT\",\"finished\":2,\"total\":4,\"not_finished\":[\"c\",\"d\"]}",
                json.get("interrupted").toString());
        assertEquals(2, json.get("runs").size());
        assertEquals("interrupted", json.get("runs").get(1).get("status").asText());
        String md = Files.readString(dir.resolve("batch.md"), StandardCharsets.UTF_8);
        assertTrue(md.contains("| b | run | interrupted |"), md);
        assertTrue(md.endsWith("\nInterrupted by SIGINT after 2 of 4 runs; the tables hold the 2, not finished: c, d.\n"),
                md);
    }
}
