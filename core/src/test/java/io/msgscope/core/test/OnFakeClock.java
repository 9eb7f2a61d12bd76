package io.msgscope.core.test;

import io.msgscope.core.NanoClock;

import java.util.concurrent.BlockingQueue;

/**
 * A {@link FakeClock} whose waits for frames a test shapes (frames arriving at a given time, or after a delay):
 * reading, parking and spinning are the fake clock's; {@link #poll} is too unless the test overrides it.
 */
public abstract class OnFakeClock implements NanoClock {
    protected final FakeClock fake;

    protected OnFakeClock(FakeClock fake) {
        this.fake = fake;
    }

    @Override
    public long nanoTime() {
        return fake.nanoTime();
    }

    @Override
    public void park(long ns) {
        fake.park(ns);
    }

    @Override
    public void spin() {
        fake.spin();
    }

    @Override
    public <T> T poll(BlockingQueue<T> queue, long ns) throws InterruptedException {
        return fake.poll(queue, ns);
    }
}
