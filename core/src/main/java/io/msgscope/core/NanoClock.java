package io.msgscope.core;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The monotonic clock and the idling of the pacing loops and of the coordinator's waits for frames (issue 15),
 * injectable so that they can be tested on a clock that a test moves: {@link #SYSTEM} is {@link System#nanoTime()}
 * with {@link LockSupport#parkNanos(long)}, {@link Thread#onSpinWait()} and a timed {@link BlockingQueue#poll};
 * a test's clock advances its time when parked, spun or polled in vain instead.
 */
public interface NanoClock {
    /** CLOCK_MONOTONIC through {@link System#nanoTime()}, parking and spinning the calling thread. */
    NanoClock SYSTEM = new NanoClock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }
    };

    long nanoTime();

    /** Gives up the CPU for about {@code ns} (may return early, as {@link LockSupport#parkNanos(long)} does). */
    default void park(long ns) {
        LockSupport.parkNanos(ns);
    }

    /** One turn of a busy wait. */
    default void spin() {
        Thread.onSpinWait();
    }

    /** The head of {@code queue}, waiting up to {@code ns} for one to arrive; null when none did. */
    default <T> T poll(BlockingQueue<T> queue, long ns) throws InterruptedException {
        return queue.poll(ns, TimeUnit.NANOSECONDS);
    }

    /**
     * Waits until {@code due} and returns the time it read last ({@code >= due}): parked while more than
     * {@code spinNs} remain, then spinning, so the wake-up is precise without a core burnt for the whole wait.
     */
    default long awaitUntil(long due, long spinNs) {
        long now = nanoTime();
        while (now < due) {
            idle(due - now, spinNs);
            now = nanoTime();
        }
        return now;
    }

    /** One step of a wait with {@code left} ns to go: park while more than {@code spinNs} remain, else spin. */
    default void idle(long left, long spinNs) {
        if (left > spinNs) {
            park(left - spinNs);
        } else {
            spin();
        }
    }
}
