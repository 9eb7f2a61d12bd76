package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;

/**
 * The one shape every usage error of the CLI has, in-process or through the real jar: exit 2, nothing
 * on stdout, one line on stderr naming what was wrong, no stack trace.
 */
final class Usage {
    private Usage() {
    }

    /** Checks a finished command against that shape and returns its one error line, which names {@code named}. */
    static String assertUsageError(int exitCode, String stdout, String stderr, String named) {
        assertEquals(2, exitCode, () -> "exit code; stderr: " + stderr + " stdout: " + stdout);
        List<String> lines = stderr.lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, lines.size(), () -> "one line on stderr: " + stderr);
        assertFalse(stderr.contains("Exception"), stderr);
        assertEquals("", stdout, "nothing on stdout");
        assertTrue(lines.get(0).contains(named), () -> "names " + named + ": " + stderr);
        return lines.get(0);
    }

    /** The same for the real jar as a process, which must exit within a minute. */
    static String assertUsageError(MsgscopeProcess p, String named) throws IOException, InterruptedException {
        int code = p.waitFor(60);
        return assertUsageError(code, p.out(), p.err(), named);
    }

    /**
     * Issue 32 item 3: a run of {@code driver} with a kill on its timeline but clients that do not reconnect is
     * refused, naming {@code --faults} and {@code --opt reconnect=true}, and writes no results folder.
     */
    static void assertKillRefusedWithoutReconnect(java.nio.file.Path tmp, String driver) throws Exception {
        java.nio.file.Path pidFile = tmp.resolve("self.pid");
        java.nio.file.Files.writeString(pidFile, ProcessHandle.current().pid() + "\n");
        java.nio.file.Path out = tmp.resolve("refused");
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--driver", driver, "--rate", "1000", "--count", "2000",
                "--broker-pid", "" + ProcessHandle.current().pid(), "--fault-target", "node1=" + pidFile,
                "--faults", "1s:kill:node1", "--out", out.toString());
        String line = assertUsageError(p, "--faults");
        assertTrue(line.contains("--opt reconnect=true"), line);
        assertFalse(java.nio.file.Files.exists(out), "a usage error writes no results folder");
    }
}
