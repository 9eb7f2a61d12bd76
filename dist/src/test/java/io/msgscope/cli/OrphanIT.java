package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Issue 28 finding 3: a {@code sweep} or {@code batch} killed by SIGKILL (no shutdown hook runs) leaves no process
 * behind: its point's coordinator watches it and exits, and that coordinator's agents watch it in turn. The point
 * runs ~50 s, so a child that does not watch its parent outlives the bound below by far.
 */
class OrphanIT {
    /** Generous against a loaded 2-core box; the time measured is printed (the issue asks for 2 s). */
    private static final long GONE_WITHIN_MS = 10_000;

    @TempDir
    Path tmp;

    /**
     * Still running: alive and not a zombie (an exited process whose new parent, this box's init, has not reaped it
     * yet, which {@code isAlive} still counts).
     */
    static boolean running(ProcessHandle h) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(h.pid()), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (java.io.IOException e) {
            return false; // no /proc entry: gone
        }
    }

    @ParameterizedTest(name = "{0} killed by SIGKILL mid-point")
    @ValueSource(strings = {"sweep", "batch"})
    void aKilledSweepOrBatchLeavesNoProcess(String command) throws Exception {
        Path out = tmp.resolve(command);
        String[] args;
        if (command.equals("sweep")) {
            args = new String[] {"sweep", "--sizes", "64,128", "--count", "1000000", "--rate", "20000",
                    "--out", out.toString()};
        } else {
            Path w = Files.writeString(tmp.resolve("w.yaml"), """
                    runs:
                      - name: long
                        command: run
                        spec: {count: 1000000, rate: 20000}
                    """);
            args = new String[] {"batch", w.toString(), "--out", out.toString()};
        }
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd"), args);
        List<ProcessHandle> below = List.of();
        long deadline = System.currentTimeMillis() + 120_000;
        // the point's coordinator and its relay, receiver and sender agents
        while (below.size() < 4 && System.currentTimeMillis() < deadline && p.process.isAlive()) {
            Thread.sleep(200);
            below = p.process.descendants().toList();
        }
        assertTrue(below.size() >= 4, "the point's coordinator and 3 agents, got " + below + "; " + p.err());
        Thread.sleep(2_000); // into the measurement
        p.process.destroyForcibly(); // SIGKILL
        long killed = System.currentTimeMillis();
        while (below.stream().anyMatch(OrphanIT::running) && System.currentTimeMillis() - killed < GONE_WITHIN_MS) {
            Thread.sleep(50);
        }
        long tookMs = System.currentTimeMillis() - killed;
        List<ProcessHandle> left = below.stream().filter(OrphanIT::running).toList();
        left.forEach(ProcessHandle::destroyForcibly); // never leave them to the next test
        System.out.println(command + ": every process gone " + tookMs + " ms after SIGKILL");
        assertTrue(left.isEmpty(), left.size() + " processes left " + GONE_WITHIN_MS + " ms after SIGKILL: "
                + left.stream().map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList());
    }
}
