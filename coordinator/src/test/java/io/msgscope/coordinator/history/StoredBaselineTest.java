package io.msgscope.coordinator.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.core.SpecException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** compare --against-last N: which stored runs make the baseline (issue 34 item 3). */
class StoredBaselineTest {
    /** The golden trace summary's spec hash and start (2026-01-02T03:04:05Z). */
    private static final String SPEC = "0c35f10e722b219505111d950049145bc8e024641797d6dd5d0695bcedf87f29";

    @TempDir
    Path tmp;

    /** A run folder holding the golden trace summary, or with {@code specHash} put in its place. */
    private Path candidate(String name, String specHash) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(name));
        try (InputStream in = getClass().getResourceAsStream("/io/msgscope/coordinator/golden/trace-summary.json")) {
            Files.writeString(dir.resolve("summary.json"), new String(in.readAllBytes()).replace(SPEC, specHash));
        }
        return dir;
    }

    /** A stored trace run started at {@code started}, its folder {@code tmp/name} (with a summary when it exists). */
    private RunRecord stored(String name, String started, String status, String hash, boolean folderThere)
            throws Exception {
        Path folder = tmp.resolve(name);
        if (folderThere) {
            Files.createDirectories(folder);
            Files.writeString(folder.resolve("summary.json"), "{\"status\":\"ok\"}");
        }
        return new RunRecord("trace", name, "tcp", started, Instant.parse(started).toEpochMilli(), status, null, null,
                "0.1.0", hash, "{}", "{}", "h", "Linux", "JVM", "CPU", 2, null, folder.toString(), null,
                Map.of("latency_p99_us", 1.0), Map.of());
    }

    private StoreLocation store() throws Exception {
        StoreLocation where = StoreLocation.parse(tmp.resolve("history.db").toString());
        try (RunStore db = RunStore.open(where)) {
            db.record(stored("r0", "2025-12-31T10:00:00Z", "ok", SPEC, true));
            db.record(stored("r1", "2026-01-01T01:00:00Z", "ok", SPEC, true));
            db.record(stored("r2", "2026-01-01T02:00:00Z", "failed", SPEC, true)); // not ok
            db.record(stored("r3", "2026-01-01T03:00:00Z", "ok", "ffff", true)); // another spec
            db.record(stored("r4", "2026-01-01T04:00:00Z", "ok", SPEC, false)); // its folder is gone
            db.record(stored("r5", "2026-01-02T01:00:00Z", "ok", SPEC, true));
            db.record(stored("r6", "2026-01-03T00:00:00Z", "ok", SPEC, true)); // after the candidate
        }
        return where;
    }

    @Test
    void theNewestEarlierOkRunsOfTheSpecWithTheirFoldersOldestFirst() throws Exception {
        StoreLocation where = store();
        Path cand = candidate("cand", SPEC);
        StringWriter text = new StringWriter();
        assertEquals(List.of(tmp.resolve("r1"), tmp.resolve("r5")),
                StoredBaseline.lastRunsBefore(where, List.of(cand), 2, new PrintWriter(text)));
        assertEquals(String.join("\n",
                "warning: --against-last: the stored run r4 of 2026-01-01T04:00:00Z is left out: its folder "
                        + tmp.resolve("r4") + " has no summary.json any more",
                "baseline: the 2 newest earlier runs of spec 0c35f10e722b in " + where, ""), text.toString());
        StringWriter more = new StringWriter();
        assertEquals(List.of(tmp.resolve("r0"), tmp.resolve("r1"), tmp.resolve("r5")),
                StoredBaseline.lastRunsBefore(where, List.of(cand), 5, new PrintWriter(more)));
        assertTrue(more.toString().endsWith("(5 asked, 3 found)\n"), more.toString());
    }

    @Test
    void nothingToJudgeAgainstAndMixedSpecsAreBadUsageNamingTheOption() throws Exception {
        StoreLocation where = store();
        PrintWriter out = new PrintWriter(new StringWriter());
        SpecException other = assertThrows(SpecException.class, () -> StoredBaseline.lastRunsBefore(where,
                List.of(candidate("a", SPEC), candidate("b", "abcdef0123456789")), 2, out));
        assertEquals("DIR", other.option());
        SpecException none = assertThrows(SpecException.class, () -> StoredBaseline.lastRunsBefore(where,
                List.of(candidate("c", "abcdef0123456789")), 2, out));
        assertEquals("--against-last", none.option());
        assertTrue(none.getMessage().contains("no earlier run of spec abcdef012345"), none.getMessage());
        assertEquals("--against-last", assertThrows(SpecException.class, () -> StoredBaseline.lastRunsBefore(where,
                List.of(candidate("d", SPEC)), 0, out)).option());
        assertEquals("--store", assertThrows(SpecException.class, () -> StoredBaseline.lastRunsBefore(
                StoreLocation.parse("none"), List.of(candidate("e", SPEC)), 2, out)).option());
    }
}
