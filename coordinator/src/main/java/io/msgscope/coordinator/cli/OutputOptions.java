package io.msgscope.coordinator.cli;

import io.msgscope.core.SpecException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The results folder of every measuring command ({@code run}, {@code throughput}, {@code scenario},
 * {@code sweep}): {@code --out DIR}, by default {@code results/<command>-YYYYMMDD-HHMMSS}. The folder
 * is created and checked for writing before anything runs, so that the results of a run (M9, Q9) never
 * find nowhere to go; an unusable folder is bad usage naming {@code --out}.
 */
public final class OutputOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Results folder (default: results/${COMMAND-NAME}-YYYYMMDD-HHMMSS).")
    Path out;

    /** The folder of {@code --out}, or a new one named after the command; created and write-checked. */
    Path prepare() {
        return prepare(out, command.name());
    }

    /**
     * {@code out}, or {@code results/<prefix>-YYYYMMDD-HHMMSS} when it is null, created and checked for
     * writing. Throws {@link SpecException} for {@code --out} when it cannot be written.
     */
    static Path prepare(Path out, String prefix) {
        Path dir = out != null ? out : Path.of("results", prefix + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
        try {
            Files.createDirectories(dir);
            Path probe = Files.createTempFile(dir, ".write-check", ".tmp");
            Files.delete(probe);
        } catch (IOException | SecurityException e) {
            throw new SpecException("--out", "cannot write to " + dir + " (" + reason(e) + ")");
        }
        return dir;
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
