package io.msgscope.core.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Finds processes by name the way a user names a broker: a process matches when its
 * {@code /proc/PID/comm} equals the name, or when the basename of its argv[0] (the first
 * NUL-separated field of {@code /proc/PID/cmdline}) does. The kernel cuts comm to 15 bytes, so
 * a longer name also matches a comm equal to its first 15 bytes. Processes that vanish or cannot
 * be read during the scan are skipped. Allocates freely: for set-up, not for sampling.
 */
public final class ProcessFinder {
    /** Bytes the kernel keeps of a command name (TASK_COMM_LEN − 1). */
    static final int COMM_MAX = 15;

    private ProcessFinder() {
    }

    /**
     * What a search found.
     *
     * @param name     the name searched for
     * @param pids     matching pids, ascending
     * @param scanned  how many processes were searched
     * @param procRoot where
     */
    public record Result(String name, List<Long> pids, int scanned, Path procRoot) {
        /** "searched /proc/*&#47;comm and argv[0]" */
        public String searched() {
            return "searched " + procRoot.resolve("*").resolve("comm") + " and argv[0]";
        }

        /** "no process named 'x' among 213 processes (searched /proc/*&#47;comm and argv[0])" */
        public String noMatchMessage() {
            return "no process named '" + name + "' among " + scanned + " processes (" + searched() + ")";
        }
    }

    /** Searches every {@code procRoot/PID}; {@code name} must not be empty. */
    public static Result byName(Path procRoot, String name) throws IOException {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty process name");
        }
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        String commName = nameBytes.length > COMM_MAX
                ? new String(nameBytes, 0, COMM_MAX, StandardCharsets.UTF_8) : name;
        List<Long> pids = new ArrayList<>();
        int scanned = 0;
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(procRoot)) {
            for (Path dir : dirs) {
                long pid = parsePid(dir.getFileName().toString());
                if (pid <= 0) {
                    continue;
                }
                String comm;
                byte[] cmdline;
                try {
                    comm = stripNewline(Files.readAllBytes(dir.resolve("comm")));
                    cmdline = readOrEmpty(dir.resolve("cmdline"));
                } catch (IOException e) {
                    continue; // vanished or unreadable
                }
                scanned++;
                if (comm.equals(name) || comm.equals(commName) || argv0Basename(cmdline).equals(name)) {
                    pids.add(pid);
                }
            }
        }
        Collections.sort(pids);
        return new Result(name, List.copyOf(pids), scanned, procRoot);
    }

    private static byte[] readOrEmpty(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            return new byte[0]; // kernel threads and unreadable entries: comm alone decides
        }
    }

    static long parsePid(String s) {
        if (s.isEmpty() || s.length() > 18) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static String stripNewline(byte[] b) {
        int n = b.length;
        if (n > 0 && b[n - 1] == '\n') {
            n--;
        }
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }

    /** The basename of the first NUL-separated field; "" when there is none. */
    static String argv0Basename(byte[] cmdline) {
        int end = 0;
        while (end < cmdline.length && cmdline[end] != 0) {
            end++;
        }
        int start = end;
        while (start > 0 && cmdline[start - 1] != '/') {
            start--;
        }
        return new String(cmdline, start, end - start, StandardCharsets.UTF_8);
    }
}
