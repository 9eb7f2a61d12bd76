package io.msgscope.core;

/** Tool and control-protocol versions. A protocol mismatch between coordinator and agent is an error. */
public final class Version {
    public static final int PROTOCOL = 1;
    public static final String TOOL = "0.1.0";

    private Version() {
    }
}
