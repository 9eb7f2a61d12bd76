package io.msgscope.core.proc;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * CPU time of one process (all its threads, user + system) from {@code /proc/PID/stat}: fields
 * 14 ({@code utime}) and 15 ({@code stime}) in clock ticks of {@link ProcCpu#USER_HZ}, so the
 * value moves in 10 ms steps. The fields are counted after the <em>last</em> {@code ')'} because
 * the command name (field 2) may itself contain blanks and parentheses.
 *
 * <p>{@link #cpuNs()} does not allocate. One thread at a time.
 */
public final class ProcessCpuReader implements CpuTimeSource {
    /** utime is field 14; counting from field 3 (the first after ')'), 11 fields come before it. */
    private static final int FIELDS_BEFORE_UTIME = 14 - 3;

    private final long pid;
    private final ProcFile stat;

    private ProcessCpuReader(long pid, ProcFile stat) {
        this.pid = pid;
        this.stat = stat;
    }

    /**
     * Opens {@code procRoot/PID/stat}.
     *
     * @throws NoSuchProcessException when there is no such process
     */
    public static ProcessCpuReader forPid(Path procRoot, long pid) throws IOException {
        Path file = procRoot.resolve(Long.toString(pid)).resolve("stat");
        if (pid <= 0) {
            throw new NoSuchProcessException(pid, "no process with pid " + pid + ": pids are positive");
        }
        ProcFile f;
        try {
            f = new ProcFile(file, 1024, true);
        } catch (NoSuchFileException e) {
            throw new NoSuchProcessException(pid, "no process with pid " + pid + " (no " + file + ")");
        }
        ProcessCpuReader r = new ProcessCpuReader(pid, f);
        try {
            r.cpuNs();
        } catch (IOException | RuntimeException e) {
            f.close();
            throw e;
        }
        return r;
    }

    public long pid() {
        return pid;
    }

    @Override
    public long cpuNs() throws IOException {
        final ProcFile f = stat;
        int n;
        try {
            n = f.load();
        } catch (ClosedChannelException e) {
            throw e;
        } catch (IOException e) {
            // a process that has exited and been reaped answers ESRCH
            throw new NoSuchProcessException(pid, "process " + pid + " has exited (reading " + f.path() + ": "
                    + e.getMessage() + ")");
        }
        if (n == 0) {
            throw new NoSuchProcessException(pid, "process " + pid + " has exited (" + f.path() + " is empty)");
        }
        int close = f.lastIndexOf((byte) ')');
        if (close < 0) {
            throw f.malformed("no ')' after the command name");
        }
        f.pos(close + 1);
        if (!f.skipTokens(FIELDS_BEFORE_UTIME)) {
            throw f.malformed("fewer than 15 fields");
        }
        long utime = f.nextLong();
        long stime = f.nextLong();
        if (utime < 0 || stime < 0) {
            throw f.malformed("fields 14 (utime) and 15 (stime) are not numbers");
        }
        return ProcCpu.ticksToNs(utime + stime);
    }

    /** The command name (field 2, without its parentheses) as last read; allocates, for notes only. */
    public String comm() throws IOException {
        stat.load();
        int open = -1;
        for (int i = 0; i < stat.limit(); i++) {
            if (stat.at(i) == '(') {
                open = i;
                break;
            }
        }
        int close = stat.lastIndexOf((byte) ')');
        return open < 0 || close < open ? "?" : stat.text(open + 1, close);
    }

    @Override
    public String source() {
        return stat.path().toString();
    }

    @Override
    public void close() throws IOException {
        stat.close();
    }
}
