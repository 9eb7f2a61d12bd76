package io.msgscope.coordinator.cli;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A reused --out never mixes two runs (issue 29): refused unless --overwrite, which empties only results. */
class OutputOptionsTest {
    @TempDir
    Path tmp;

    @Command(name = "run")
    static final class Holder {
        @Mixin
        OutputOptions output;
    }

    private static OutputOptions parse(String... args) {
        Holder h = new Holder();
        new CommandLine(h).parseArgs(args);
        return h.output;
    }

    /** A folder as an earlier run left it: its summary, a plot, a run folder of a sweep. */
    private Path earlierRun() throws IOException {
        Path r1 = Files.createDirectories(tmp.resolve("r1"));
        Files.writeString(r1.resolve("summary.json"), "{\"status\":\"ok\"}");
        Files.writeString(r1.resolve("latency.png"), "old plot");
        Files.createDirectories(r1.resolve("point-64-1"));
        Files.writeString(r1.resolve("point-64-1/run.log"), "old log");
        return r1;
    }

    @Test
    void aFolderHoldingAnEarlierRunIsRefusedNamingOut() throws IOException {
        Path r1 = earlierRun();
        SpecException e = assertThrows(SpecException.class, () -> parse("--out", r1.toString()).prepare());
        assertEquals("--out", e.option());
        assertTrue(e.getMessage().contains("--overwrite"), e.getMessage());
        assertTrue(Files.exists(r1.resolve("latency.png")), "nothing deleted when refused");
    }

    @Test
    void overwriteEmptiesAResultsFolderFirst() throws IOException {
        Path r1 = earlierRun();
        assertEquals(r1, parse("--out", r1.toString(), "--overwrite").prepare());
        try (var s = Files.list(r1)) {
            assertEquals(0, s.count(), "the earlier run's files are gone");
        }
    }

    @Test
    void overwriteLeavesAFolderThatIsNotResults() throws IOException {
        Path mine = Files.createDirectories(tmp.resolve("home"));
        Files.writeString(mine.resolve("thesis.tex"), "mine");
        SpecException e = assertThrows(SpecException.class,
                () -> parse("--out", mine.toString(), "--overwrite").prepare());
        assertEquals("--overwrite", e.option());
        assertTrue(Files.exists(mine.resolve("thesis.tex")));
    }

    @Test
    void overwriteRemovesALinkNotItsTarget() throws IOException {
        Path r1 = earlierRun();
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("keep.txt"), "keep");
        Files.createSymbolicLink(r1.resolve("link"), outside);
        parse("--out", r1.toString(), "--overwrite").prepare();
        assertFalse(Files.exists(r1.resolve("link"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertTrue(Files.exists(outside.resolve("keep.txt")));
    }

    @Test
    void anEmptyOrNewFolderIsTaken() throws IOException {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertEquals(empty, parse("--out", empty.toString()).prepare());
        Path fresh = tmp.resolve("new/r2");
        assertEquals(fresh, parse("--out", fresh.toString()).prepare());
        assertTrue(Files.isDirectory(fresh));
    }

    @Test
    void defaultNamesOfOneSecondNeverCollide() throws IOException {
        Set<Path> made = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            made.add(OutputOptions.fresh(tmp, "run-20261127-020000"));
        }
        assertEquals(5, made.size());
        assertTrue(made.contains(tmp.resolve("run-20261127-020000")));
        assertTrue(made.contains(tmp.resolve("run-20261127-020000-5")));
    }
}
