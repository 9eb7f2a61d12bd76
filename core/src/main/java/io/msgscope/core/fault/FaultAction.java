package io.msgscope.core.fault;

import java.util.Locale;

/**
 * What a fault does to a broker process (issue 32), executed by the broker-probe agent on the broker's host: only the
 * actions its {@code --fault-target} allows for that target.
 */
public enum FaultAction {
    /** SIGKILL: the process dies at once. */
    KILL,
    /** SIGSTOP: the process stalls (like a long GC pause) until resumed. */
    PAUSE,
    /** SIGCONT: a paused process runs on. */
    RESUME,
    /** The restart command the agent was given for the target. */
    RESTART,
    /** The target's network namespace cut off: its links set down (the network lab; the broker process runs on). */
    PARTITION,
    /** The target's links up again and any degradation removed: undoes partition and degrade. */
    HEAL,
    /** The target's links rate-limited ({@code tc tbf}) to the step's {@code rate=...} until healed. */
    DEGRADE;

    /** The lower-case name used in the shorthand, the spec file and the results. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the clients lose their connection: the run needs clients that reconnect (a later option). */
    public boolean endsConnections() {
        return this == KILL || this == RESTART;
    }

    /** Whether this undoes an earlier action on its target (resume, heal): it opens no window of its own. */
    public boolean undoes() {
        return this == RESUME || this == HEAL;
    }

    /** Whether this acts on the target's network namespace rather than its process. */
    public boolean network() {
        return this == PARTITION || this == HEAL || this == DEGRADE;
    }

    /** The action named {@code text}, or null. */
    public static FaultAction of(String text) {
        for (FaultAction a : values()) {
            if (a.label().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return a;
            }
        }
        return null;
    }
}
