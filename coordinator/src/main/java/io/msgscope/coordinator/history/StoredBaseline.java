package io.msgscope.coordinator.history;

import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.core.SpecException;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code msgscope compare --against-last N DIR...} (issue 34 item 3): the baseline is the newest N runs of the
 * candidates' spec that the run store recorded before them, finished ok, whose folders are still there — "did this run
 * get worse than the spec used to do?", the question a CI job asks of each new build.
 */
public final class StoredBaseline {
    private StoredBaseline() {
    }

    /**
     * The baseline's folders, oldest first, for the run folders {@code candidates} (all of one spec).
     *
     * @throws SpecException naming {@code --against-last}, {@code --store} or {@code DIR} when there is nothing to
     *                       judge against, the store does not answer, or the candidates are of different specs
     */
    public static List<Path> lastRunsBefore(StoreLocation where, List<Path> candidates, int n, PrintWriter out)
            throws IOException {
        if (n < 1 || n > 1_000) {
            throw new SpecException("--against-last", "must be between 1 and 1000 runs, got " + n);
        }
        if (!where.enabled()) {
            throw new SpecException("--store", "none records nothing: --against-last reads the runs a store recorded");
        }
        String spec = null;
        String mode = null;
        long earliest = Long.MAX_VALUE;
        Set<String> own = new HashSet<>();
        for (Path c : candidates) {
            RunRecord r = RunRecord.read(c, Map.of());
            if (r.specHash() == null || r.startedMs() == null) {
                throw new SpecException("DIR", c + ": its summary.json has no spec or start time to find earlier runs by");
            }
            if (spec != null && !spec.equals(r.specHash())) {
                throw new SpecException("DIR", c + " is a run of another spec (" + shortHash(r.specHash()) + ", the first "
                        + shortHash(spec) + "): --against-last judges repeats of one spec");
            }
            spec = r.specHash();
            mode = r.mode();
            earliest = Math.min(earliest, r.startedMs());
            own.add(r.folder());
        }
        List<HistoryQuery.Row> rows;
        try (RunStore db = RunStore.open(where)) {
            // all of them, oldest first: the candidates themselves and runs whose folders are gone are left out below
            rows = new HistoryQuery(null, mode, "ok", spec, Map.of(), null, earliest + 1, 0, null).rows(db);
        } catch (SQLException e) {
            throw new SpecException("--store", where + " does not answer (" + e.getMessage() + ")");
        }
        List<Path> baseline = new ArrayList<>();
        for (HistoryQuery.Row r : rows) {
            if (r.folder() == null || own.contains(r.folder())) {
                continue;
            }
            Path folder = Path.of(r.folder());
            if (!Files.isRegularFile(folder.resolve(ResultFiles.SUMMARY))) {
                out.println("warning: --against-last: the stored run " + r.runId() + " of " + r.startedAt()
                        + " is left out: its folder " + folder + " has no summary.json any more");
                continue;
            }
            baseline.add(folder);
        }
        if (baseline.size() > n) {
            baseline = baseline.subList(baseline.size() - n, baseline.size()); // the newest n, oldest first
        }
        if (baseline.isEmpty()) {
            throw new SpecException("--against-last", "the store " + where + " has no earlier run of spec "
                    + shortHash(spec) + " that finished ok with its folder still there: nothing to judge against");
        }
        out.println("baseline: the " + (baseline.size() == 1 ? "newest earlier run" : baseline.size()
                + " newest earlier runs") + " of spec " + shortHash(spec) + " in " + where
                + (baseline.size() < n ? " (" + n + " asked, " + baseline.size() + " found)" : ""));
        out.flush();
        return List.copyOf(baseline);
    }

    private static String shortHash(String hash) {
        return hash.substring(0, Math.min(12, hash.length()));
    }
}
