package io.msgscope.coordinator.cli;

/** The documented exit codes of every msgscope command. */
public final class ExitCodes {
    /** The run completed and passed its checks. */
    public static final int OK = 0;
    /** The run failed (an agent failed, messages were lost, a target was missed); results are still written. */
    public static final int FAILED = 1;
    /** Bad usage: unknown option, value out of range, unwritable output folder, port in use. */
    public static final int USAGE = 2;
    /**
     * Stopped by SIGINT (Ctrl-C) or SIGTERM: what was measured up to the signal is written with status "interrupted"
     * (issue 29); 130 = 128 + SIGINT, what shells expect.
     */
    public static final int INTERRUPTED = 130;

    private ExitCodes() {
    }
}
