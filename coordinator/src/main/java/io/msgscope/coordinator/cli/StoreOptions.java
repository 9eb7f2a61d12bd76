package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.history.Recording;
import io.msgscope.coordinator.history.StoreLocation;
import io.msgscope.coordinator.results.JobOutcome;
import io.msgscope.coordinator.results.ResultFiles;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --store} and {@code --label} of every measuring command (issue 34 item 1): where the finished run is
 * recorded and with which labels. {@link #open()} runs before the run starts (a store that does not answer: exit 2,
 * nothing run) and hands the store and labels to the child runs of a sweep, batch or capacity search through their
 * environment; {@link #record} stores the finished folder.
 */
public final class StoreOptions {
    @Option(names = "--store", paramLabel = "FILE|URL|none",
            description = "Record the finished run in this store (docs/commands.md, history): a SQLite file, "
                    + "postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DB, or none (default: $MSGSCOPE_STORE, else "
                    + "~/.msgscope/history.db).")
    String store;

    @Option(names = "--label", paramLabel = "KEY=VALUE",
            description = "A label recorded with the run (repeatable): --label broker=3.13 --label tls=on (default: none, "
                    + "and $MSGSCOPE_LABELS in a sweep's, batch's or capacity search's runs).")
    List<String> labels = new ArrayList<>();

    private Recording recording;
    private long checkNs;

    /** Opens (and migrates) the store before the run; a store that does not answer throws, naming --store. */
    Recording open() {
        Map<String, String> env = System.getenv();
        Map<String, String> given = Recording.labels(labels, env);
        long t0 = System.nanoTime();
        recording = Recording.check(StoreLocation.resolve(store, env), given);
        checkNs = System.nanoTime() - t0;
        Map<String, String> child = new LinkedHashMap<>();
        if (store != null) {
            child.put(StoreLocation.ENV, store);
        }
        if (!given.isEmpty()) {
            StringBuilder b = new StringBuilder();
            given.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
            child.put(Recording.LABELS_ENV, b.toString());
        }
        ChildRun.environment = Map.copyOf(child);
        return recording;
    }

    /**
     * Records the written folder {@code dir} of a finished run (any status); a failing store only warns. With
     * {@code verbose}, one line says what the store cost the run: the check before it and the recording after it
     * (issue 34's target: under 100 ms in all), so a user can see it on their own store.
     */
    void record(JobOutcome o, Path dir, picocli.CommandLine.Model.CommandSpec command, boolean verbose) {
        if (recording == null || o.usage() != null || !o.written() && !java.nio.file.Files.isRegularFile(
                dir.resolve(ResultFiles.SUMMARY))) {
            return;
        }
        java.io.PrintWriter err = command.commandLine().getErr();
        long t0 = System.nanoTime();
        String key = recording.record(dir, line -> {
            err.println(line);
            err.flush();
        });
        long recordNs = System.nanoTime() - t0;
        if (verbose && key != null) {
            err.println(storeCost(checkNs, recordNs));
            err.flush();
        }
    }

    /** The verbose line: the store's check before the run and its recording after it, in ms. */
    static String storeCost(long checkNs, long recordNs) {
        return String.format(java.util.Locale.ROOT, "run store: checked in %.0f ms before the run, recorded in %.0f ms "
                + "after it", checkNs / 1e6, recordNs / 1e6);
    }
}
