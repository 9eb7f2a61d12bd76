package io.msgscope.coordinator.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One measuring command run as a child process of a command that runs several ({@code sweep}, {@code batch}):
 * {@code msgscope ARGS --out DIR} with this distribution's class path, its console output in {@code DIR/run.log}.
 * A child that outlives its timeout is killed with its agents and counts as failed; the parent stopped by
 * Ctrl-C or a kill takes the child (and its agents) with it: a shutdown hook stops the child, and the child
 * watches this process ({@link ParentWatch}) for a SIGKILL, which runs no hook.
 */
final class ChildRun {
    /** The main class the child runs (a test may point it elsewhere). */
    static final String MAIN_CLASS = System.getProperty("msgscope.main", "io.msgscope.cli.Main");
    /**
     * The child's coordinator only coordinates and analyses once: the C1 compiler alone warms up in time and
     * leaves the 2 cores to the agents and the analysis (measured: analysis ~2x faster).
     */
    static final String COORDINATOR_JIT = "-XX:TieredStopAtLevel=1";
    /** The child's console output, in its results folder. */
    static final String LOG = "run.log";
    /** Variables every child gets: the parent's store and labels (issue 34, set by {@link StoreOptions#open()}). */
    static volatile java.util.Map<String, String> environment = java.util.Map.of();

    private ChildRun() {
    }

    /**
     * The points of one sweep or batch as Ctrl-C sees them (issue 29): the first SIGINT or SIGTERM is passed on to the
     * point running now as SIGTERM — it stops its agents and writes what it measured, interrupted — and no point starts
     * after it. The point ignores the terminal's SIGINT itself ({@link ParentWatch}), so it gets one signal, not two.
     */
    static final class Points implements java.util.function.Consumer<String> {
        private volatile Process running;
        private volatile String interruptedBy;

        @Override
        public void accept(String signal) {
            interruptedBy = signal;
            Process p = running;
            if (p != null) {
                p.destroy(); // SIGTERM
            }
        }

        /** The signal that stopped the sweep or batch, null while none did. */
        String interruptedBy() {
            return interruptedBy;
        }

        private void started(Process p) {
            running = p;
            if (interruptedBy != null) {
                p.destroy(); // the signal came while it started
            }
        }
    }

    /** Runs {@code msgscope args --out dir} and returns its exit code (1 when it was killed after the timeout). */
    static int run(List<String> args, Path dir, long timeoutS, String what, Points points)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add(COORDINATOR_JIT);
        cmd.addAll(io.msgscope.coordinator.agents.LocalAgents.sharingArchive(
                System.getProperty(io.msgscope.coordinator.agents.LocalAgents.CDS_PROPERTY)));
        cmd.add("-D" + ParentWatch.PROPERTY + "=" + ProcessHandle.current().pid()); // gone with its parent, even on SIGKILL
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(MAIN_CLASS);
        cmd.addAll(args);
        cmd.add("--out");
        cmd.add(dir.toString());
        cmd.add("--out-made-by-parent"); // its run.log is in the folder before the child looks at it
        Files.createDirectories(dir);
        Path log = dir.resolve(LOG);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(environment);
        Process p = pb.start();
        Thread reaper = new Thread(() -> {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
        }, "msgscope-child-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        points.started(p);
        try {
            if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                Files.writeString(log, "\n" + what + ": killed after " + timeoutS + " s\n", StandardCharsets.UTF_8,
                        java.nio.file.StandardOpenOption.APPEND);
                return ExitCodes.FAILED;
            }
            return p.exitValue();
        } finally {
            points.running = null;
            Runtime.getRuntime().removeShutdownHook(reaper);
        }
    }
}
