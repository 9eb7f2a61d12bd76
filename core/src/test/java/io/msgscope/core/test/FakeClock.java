package io.msgscope.core.test;

import io.msgscope.core.NanoClock;

import java.util.concurrent.BlockingQueue;

/**
 * A {@link NanoClock} that only moves when its thread waits: parking for {@code ns} advances it by exactly that,
 * a spin by {@link #SPIN_STEP_NS}, a poll of an empty queue by its whole wait (without waiting). A paced loop run on it is deterministic, and the test can count how it waited.
 */
public final class FakeClock implements NanoClock {
    /** What one turn of a busy wait costs on this clock. */
    public static final long SPIN_STEP_NS = 100;

    private long now;
    private long parks;
    private long spins;
    private long parkedNs;

    public FakeClock(long startNs) {
        this.now = startNs;
    }

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public synchronized void park(long ns) {
        parks++;
        parkedNs += ns;
        now += ns;
    }

    @Override
    public synchronized void spin() {
        spins++;
        now += SPIN_STEP_NS;
    }

    /** Takes the head of {@code queue} at once, or parks for {@code ns} on this clock when it is empty. */
    @Override
    public <T> T poll(BlockingQueue<T> queue, long ns) {
        T head = queue.poll();
        if (head == null) {
            park(ns);
        }
        return head;
    }

    /** Moves the clock on, as work between two readings would. */
    public synchronized void advance(long ns) {
        now += ns;
    }

    public synchronized long parks() {
        return parks;
    }

    public synchronized long spins() {
        return spins;
    }

    public synchronized long parkedNs() {
        return parkedNs;
    }
}
