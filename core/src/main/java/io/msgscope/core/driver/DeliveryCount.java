package io.msgscope.core.driver;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Hands messages delivered on the client library's thread over to the caller of
 * {@link io.msgscope.core.driver.Subscriber#poll}: the delivery thread bumps a counter with release
 * semantics after the handler ran, so the handler's writes are visible to the polling thread once it
 * reads the counter (acquire). The poller sleeps in short steps instead of being woken per message,
 * which would cost a futex call per message on the delivery thread.
 */
public final class DeliveryCount {
    private static final long STEP_NS = 200_000;

    private final AtomicLong delivered = new AtomicLong();
    private long count; // written by the delivery thread only
    private long seen;  // read by the polling thread only
    private volatile boolean lost;

    /** Delivery thread: one more message went through the handler. */
    public void delivered() {
        delivered.lazySet(++count);
    }

    public void lost() {
        lost = true;
    }

    public boolean isLost() {
        return lost;
    }

    /** Polling thread: waits up to the timeout; messages since the last call, or -1 once the connection is lost. */
    public int await(long timeoutMs) {
        long now = delivered.get();
        if (now == seen) {
            final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
            while ((now = delivered.get()) == seen) {
                if (lost) {
                    return -1;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return 0;
                }
                LockSupport.parkNanos(Math.min(left, STEP_NS));
            }
        }
        int n = (int) Math.min(Integer.MAX_VALUE, now - seen);
        seen = now;
        return n;
    }
}
