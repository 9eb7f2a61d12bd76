package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Issue 29: a failed run says its cause first, on one line, then where its results are, and nothing else unless
 * {@code --verbose}; bad usage an agent finds once the run started (its port taken) exits 2 with one line and
 * leaves no results folder.
 */
class FailedConsoleIT {
    @TempDir
    Path tmp;

    /** A loopback port nothing listens on (bound, then released). */
    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static List<String> lines(String text) {
        return text.lines().filter(l -> !l.isBlank()).toList();
    }

    @Test
    void aBrokerThatIsDownPrintsItsCauseThenTheFolderInAtMostThreeLines() throws Exception {
        Path out = tmp.resolve("down");
        String uri = "amqp://guest:guest@127.0.0.1:" + closedPort();
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd"), "run", "--driver", "amqp", "--uri", uri,
                "--count", "1000", "--out", out.toString());
        JsonNode s = p.awaitFailedSummary(out, 180);
        List<String> stdout = lines(p.out());
        List<String> all = new java.util.ArrayList<>(lines(p.err()));
        all.addAll(stdout);
        assertTrue(all.size() <= 3, "at most 3 lines, got " + all.size() + ": " + all);
        assertEquals(2, stdout.size(), stdout.toString());
        assertTrue(stdout.get(0).startsWith("FAILED: ") && stdout.get(0).contains("Connection refused"), stdout.get(0));
        assertTrue(stdout.get(0).contains(s.path("failure_reason").asText()), stdout.get(0));
        assertTrue(stdout.get(1).startsWith("results in " + out), stdout.get(1));
    }

    @Test
    void verboseAlsoPrintsTheCountsAndWarnings() throws Exception {
        Path out = tmp.resolve("down-verbose");
        String uri = "amqp://guest:guest@127.0.0.1:" + closedPort();
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd"), "run", "--driver", "amqp", "--uri", uri,
                "--count", "1000", "--out", out.toString(), "--verbose");
        p.awaitFailedSummary(out, 180);
        List<String> stdout = lines(p.out());
        assertTrue(stdout.get(0).startsWith("FAILED: "), stdout.toString());
        assertTrue(stdout.stream().anyMatch(l -> l.startsWith("1,000 messages of 64 B")), stdout.toString());
        assertTrue(p.err().contains("analysis and output: "), p.err());
    }

    @Test
    void aPortTakenIsOneUsageLineAndLeavesNoResultsFolder() throws Exception {
        Path out = tmp.resolve("taken");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd"), "run", "--opt", "via=direct", "--opt",
                    "port=" + taken.getLocalPort(), "--count", "1000", "--out", out.toString());
            assertEquals(2, p.waitFor(180), p.err());
            List<String> usage = lines(p.err()).stream().filter(l -> l.startsWith("msgscope run: ")).toList();
            assertEquals(1, usage.size(), p.err());
            assertTrue(usage.get(0).contains("--opt port") && usage.get(0).contains("in use"), usage.get(0));
            assertEquals("", p.out().strip());
            assertFalse(Files.exists(out), "no results folder for bad usage");
        }
    }
}
