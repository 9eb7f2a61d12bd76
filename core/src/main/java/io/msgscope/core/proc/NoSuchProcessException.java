package io.msgscope.core.proc;

import java.io.IOException;

/** The process asked for does not exist (or no longer exists) under the given /proc root. */
public final class NoSuchProcessException extends IOException {
    private final long pid;

    public NoSuchProcessException(long pid, String message) {
        super(message);
        this.pid = pid;
    }

    public long pid() {
        return pid;
    }
}
