package io.msgscope.coordinator.history;

import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.core.SpecException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Recording a run in the store (issue 34 item 1) without ever losing it: {@link #check} opens the store before the
 * run starts (a store that does not answer is bad usage, exit 2, and nothing runs), {@link #record} reads the
 * finished folder's summary.json after the run — whatever its status — and stores it; a store that fails then is a
 * warning, and the folder stays as written.
 */
public final class Recording {
    /** The environment variable with labels every run records (one {@code KEY=VALUE} a line): a sweep's points' own. */
    public static final String LABELS_ENV = "MSGSCOPE_LABELS";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,100}");

    private final StoreLocation where;
    private final Map<String, String> labels;

    private Recording(StoreLocation where, Map<String, String> labels) {
        this.where = where;
        this.labels = Map.copyOf(labels);
    }

    /**
     * Opens the store and migrates it now, before anything runs; throws a {@link SpecException} naming
     * {@code --store} when it does not answer. With recording off ({@code none}) nothing is opened.
     */
    public static Recording check(StoreLocation where, Map<String, String> labels) {
        if (where.enabled()) {
            try (RunStore store = RunStore.open(where)) {
                store.location(); // opened and migrated: it answers
            } catch (SQLException | RuntimeException e) {
                throw new SpecException("--store", where + " does not answer (" + RunStore.rootMessage(e)
                        + "); nothing was run. Give a reachable store, or --store none to run without recording");
            }
        }
        return new Recording(where, labels);
    }

    /** Whether runs are recorded. */
    public boolean enabled() {
        return where.enabled();
    }

    /**
     * Records the run whose folder is {@code dir}; returns its key in the store, or null when recording is off, the
     * folder has no summary.json, or the store failed ({@code warn} is told why, and that the folder is intact).
     */
    public String record(Path dir, Consumer<String> warn) {
        if (!where.enabled() || !Files.isRegularFile(dir.resolve(ResultFiles.SUMMARY))) {
            return null;
        }
        try (RunStore store = RunStore.connect(where)) { // migrated by check() before the run
            return store.record(RunRecord.read(dir, labels));
        } catch (Exception e) {
            warn.accept("warning: --store " + where + ": the run was not recorded (" + RunStore.rootMessage(e)
                    + "); its results folder " + dir + " is intact");
            return null;
        }
    }

    /**
     * {@code --label KEY=VALUE} values, after the labels of the environment ({@link #LABELS_ENV}), the later winning;
     * a KEY of letters, digits, {@code _ . -} (at most 100) and a VALUE of at most 1000 characters, else a
     * {@link SpecException} naming {@code --label}.
     */
    public static Map<String, String> labels(List<String> given, Map<String, String> env) {
        Map<String, String> out = new TreeMap<>();
        String inherited = env.get(LABELS_ENV);
        if (inherited != null) {
            inherited.lines().filter(l -> !l.isBlank()).forEach(l -> put(out, l.trim(), LABELS_ENV));
        }
        for (String g : given) {
            put(out, g, "--label");
        }
        return out;
    }

    private static void put(Map<String, String> out, String kv, String option) {
        int eq = kv.indexOf('=');
        String key = eq < 0 ? kv : kv.substring(0, eq);
        if (eq < 0 || !NAME.matcher(key).matches() || kv.length() - eq - 1 > 1000 || kv.indexOf('\n') >= 0) {
            throw new SpecException(option, "expected KEY=VALUE with a KEY of letters, digits, '_', '.' or '-' (at most "
                    + "100) and a VALUE of at most 1000 characters on one line, got '" + kv + "'");
        }
        out.put(key, kv.substring(eq + 1));
    }

    /** The labels every run recorded here carries. */
    public Map<String, String> labels() {
        return labels;
    }

    /** The store. */
    public StoreLocation location() {
        return where;
    }
}
