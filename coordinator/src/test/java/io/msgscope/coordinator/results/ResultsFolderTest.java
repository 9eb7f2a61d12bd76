package io.msgscope.coordinator.results;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Issue 16: a results folder always holds a readable summary.json, whatever failed while writing it. */
class ResultsFolderTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private JsonNode summary() throws IOException {
        return JSON.readTree(dir.resolve("summary.json").toFile());
    }

    @Test
    void thePlaceholderSaysTheRunFailedUntilTheFinalSummaryReplacesItWhole() throws Exception {
        ResultsFolder f = ResultsFolder.reserve(dir, Map.of("mode", "trace", "run_id", "r1"));
        JsonNode p = summary();
        assertEquals("failed", p.get("status").asText());
        assertTrue(p.get("failure_reason").asText().contains("stopped before it finished"));
        assertEquals("r1", p.get("run_id").asText());
        assertEquals(ResultsFolder.RESERVED_BYTES, Files.size(dir.resolve("summary.json")), "space kept");
        f.write("a.dat", () -> Files.writeString(dir.resolve("a.dat"), "1 2\n"));
        f.commit(Map.of("status", "ok", "mode", "trace"));
        assertEquals("ok", summary().get("status").asText());
        assertTrue(Files.size(dir.resolve("summary.json")) < 1_000, "the final summary is its own size");
        assertFalse(Files.exists(dir.resolve("summary.json.tmp")));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("a.dat", "summary.json"), files.map(file -> file.getFileName().toString()).sorted().toList(),
                    "the file and the summary, no leftovers");
        }
    }

    /** Issue 28: links planted at summary.json and its temporary file are replaced, their targets left alone. */
    @Test
    void aLinkAtTheSummaryIsReplacedNeverFollowed() throws Exception {
        Path victim = Files.writeString(Files.createTempFile("victim", ".txt"), "precious\n");
        try {
            Files.createSymbolicLink(dir.resolve("summary.json"), victim);
            ResultsFolder f = ResultsFolder.reserve(dir, Map.of("mode", "trace", "run_id", "r3"));
            assertFalse(Files.isSymbolicLink(dir.resolve("summary.json")));
            assertEquals("failed", summary().get("status").asText());
            Files.createSymbolicLink(dir.resolve("summary.json.tmp"), victim);
            f.commit(Map.of("status", "ok", "mode", "trace"));
            assertEquals("ok", summary().get("status").asText());
            assertEquals("precious\n", Files.readString(victim));
        } finally {
            Files.delete(victim);
        }
    }

    @Test
    void aFileThatCannotBeWrittenIsNamedAndTheFailureSummaryListsWhatIsWholeAndWhatIsPartial() throws Exception {
        ResultsFolder f = ResultsFolder.reserve(dir, Map.of("mode", "trace", "run_id", "r2"));
        f.write("whole.dat", () -> Files.writeString(dir.resolve("whole.dat"), "ok\n"));
        ResultsFolder.WriteFailed e = assertThrows(ResultsFolder.WriteFailed.class, () -> f.write("big.dat", () -> {
            Files.writeString(dir.resolve("big.dat"), "half");
            throw new IOException("No space left on device");
        }));
        assertEquals("big.dat", e.file());
        assertEquals("writing big.dat failed: No space left on device", e.getMessage());
        assertThrows(ResultsFolder.WriteFailed.class, () -> f.write("trace.dat", () -> {
            throw new IOException("No space left on device");
        }));
        assertTrue(f.writeFailureSummary(Map.of("counters", Map.of("messages_sent", 5))));
        JsonNode s = summary();
        assertEquals("failed", s.get("status").asText());
        assertEquals("writing big.dat failed: No space left on device", s.get("failure_reason").asText());
        assertEquals("big.dat", s.get("failed_file").asText());
        assertEquals("[\"whole.dat\"]", s.get("files").toString());
        assertEquals("[\"big.dat\",\"trace.dat\"]", s.get("partial_files").toString());
        assertEquals(5, s.get("counters").get("messages_sent").asInt());
        assertEquals("r2", s.get("run_id").asText());
        assertEquals(ResultsFolder.RESERVED_BYTES, Files.size(dir.resolve("summary.json")),
                "written in place, into the blocks the placeholder holds");
    }

    @Test
    void aFolderThatCannotTakeEvenThePlaceholderNamesSummaryJson() throws Exception {
        Path file = dir.resolve("not-a-dir");
        Files.writeString(file, "x");
        ResultsFolder.WriteFailed e = assertThrows(ResultsFolder.WriteFailed.class,
                () -> ResultsFolder.reserve(file.resolve("sub"), Map.of()));
        assertEquals("summary.json", e.file());
    }
}
