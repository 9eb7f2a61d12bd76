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

    /** Starts watching the parent named by {@value #PROPERTY}, if any; returns at once. */
    public static void startFromProperty() {
        String pid = System.getProperty(PROPERTY);
        if (pid == null || pid.isBlank()) {
            return;
        }
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
