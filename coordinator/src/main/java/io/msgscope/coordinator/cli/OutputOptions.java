package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.core.SpecException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * The results folder of every measuring command ({@code run}, {@code throughput}, {@code scenario},
 * {@code sweep}, {@code batch}): {@code --out DIR}, by default {@code results/<command>-YYYYMMDD-HHMMSS} (with
 * {@code -2}, {@code -3}, ... when a run of the same second took that name). The folder is created and checked
 * for writing before anything runs, so that the results of a run (M9, Q9) never find nowhere to go; an unusable
 * folder is bad usage naming {@code --out}. A folder that exists and is not empty is refused unless
 * {@code --overwrite}, so that two runs' files are never mixed in one folder (issue 29).
 */
public final class OutputOptions {
    /** The files by which a folder is known as msgscope's results: what {@code --overwrite} may empty. */
    static final List<String> RESULT_MARKERS = List.of(ResultFiles.SUMMARY, "sweep.json", "batch.json");

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Results folder (default: results/${COMMAND-NAME}-YYYYMMDD-HHMMSS); one that exists and is "
                    + "not empty is refused unless --overwrite.")
    Path out;

    @Option(names = "--overwrite", defaultValue = "false",
            description = "Empty an existing --out folder first; only a folder of msgscope results (one holding "
                    + "summary.json, sweep.json or batch.json, or run folders that do) is emptied (default: ${DEFAULT-VALUE}).")
    boolean overwrite;

    /** Set by {@code sweep} and {@code batch} on their child: the folder was made for this run, its run.log in it. */
    @Option(names = "--out-made-by-parent", hidden = true, defaultValue = "false")
    boolean madeByParent;

    /** Whether {@link #prepare()} made the folder (it did not exist): {@link #discard} then removes it too. */
    private boolean created;

    /** The folder of {@code --out}, or a new one named after the command; created and write-checked. */
    Path prepare() {
        created = out == null || !Files.exists(out);
        if (out != null && !madeByParent && Files.isDirectory(out) && !isEmpty(out)) {
            if (!overwrite) {
                throw new SpecException("--out", out + " already holds files (another run's?); give another folder, "
                        + "or --overwrite to empty it first");
            }
            if (!looksLikeResults(out)) {
                throw new SpecException("--overwrite", out + " holds files but no summary.json, sweep.json or "
                        + "batch.json, so it is not emptied (it may not be msgscope's); give another --out");
            }
            empty(out);
        }
        return prepare(out, command.name());
    }

    /**
     * {@code out}, or a new {@code results/<prefix>-YYYYMMDD-HHMMSS[-N]} when it is null, created and checked for
     * writing. Throws {@link SpecException} for {@code --out} when it cannot be written.
     */
    static Path prepare(Path out, String prefix) {
        Path dir = out;
        try {
            if (dir == null) {
                dir = fresh(Path.of("results"), prefix + "-"
                        + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
            }
            Files.createDirectories(dir);
            Path probe = Files.createTempFile(dir, ".write-check", ".tmp");
            Files.delete(probe);
        } catch (IOException | SecurityException e) {
            throw new SpecException("--out", "cannot write to " + (dir != null ? dir : "results") + " (" + reason(e) + ")");
        }
        return dir;
    }

    /**
     * A folder under {@code parent} named {@code name}, or {@code name-2}, {@code name-3}, ... when taken: each
     * created atomically, so two runs started in the same second (even two processes) never share one.
     */
    static Path fresh(Path parent, String name) throws IOException {
        Files.createDirectories(parent);
        for (int n = 1; ; n++) {
            Path dir = parent.resolve(n == 1 ? name : name + "-" + n);
            try {
                return Files.createDirectory(dir);
            } catch (FileAlreadyExistsException e) {
                if (n >= 10_000) {
                    throw e;
                }
            }
        }
    }

    static boolean isEmpty(Path dir) {
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            return !s.iterator().hasNext();
        } catch (IOException e) {
            return true; // unreadable: the write check of prepare names the problem
        }
    }

    /**
     * A folder of msgscope results: it holds one of {@link #RESULT_MARKERS}, or a subfolder that holds
     * summary.json or a child run's run.log (a sweep or batch stopped before its tables).
     */
    static boolean looksLikeResults(Path dir) {
        for (String m : RESULT_MARKERS) {
            if (Files.isRegularFile(dir.resolve(m), LinkOption.NOFOLLOW_LINKS)) {
                return true;
            }
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
                        && (Files.isRegularFile(p.resolve(ResultFiles.SUMMARY), LinkOption.NOFOLLOW_LINKS)
                        || Files.isRegularFile(p.resolve(ChildRun.LOG), LinkOption.NOFOLLOW_LINKS))) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /**
     * Takes back what {@link #prepare()} gave after a usage error found once the run started (e.g. an agent's port
     * in use): what was written in it is deleted, and the folder too when this run made it, so that bad usage
     * leaves no results folder (issue 29); a sweep's or batch's child keeps its folder. Best effort: a file that cannot be deleted stays.
     */
    void discard(Path dir) {
        if (madeByParent) {
            return; // the sweep's or batch's: its run.log says why the run was refused
        }
        try {
            empty(dir);
            if (created) {
                Files.deleteIfExists(dir);
            }
        } catch (SpecException | IOException e) {
            // what stays is a failed placeholder; the usage error is said either way
        }
    }

    /** Deletes what {@code dir} holds, never following a symbolic link (a link is removed, not its target). */
    private static void empty(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    if (!d.equals(dir)) {
                        Files.delete(d);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new SpecException("--overwrite", "cannot empty " + dir + " (" + reason(e) + ")");
        }
    }

    /** Why a folder is unusable, in words rather than a Java exception class name. */
    private static String reason(Exception e) {
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileAlreadyExistsException f) {
            return f.getFile() + " exists and is not a folder";
        }
        if (e instanceof java.nio.file.NoSuchFileException f) {
            return "no such file or folder: " + f.getFile();
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : "not writable";
    }
}
