package io.msgscope.core;

/** Tool and control-protocol versions. A protocol mismatch between coordinator and agent is an error. */
public final class Version {
    /**
     * 2 (issue 14): TLS on the control channel off this process's own loopback agents; shared-secret
     * proofs over both nonces, both roles and the TLS channel binding; the agent proves first.
     * 3 (issues 18, 15): heartbeat answers carry the role's progress; PhaseDone names the receiver's network
     * interface in a field of its own instead of a "net:" note.
     */
    public static final int PROTOCOL = 3;
    public static final String TOOL = "0.1.0";

    private Version() {
    }
}
