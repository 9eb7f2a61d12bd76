package io.msgscope.driver.amqp;

import com.rabbitmq.client.ConfirmListener;

import java.util.concurrent.locks.LockSupport;

/**
 * An {@link AmqpPublisher}'s publisher confirms: delivery tags are consecutive from 1; the listener (amqp-client's
 * connection thread) marks them in a ring of {@code window} slots, advances the lowest unconfirmed tag and wakes the
 * sending thread waiting for room. Acks and nacks are counted for measured messages only, from the first tag
 * whose header sequence is >= 0. No locks and no allocation per message.
 */
final class ConfirmWindow implements ConfirmListener {
    // written by the listener thread only, except waiter and firstMeasuredTag (the sending thread)
    private final boolean[] confirmed;
    private final int window;
    private volatile long lowestUnconfirmed = 1;
    private volatile Thread waiter;
    private volatile long acked;
    private volatile long nacked;
    /** Tag of the first message with a sequence >= 0 (the first measured one); 0 while still warming up. */
    private volatile long firstMeasuredTag;

    ConfirmWindow(int window) {
        this.window = window;
        this.confirmed = new boolean[window];
    }

    /** Whether {@code nextTag} must wait: the span of unconfirmed tags fills the window. */
    boolean full(long nextTag) {
        return nextTag - lowestUnconfirmed >= window;
    }

    /** The lowest tag not confirmed yet: every lower one is acked or nacked. */
    long lowestUnconfirmed() {
        return lowestUnconfirmed;
    }

    int size() {
        return window;
    }

    /** Whether the first measured message is still to come (confirms are not counted yet). */
    boolean warmingUp() {
        return firstMeasuredTag == 0;
    }

    /** Sending thread: confirms of {@code tag} and later count. */
    void measuredFrom(long tag) {
        firstMeasuredTag = tag;
    }

    /** The thread to wake on each confirm (and on a shutdown), or null. */
    void waiter(Thread t) {
        waiter = t;
    }

    /** Wakes the waiting sender, if any. */
    void wake() {
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    long acked() {
        return acked;
    }

    long nacked() {
        return nacked;
    }

    @Override
    public void handleAck(long tag, boolean multiple) {
        confirm(tag, multiple, true);
    }

    @Override
    public void handleNack(long tag, boolean multiple) {
        confirm(tag, multiple, false);
    }

    private void confirm(long tag, boolean multiple, boolean ack) {
        final boolean[] ring = confirmed;
        final int w = window;
        final long first = firstMeasuredTag;
        long low = lowestUnconfirmed;
        long n = 0;
        if (multiple) {
            for (long t = low; t <= tag; t++) {
                int i = (int) (t % w);
                if (!ring[i]) {
                    ring[i] = true;
                    if (first != 0 && t >= first) {
                        n++;
                    }
                }
            }
        } else if (tag >= low) {
            int i = (int) (tag % w);
            if (!ring[i]) {
                ring[i] = true;
                if (first != 0 && tag >= first) {
                    n = 1;
                }
            }
        }
        if (ack) {
            acked += n; // single writer: this thread
        } else {
            nacked += n;
        }
        while (ring[(int) (low % w)]) {
            ring[(int) (low % w)] = false;
            low++;
        }
        lowestUnconfirmed = low;
        wake();
    }
}
