package io.msgscope.driver.amqp;

import com.rabbitmq.client.ConfirmListener;
import io.msgscope.core.driver.Confirmations;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * An {@link AmqpPublisher}'s publisher confirms: delivery tags are consecutive from 1; the listener (amqp-client's
 * connection thread) marks them in a ring of {@code window} slots, advances the lowest unconfirmed tag and wakes the
 * sending thread waiting for room. Acks and nacks are counted for measured messages only, from the first tag
 * whose header sequence is >= 0. No locks and no allocation per message.
 *
 * <p>Tracked ({@link #ConfirmWindow(int, Confirmations, boolean)}, issue 32 item 3): each tag's measured sequence is
 * kept in its slot, so an ack confirms that sequence ({@link Confirmations}: {@code messages_confirmed}); with
 * {@code keepCopies} (reconnect=true) the slot also keeps the message's body until it is settled, a nacked measured
 * message is queued to be published again ({@link #takeNacked}), and when the channel is lost, the tags still
 * outstanding are handed back with their bodies ({@link #outstanding}). A new channel starts a new window (its tags
 * start again at 1).
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
    /** Tracked: the sequence each outstanding tag carries (negative: warm-up); else null. */
    private final long[] seqs;
    /** keepCopies: the body of each outstanding tag; else null. */
    private final byte[][] copies;
    private final Confirmations confirmations;
    private final ConcurrentLinkedQueue<Pending> toRepublish = new ConcurrentLinkedQueue<>();

    /** A measured message to publish again: its sequence and body. */
    record Pending(long seq, byte[] body) {
    }

    ConfirmWindow(int window) {
        this(window, null, false);
    }

    /**
     * @param confirmations where acked measured sequences are confirmed, or null (untracked)
     * @param keepCopies    keep each outstanding message's body, to publish it again (reconnect=true)
     */
    ConfirmWindow(int window, Confirmations confirmations, boolean keepCopies) {
        this.window = window;
        this.confirmed = new boolean[window];
        this.confirmations = confirmations;
        this.seqs = confirmations == null ? null : new long[window];
        this.copies = keepCopies ? new byte[window][] : null;
    }

    /** Sending thread, before publishing {@code tag}: the measured sequence it carries and (keepCopies) its body. */
    void track(long tag, long seq, byte[] body) {
        if (seqs != null) {
            int i = (int) (tag % window);
            seqs[i] = seq;
            if (copies != null) {
                copies[i] = body;
            }
        }
    }

    /** Sending thread: {@code tag} was tracked but never went out (the channel refused it): forgotten. */
    void untrack(long tag) {
        if (copies != null) {
            int i = (int) (tag % window);
            copies[i] = null;
            seqs[i] = -1;
        }
    }

    /** Whether nacked measured messages wait to be taken. */
    boolean hasNacked() {
        return !toRepublish.isEmpty();
    }

    /** The nacked measured messages queued since the last call (keepCopies only), to publish again. */
    List<Pending> takeNacked() {
        List<Pending> out = new ArrayList<>();
        Pending p;
        while ((p = toRepublish.poll()) != null) {
            out.add(p);
        }
        return out;
    }

    /**
     * After the channel is lost (no more confirms come on it): the measured messages of tags below {@code nextTag}
     * neither acked nor nacked, then those nacked and not yet taken, in tag order; keepCopies only.
     */
    List<Pending> outstanding(long nextTag) {
        List<Pending> out = new ArrayList<>();
        for (long t = lowestUnconfirmed; t < nextTag; t++) {
            int i = (int) (t % window);
            if (!confirmed[i] && copies[i] != null && seqs[i] >= 0) {
                out.add(new Pending(seqs[i], copies[i]));
            }
        }
        out.addAll(takeNacked());
        return out;
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
                    settled(i, ack);
                }
            }
        } else if (tag >= low) {
            int i = (int) (tag % w);
            if (!ring[i]) {
                ring[i] = true;
                if (first != 0 && tag >= first) {
                    n = 1;
                }
                settled(i, ack);
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

    /** Tracked: slot {@code i} was acked (its sequence confirmed) or nacked (its body queued again, keepCopies). */
    private void settled(int i, boolean ack) {
        if (seqs == null) {
            return;
        }
        long seq = seqs[i];
        if (ack) {
            confirmations.confirm(seq);
        } else if (copies != null && seq >= 0) {
            toRepublish.add(new Pending(seq, copies[i]));
        }
        if (copies != null) {
            copies[i] = null;
        }
    }
}
