package io.msgscope.coordinator.agents;

/**
 * How long the coordinator waits for an agent at each step of its set-up, named once for every mode.
 */
public final class Deadlines {
    /** A local agent JVM to start and print its port. */
    public static final long START_MS = 30_000;
    /** A control connection's TCP connect and TLS/secret handshake. */
    public static final long HANDSHAKE_MS = 30_000;
    /** An agent to answer a run spec with Ready (its driver connected, its queues declared). */
    public static final long READY_MS = 60_000;
    /** Publishers stopped early (Ctrl-C, issue 29) to report that they are done. */
    public static final long STOPPED_MS = 30_000;
    /** Publishers to report done after a phase's planned length (a slow system is waited for this long beyond it). */
    public static final long OVERRUN_MS = 60_000;

    private Deadlines() {
    }
}
