package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.core.test.Ci;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Issue 16: a run whose results folder fills up (a 1 MiB tmpfs, mounted by the test and unmounted after) exits 1
 * with one line naming the file that could not be written, and leaves a readable summary.json that says the run
 * failed, which file failed, which files are whole and which are partial. Needs root for mount(8); without it
 * the test is skipped saying so; under CI it fails.
 */
class FullDiskIT {
    @TempDir
    Path tmp;
    private Path mount;

    @BeforeEach
    void mountTinyTmpfs() throws Exception {
        mount = tmp.resolve("tiny");
        Files.createDirectories(mount);
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mount.toString())
                .redirectErrorStream(true).start();
        boolean done = p.waitFor(30, TimeUnit.SECONDS);
        String out = new String(p.getInputStream().readAllBytes());
        Ci.require(done && p.exitValue() == 0, "FullDiskIT needs root to mount a 1 MiB tmpfs (mount said: "
                + out.strip() + ")", "the full-disk test skipped");
    }

    @AfterEach
    void unmount() throws Exception {
        new ProcessBuilder("umount", mount.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
    }

    @Test
    void aFullDiskLeavesAReadableFailedSummaryNamingThePartialFiles() throws Exception {
        Path out = mount.resolve("run");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd"), "run", "--count", "100000", "--rate", "50000",
                "--out", out.toString());
        JsonNode s = p.awaitFailedSummary(out, 180);
        String stdout = p.out();
        String line = stdout.lines().filter(l -> l.startsWith("FAILED: ")).findFirst().orElse("");
        assertTrue(line.contains("No space left on device") && line.contains("partial: "), stdout);
        String failed = s.get("failed_file").asText();
        assertTrue(s.get("failure_reason").asText().equals("writing " + failed + " failed: No space left on device"),
                s::toString);
        assertTrue(line.contains("writing " + failed + " failed"), line);
        assertTrue(s.get("partial").asBoolean(), s::toString);
        assertTrue(s.get("partial_files").toString().contains(failed), s::toString);
        assertEquals(100_000, s.get("counters").get("messages_received").asLong(), s::toString);
        for (JsonNode whole : s.get("files")) {
            assertTrue(Files.exists(out.resolve(whole.asText())), whole::toString);
        }
        assertEquals("trace", s.get("mode").asText());
    }
}
