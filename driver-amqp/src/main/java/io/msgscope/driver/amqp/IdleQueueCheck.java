package io.msgscope.driver.amqp;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Poll mode's look for a deleted queue: RabbitMQ tells a consumer that its queue was deleted (basic.cancel); Qpid
 * Broker-J does not, the channel simply goes quiet. So once nothing was delivered for {@link #IDLE_CHECK_NS}, and at
 * most that often, the check (a passive queue.declare; 404 NOT_FOUND closes the channel, and the reason is kept) runs
 * on the delivery thread, so that it never overlaps that thread's own acks and commits on the channel. Only on the
 * idle path; the receiver's thread calls {@link #idle} and {@link #delivered}.
 */
final class IdleQueueCheck {
    /** After this long without a delivery the queue is looked up, at most this often. */
    static final long IDLE_CHECK_NS = 1_000_000_000L;

    private final Executor deliveryThread;
    private final Runnable check;
    private long lastChangeNs;
    private long lastCheckNs;
    private volatile boolean pending;

    IdleQueueCheck(Executor deliveryThread, Runnable check) {
        this.deliveryThread = deliveryThread;
        this.check = () -> {
            try {
                check.run();
            } finally {
                pending = false;
            }
        };
    }

    /** Something was delivered: the idle time counts from the next {@link #idle}. */
    void delivered() {
        lastChangeNs = 0;
    }

    /** A poll found nothing new at {@code nowNs}: the check goes to the delivery thread when due. */
    void idle(long nowNs) {
        if (lastChangeNs == 0) {
            lastChangeNs = nowNs;
            return;
        }
        if (nowNs - lastChangeNs < IDLE_CHECK_NS || nowNs - lastCheckNs < IDLE_CHECK_NS || pending) {
            return;
        }
        lastCheckNs = nowNs;
        pending = true;
        try {
            deliveryThread.execute(check);
        } catch (RejectedExecutionException e) {
            pending = false; // closing
        }
    }
}
