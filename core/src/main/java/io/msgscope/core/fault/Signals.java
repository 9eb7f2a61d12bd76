package io.msgscope.core.fault;

import com.sun.jna.Library;
import com.sun.jna.Native;

import java.io.IOException;

/** POSIX signals to a process through libc's {@code kill(2)}: microseconds, no child process forked (issue 32). */
public final class Signals {
    public static final int SIGKILL = 9;
    public static final int SIGCONT = 18;
    public static final int SIGSTOP = 19;

    private interface LibC extends Library {
        int kill(int pid, int sig);
    }

    private static final LibC LIBC = Native.load("c", LibC.class);

    private Signals() {
    }

    /**
     * Loads libc now: the first load takes JNA ~100 ms, which must not fall between a fault's stamp and its signal
     * (seen in TimelineFaultIT: deliveries went on 113 ms after the stamp until this was called at set-up).
     */
    public static void load() {
        if (LIBC == null) {
            throw new IllegalStateException("libc not loaded");
        }
    }

    /** Sends {@code signal} to {@code pid}; throws with errno when the kernel refuses. */
    public static void send(long pid, int signal) throws IOException {
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            throw new IOException("not a process id: " + pid);
        }
        if (LIBC.kill((int) pid, signal) != 0) {
            int errno = Native.getLastError();
            throw new IOException("kill(" + pid + ", " + signal + ") failed, errno " + errno
                    + (errno == 3 ? " (no such process)" : errno == 1 ? " (not permitted)" : ""));
        }
    }

    /** The signal an action sends; 0 for restart and the network actions (commands, not signals). */
    public static int of(FaultAction action) {
        return switch (action) {
            case KILL -> SIGKILL;
            case PAUSE -> SIGSTOP;
            case RESUME -> SIGCONT;
            case RESTART, PARTITION, HEAL, DEGRADE -> 0;
        };
    }
}
