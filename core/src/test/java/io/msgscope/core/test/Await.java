package io.msgscope.core.test;

import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;

/**
 * The tests' one wait for a condition another thread brings about (issue 15): checks it every millisecond and
 * fails, naming what was awaited and for how long, when it does not hold within the time given. Tests wait on
 * conditions, never on fixed sleeps.
 */
public final class Await {
    private Await() {
    }

    /** Waits up to {@code seconds} for {@code condition}; an {@link AssertionError} names {@code what} otherwise. */
    public static void until(BooleanSupplier condition, long seconds, String what) {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + seconds + " s: " + what);
            }
            LockSupport.parkNanos(1_000_000);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what);
            }
        }
    }
}
