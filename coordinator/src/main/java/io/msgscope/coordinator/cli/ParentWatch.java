package io.msgscope.coordinator.cli;

/**
 * The child coordinator of a {@code sweep} or {@code batch} point watches its parent as a local agent watches its
 * coordinator ({@code --parent-pid}): when the parent is gone — even by SIGKILL, which runs no shutdown hook —
 * the child exits at once, and its agents, which watch it, follow (issue 28 finding 3). The parent's pid comes
 * in the system property {@value #PROPERTY}, set by {@link ChildRun}.
 */
public final class ParentWatch {
    /** The system property holding the parent's process id. */
    public static final String PROPERTY = "msgscope.parent-pid";

    private ParentWatch() {
    }

    /** Whether this process is a point of a sweep or batch (its parent named by {@value #PROPERTY}). */
    static boolean isChild() {
        String pid = System.getProperty(PROPERTY);
        return pid != null && !pid.isBlank();
    }

    /**
     * Starts watching the parent named by {@value #PROPERTY}, if any; returns at once. The terminal's Ctrl-C reaches
     * the whole process group: a point ignores it, as its agents do, and its parent passes it on as SIGTERM (issue 29).
     */
    public static void startFromProperty() {
        if (!isChild()) {
            return;
        }
        String pid = System.getProperty(PROPERTY);
        sun.misc.Signal.handle(new sun.misc.Signal("INT"), sun.misc.SignalHandler.SIG_IGN);
        long id;
        try {
            id = Long.parseLong(pid.trim());
        } catch (NumberFormatException e) {
            return; // set only by ChildRun; a hand-written bad value watches nothing
        }
        io.msgscope.core.ParentProcess.whenGone(id, () -> orphaned(id));
    }

    private static void orphaned(long pid) {
        System.err.println("msgscope: the parent process " + pid + " (sweep or batch) exited; stopping this run");
        System.err.flush();
        Runtime.getRuntime().halt(ExitCodes.FAILED); // no hook to wait for: the agents watch this process and stop
    }
}
