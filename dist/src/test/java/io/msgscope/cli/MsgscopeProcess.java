package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real distribution jar (built by the package phase) as a user would. */
final class MsgscopeProcess {
    final Process process;
    final Path stdout;
    final Path stderr;

    private MsgscopeProcess(Process process, Path stdout, Path stderr) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    static Path jar() {
        String p = System.getProperty("msgscope.jar");
        if (p == null) {
            throw new IllegalStateException("system property msgscope.jar is not set (run through failsafe)");
        }
        return Path.of(p);
    }

    /** The class-data sharing archive dist/pom.xml builds beside the jar, null when there is none or it is older. */
    static Path sharingArchive() {
        Path archive = jar().resolveSibling("msgscope.jsa");
        try {
            return Files.isRegularFile(archive)
                    && Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar())) >= 0 ? archive : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The JVM options the {@code msgscope} launcher gives a {@code command}: its JIT and the sharing archive. */
    static List<String> launcherOptions(String command) {
        List<String> opts = new ArrayList<>();
        if (!command.equals("agent")) {
            opts.add("-XX:TieredStopAtLevel=1");
        }
        Path archive = sharingArchive();
        opts.addAll(io.msgscope.coordinator.agents.LocalAgents.sharingArchive(archive == null ? null : archive.toString()));
        return opts;
    }

    static MsgscopeProcess start(Path workDir, String... args) throws IOException {
        return start(java.util.Map.of(), workDir, args);
    }

    /** As {@link #start(Path, String...)} with extra environment variables, which the local agents inherit. */
    static MsgscopeProcess start(java.util.Map<String, String> env, Path workDir, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(launcherOptions(args.length > 0 ? args[0] : ""));
        cmd.add("-jar");
        cmd.add(jar().toString());
        cmd.addAll(List.of(args));
        Files.createDirectories(workDir);
        Path out = workDir.resolve("stdout.txt");
        Path err = workDir.resolve("stderr.txt");
        ProcessBuilder b = new ProcessBuilder(cmd).directory(workDir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        b.environment().putAll(env);
        Process p = b.start();
        return new MsgscopeProcess(p, out, err);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    int waitFor(long timeoutSeconds) throws InterruptedException, IOException {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError("msgscope did not finish within " + timeoutSeconds + " s; stderr: " + err());
        }
        return process.exitValue();
    }

    /** Waits for a successful run: exit 0, and the summary.json it wrote to {@code out}, status ok, returned. */
    JsonNode awaitOkSummary(Path out, long timeoutSeconds) throws IOException, InterruptedException {
        int rc = waitFor(timeoutSeconds);
        if (rc != 0) {
            throw new AssertionError("exit code " + rc + "; stdout: " + TraceRunIT.safe(this::out)
                    + " stderr: " + TraceRunIT.safe(this::err));
        }
        JsonNode summary = SummarySchema.assertValid(out.resolve("summary.json"));
        if (!"ok".equals(summary.path("status").asText())) {
            throw new AssertionError("status not ok: " + summary);
        }
        return summary;
    }

    /**
     * Waits for a run that failed as a user should see it fail: exit code 1, no stack trace on stdout or stderr, and
     * the summary.json it wrote to {@code out} schema-valid, status failed, with a one-line failure reason; returned.
     */
    JsonNode awaitFailedSummary(Path out, long timeoutSeconds) throws IOException, InterruptedException {
        int rc = waitFor(timeoutSeconds);
        String stdout = out();
        String stderr = err();
        if (rc != 1) {
            throw new AssertionError("exit code " + rc + "; stdout: " + stdout + " stderr: " + stderr);
        }
        for (String text : List.of(stdout, stderr)) {
            if (text.contains("\tat ")) {
                throw new AssertionError("a stack trace: " + text);
            }
        }
        JsonNode summary = SummarySchema.assertValid(out.resolve("summary.json"));
        if (!"failed".equals(summary.path("status").asText())) {
            throw new AssertionError("status not failed: " + summary);
        }
        String reason = summary.path("failure_reason").asText();
        if (reason.isBlank() || reason.contains("\n")) {
            throw new AssertionError("not a one-line failure reason: " + summary);
        }
        return summary;
    }

    String out() throws IOException {
        return Files.readString(stdout, StandardCharsets.UTF_8);
    }

    String err() throws IOException {
        return Files.readString(stderr, StandardCharsets.UTF_8);
    }
}
