package io.msgscope.coordinator.results;


import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a results folder so that a crash or a full disk at any point leaves a readable summary.json (issue 16).
 *
 * <p>Before the run starts, {@link #reserve} writes summary.json as a failed placeholder ("msgscope stopped
 * before it finished") padded with spaces to {@link #RESERVED_BYTES}: whatever happens next, the folder holds a
 * summary that says the run failed. Each result file is then written through {@link #write}, which names the
 * file that could not be written. The final summary goes to a temporary file renamed over the placeholder (the
 * rename is atomic: a reader sees the old summary or the new, never half of one). When the disk is full, the
 * failure summary — status, reason, the file that failed, which files are whole and which partial — is written
 * over the placeholder in place, into the blocks it already holds, so it needs no free space.
 */
public final class ResultsFolder {
    /** Space kept for the failure summary: far more than it ever needs (a few kB). */
    static final int RESERVED_BYTES = 64 << 10;

    private final Path dir;
    private final Path summary;
    private final Map<String, Object> header;
    private final List<String> written = new ArrayList<>();
    private final List<String> partial = new ArrayList<>();
    private String failedFile;
    private IOException failure;

    private ResultsFolder(Path dir, Map<String, Object> header) {
        this.dir = dir;
        this.summary = dir.resolve(ResultFiles.SUMMARY);
        this.header = header;
    }

    /**
     * {@link #reserve}, or, when not even the placeholder fits, the one-line failure on {@code out} and null (the
     * command then exits 1).
     */
    public static ResultsFolder reserveOrSay(Path dir, String mode, String runId, String startedAt,
                                             java.io.PrintWriter out) {
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("run_id", runId);
        header.put("mode", mode);
        header.put("started_at", startedAt);
        try {
            return reserve(dir, header);
        } catch (WriteFailed e) {
            out.println("FAILED: " + e.getMessage() + "; " + dir + " has no room for the results (summary.json "
                    + "holds at most a placeholder saying the run failed)");
            out.flush();
            return null;
        }
    }

    /** After a failed write: the failure summary and the one line saying which files are partial. */
    public void sayFailed(WriteFailed e, Map<String, Object> known, java.io.PrintWriter out) {
        boolean kept = writeFailureSummary(known);
        out.println("FAILED: " + e.getMessage() + "; results in " + dir + " (partial: " + String.join(", ", partial)
                + "; " + (kept ? "summary.json says so" : "summary.json keeps its placeholder: the run failed") + ")");
        out.flush();
    }

    /** The final summary, already serialised (a writer of its own made it). */
    public void commit(byte[] json) throws WriteFailed {
        commitBytes(json);
    }

    /** A result file could not be written: which one, and why. */
    public static final class WriteFailed extends IOException {
        private final String file;

        WriteFailed(String file, IOException cause) {
            super("writing " + file + " failed: " + (cause.getMessage() == null ? cause.toString() : cause.getMessage()),
                    cause);
            this.file = file;
        }

        public String file() {
            return file;
        }
    }

    /** One result file's writer. */
    @FunctionalInterface
    public interface Writer {
        void write() throws IOException;
    }

    /**
     * Writes the placeholder summary.json; {@code header} (mode, run id, spec, ...) goes into it and into the failure
     * summary. Fails, naming summary.json, when not even that fits.
     */
    public static ResultsFolder reserve(Path dir, Map<String, Object> header) throws WriteFailed {
        ResultsFolder f = new ResultsFolder(dir, header);
        Map<String, Object> placeholder = new LinkedHashMap<>(header);
        placeholder.put("status", "failed");
        placeholder.put("failure_reason", "msgscope stopped before it finished the run and wrote its results (a "
                + "crash, a kill or a full disk): the files in this folder may be partial");
        placeholder.put("partial", true);
        try {
            Files.createDirectories(dir);
            byte[] json = json(placeholder);
            ByteBuffer b = ByteBuffer.allocate(Math.max(RESERVED_BYTES, json.length));
            b.put(json);
            while (b.hasRemaining()) {
                b.put((byte) ' ');
            }
            b.flip();
            if (Files.isSymbolicLink(f.summary)) {
                Files.delete(f.summary); // issue 28: the link itself; what it names is left alone
            }
            try (FileChannel ch = FileChannel.open(f.summary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(false);
            }
        } catch (IOException e) {
            throw new WriteFailed(ResultFiles.SUMMARY, e);
        }
        return f;
    }

    /** Writes one result file; a failure names it (and it is listed as partial in the failure summary). */
    public void write(String file, Writer w) throws WriteFailed {
        try {
            w.write();
            written.add(file);
        } catch (WriteFailed e) {
            failed(e.file(), e);
            throw e;
        } catch (IOException e) {
            WriteFailed f = new WriteFailed(file, e);
            failed(file, f);
            throw f;
        }
    }

    /** A file written elsewhere (e.g. on another thread) that is whole. */
    public void written(String file) {
        written.add(file);
    }

    private void failed(String file, IOException e) {
        if (!file.equals(ResultFiles.SUMMARY) && !partial.contains(file)) {
            partial.add(file);
        }
        if (failedFile == null) {
            failedFile = file;
            failure = e;
        }
    }

    /**
     * The final summary: written to a temporary file and renamed over the placeholder. When that cannot be written
     * (a full disk), the failure summary goes over the placeholder in place, and the cause is thrown naming it.
     */
    public void commit(Map<String, Object> finalSummary) throws WriteFailed {
        byte[] bytes;
        try {
            bytes = json(finalSummary);
        } catch (IOException e) {
            throw new WriteFailed(ResultFiles.SUMMARY, e);
        }
        commitBytes(bytes);
    }

    private void commitBytes(byte[] bytes) throws WriteFailed {
        Path tmp = dir.resolve(ResultFiles.SUMMARY + ".tmp");
        try {
            io.msgscope.core.SafeFiles.write(tmp, bytes); // never through a link planted there (issue 28)
            try {
                Files.move(tmp, summary, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, summary, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the failure summary below says what happened
            }
            WriteFailed f = new WriteFailed(ResultFiles.SUMMARY, e);
            failed(ResultFiles.SUMMARY, f);
            writeFailureSummary(Map.of());
            throw f;
        }
    }

    /**
     * After a failed write: the failure summary over the placeholder, in place (no new blocks needed). {@code
     * known} adds what the run measured (counters), kept small. Returns false when even that could not be written.
     */
    public boolean writeFailureSummary(Map<String, Object> known) {
        Map<String, Object> s = new LinkedHashMap<>(header);
        s.put("status", "failed");
        s.put("failure_reason", failure == null ? "the results could not be written" : failure.getMessage());
        s.put("failed_file", failedFile);
        s.put("partial", true);
        s.put("files", List.copyOf(written));
        s.put("partial_files", List.copyOf(partial));
        s.putAll(known);
        try {
            byte[] json = json(s);
            if (json.length > RESERVED_BYTES) {
                return false;
            }
            ByteBuffer b = ByteBuffer.allocate(RESERVED_BYTES);
            b.put(json);
            while (b.hasRemaining()) {
                b.put((byte) ' ');
            }
            b.flip();
            try (FileChannel ch = FileChannel.open(summary, StandardOpenOption.WRITE,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                while (b.hasRemaining()) {
                    ch.write(b, b.position());
                }
                ch.force(false);
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static byte[] json(Map<String, Object> m) throws IOException {
        return Json.MAPPER.writeValueAsString(m).getBytes(StandardCharsets.UTF_8);
    }
}
