package io.msgscope.driver.stomp;

import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.Confirmations;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Receipts as publisher confirms (issue 35 item 3). Every SEND gets a number, 0, 1, 2, ... on its connection; with
 * {@code receipts=N} the SENDs numbered N-1, 2N-1, ... carry {@code receipt:NUMBER}. The broker handles a connection's
 * frames in order, so its RECEIPT for number K stands for every SEND up to K (RabbitMQ sends a SEND's receipt once the
 * message is confirmed). A SEND after the last receipt is never confirmed: with N > 1 the last (count mod N) messages
 * of a run stay unconfirmed, and say so in {@code messages_unconfirmed}.
 *
 * <p>At most {@code maxInflight} SENDs wait for a receipt: {@link #acquire} takes a slot on the sending thread, a
 * RECEIPT frees the slots it covers on the event loop. Each slot keeps its message's sequence (negative for warm-up)
 * in a ring written by the one sending thread and read by the one event loop.
 */
final class ReceiptWindow {
    private final int every;
    private final int capacity;
    private final long[] sequences;
    private final Semaphore slots;
    private final AckCounts counts;
    private final Confirmations confirmations = new Confirmations();
    private volatile long sent;    // SENDs numbered so far; the sending thread writes
    private long confirmedUpTo;    // SENDs below this are confirmed; the event loop writes

    ReceiptWindow(int every, int maxInflight, AckCounts counts) {
        this.every = every;
        this.capacity = maxInflight;
        this.sequences = new long[maxInflight];
        this.slots = new Semaphore(maxInflight);
        this.counts = counts;
    }

    /** Sending thread: a slot for the next SEND, false when none is free. */
    boolean tryAcquire() {
        return slots.tryAcquire();
    }

    /** Sending thread: waits up to {@code timeoutMs} for a slot. */
    boolean acquire(long timeoutMs) throws InterruptedException {
        return slots.tryAcquire(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Sending thread, holding a slot: numbers the SEND of message {@code seq} and returns its receipt id, or -1 when
     * this SEND carries no receipt.
     */
    long sent(long seq) {
        long n = sent;
        sequences[(int) (n % capacity)] = seq;
        confirmations.sent(seq);
        sent = n + 1;
        return (n + 1) % every == 0 ? n : -1;
    }

    /** Event loop: the RECEIPT with this id; ids that are not a SEND's number (the SUBSCRIBE's) are ignored. */
    void receipt(String id) {
        long k;
        try {
            k = Long.parseLong(id);
        } catch (NumberFormatException e) {
            return;
        }
        long end = Math.min(k + 1, sent);
        int freed = 0;
        for (long n = confirmedUpTo; n < end; n++) {
            long seq = sequences[(int) (n % capacity)];
            counts.acked(seq < 0);
            confirmations.confirm(seq);
            freed++;
        }
        if (freed > 0) {
            confirmedUpTo = end;
            slots.release(freed);
        }
    }

    /** SENDs not confirmed yet. */
    int waiting() {
        return capacity - slots.availablePermits();
    }

    /** SENDs that will never be confirmed: those after the last one that asked for a receipt. */
    long unreceipted() {
        return sent % every;
    }

    Confirmations confirmations() {
        return confirmations;
    }
}
