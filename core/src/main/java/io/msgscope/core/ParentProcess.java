package io.msgscope.core;

import java.util.Optional;

/**
 * Runs an action once another process is gone, checked every {@value #POLL_MS} ms on a daemon thread.
 * {@code ProcessHandle.onExit()} of a process that is not this one's child polls too, but with a sleep that
 * grows to seconds on a long-lived process (measured: a sweep's point noticed its parent's SIGKILL 4-6 s late), so
 * an agent or a sweep's point that must not outlive its parent (issue 28 finding 3) watches it here.
 */
public final class ParentProcess {
    /** How often the parent is checked: what its death costs at most, besides scheduling delay. */
    public static final long POLL_MS = 100;

    private ParentProcess() {
    }

    /**
     * Runs {@code gone} once process {@code pid} has exited (at once when it is not running); returns immediately.
     * The watching thread is a daemon and ends with the action.
     */
    public static void whenGone(long pid, Runnable gone) {
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty() || !p.get().isAlive()) {
            gone.run();
            return;
        }
        ProcessHandle parent = p.get();
        Thread t = new Thread(() -> {
            try {
                while (parent.isAlive()) {
                    Thread.sleep(POLL_MS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            gone.run();
        }, "msgscope-parent-watch");
        t.setDaemon(true);
        t.start();
    }
}
