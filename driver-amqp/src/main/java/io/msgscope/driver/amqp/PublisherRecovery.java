package io.msgscope.driver.amqp;

import com.rabbitmq.client.ShutdownSignalException;
import io.msgscope.core.WireHeader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * An {@link AmqpPublisher}'s sending with {@code --opt reconnect=true} (issue 32 item 3), on its sending thread: each
 * measured message is copied into an array of its own, kept until confirmed, and queued ({@link Resends}); a lost
 * connection ({@link AmqpReconnect#survivable}) is opened again ({@link #recover}) and what it left unconfirmed goes
 * out again first, what the broker nacked in paced rounds ({@code messages_republished}, {@code publisher_reconnects}).
 * In scenario mode ({@link #offer}) the pacer that offers a message to a publisher whose connection is lost waits while
 * it is got back, as the NATS publishers' do; otherwise {@code offer} never waits, as without the option.
 */
final class PublisherRecovery {
    private static final long WAIT_SLICE_NS = 1_000_000;

    private final AmqpPublisher p;
    private final AmqpReconnect.Opener reopen;
    /** The messages to publish, those sent again first. */
    private final Resends resends;
    private long reconnects;

    PublisherRecovery(AmqpPublisher p, AmqpReconnect.Opener reopen, io.msgscope.core.driver.Confirmations confirmations) {
        this.p = p;
        this.reopen = reopen;
        this.resends = new Resends(confirmations);
    }

    /** Connections got back: {@code publisher_reconnects}. */
    long reconnects() {
        return reconnects;
    }

    /** Each message copied into an array of its own (kept until confirmed) and published; see {@link #sendAll}. */
    void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int size = p.size;
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            byte[] body = new byte[size];
            buffer.get(off, body, 0, size);
            long seq = size >= WireHeader.SIZE ? WireHeader.sequence(buffer, off) : -1;
            if (p.confirmations != null) {
                p.confirmations.sent(seq);
            }
            resends.add(seq, body);
        }
        queueNacked();
        sendAll();
    }

    /**
     * Scenario mode: after a loss the connection is got back and what it left unconfirmed, or the broker nacked, goes
     * out first (the pacer waits meanwhile); then the message, only if it can go without waiting (false while the
     * confirm window or the connection's outgoing frame queue is full, as without the option).
     */
    boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        ShutdownSignalException lost = p.closedBy;
        if (lost != null) {
            recover(lost);
        }
        queueNacked();
        sendAll();
        if (p.confirms != null && p.confirms.full(p.nextTag)
                || p.writeQueue != null && p.writeQueue.size() > p.queueRoom) {
            return false;
        }
        send(buffer, offset, length);
        return true;
    }

    /** The measured messages the broker nacked go out again first, in rounds paced by {@link Resends}. */
    private void queueNacked() {
        resends.nackedIfDue(p.confirms, p.confirmedSoFar(), System.nanoTime());
    }

    /**
     * Publishes what {@link #resends} holds, each once there is room; a lost connection is got back ({@link #recover})
     * and what it left unconfirmed goes out again first. A message leaves the queue only as it is published: one
     * that failed while waiting for room is still there, one whose publish failed is among the unconfirmed.
     */
    private void sendAll() throws IOException {
        while (!resends.isEmpty()) {
            try {
                ConfirmWindow confirms = p.confirms;
                if (confirms != null && confirms.full(p.nextTag)) {
                    p.awaitWindow(p.nextTag - confirms.size() + 1, Long.MAX_VALUE);
                }
                if (p.writeQueue != null && p.writeQueue.size() > p.queueRoom) {
                    p.awaitWrites(false, 0);
                }
                ConfirmWindow.Pending head = resends.head();
                if (confirms != null) {
                    if (confirms.warmingUp() && head.seq() >= 0) {
                        confirms.measuredFrom(p.nextTag);
                    }
                    confirms.track(p.nextTag, head.seq(), head.body());
                }
                try {
                    p.publishBody(head.body());
                } catch (com.rabbitmq.client.AlreadyClosedException e) { // refused before a byte went out
                    if (confirms != null) {
                        confirms.untrack(p.nextTag);
                    }
                    throw e;
                } catch (ShutdownSignalException | IOException e) { // maybe written: unconfirmed, sent again
                    published();
                    throw e;
                }
                published();
            } catch (ShutdownSignalException | IOException e) {
                recover(e);
            }
        }
    }

    /** The head of {@link #resends} went out (or may have): it leaves the queue, a republish counted as one. */
    private void published() {
        resends.published();
        p.nextTag++;
    }

    /**
     * After a failure: when the connection was lost ({@link AmqpReconnect#survivable}), puts the measured messages
     * it left unconfirmed (outstanding or nacked) at the head of {@link #resends}, opens the connection again (the same
     * or the next node of the URI, every {@link AmqpReconnect#WAIT_NS}) and counts a reconnect; any other failure is
     * thrown as without the option, counted in {@code errors}.
     */
    private void recover(Exception e) throws IOException {
        ShutdownSignalException s = p.closedBy != null ? p.closedBy : AmqpConnections.shutdownCause(e);
        if (s == null) { // a write failed before amqp-client noticed the connection's end: give it a moment
            long until = System.nanoTime() + AmqpConnections.CLOSE_TIMEOUT_MS * 1_000_000L;
            while (p.connection.isOpen() && System.nanoTime() < until) {
                LockSupport.parkNanos(WAIT_SLICE_NS);
            }
            s = p.closedBy != null ? p.closedBy : p.connection.getCloseReason();
        }
        if (p.closing || !AmqpReconnect.survivable(s)) {
            p.errors++;
            throw e instanceof IOException io ? io : p.failed(e);
        }
        long deadline = System.nanoTime() + AmqpReconnect.GIVE_UP_NS;
        while (true) {
            if (p.confirms != null) {
                resends.firstAgain(p.confirms.outstanding(p.nextTag));
            }
            AmqpReconnect.abandon(p.connection);
            AmqpReconnect.Link link;
            try {
                link = AmqpReconnect.reopen(reopen, deadline, "publisher");
            } catch (IOException x) {
                p.errors++; // gave up: the run fails as it would have without the option
                throw x;
            }
            try {
                p.attach(link);
                reconnects++;
                return;
            } catch (ShutdownSignalException | IOException x) {
                if (System.nanoTime() - deadline > 0) {
                    p.errors++;
                    throw p.failed(x);
                }
                // lost again while confirm mode was set up: the new window holds nothing yet; try again
            }
        }
    }

    /**
     * Waits for every confirm, publishing again what is nacked or left unconfirmed by a lost connection, until
     * {@code deadlineNs}; what is still unconfirmed then is counted {@code messages_unconfirmed}, not thrown.
     */
    void drain(long deadlineNs) throws IOException {
        while (true) {
            try {
                queueNacked();
                sendAll();
                if (p.confirms != null && !p.awaitWindow(p.nextTag, deadlineNs)) {
                    return;
                }
                if (p.confirms != null && p.confirms.hasNacked()) {
                    if (System.nanoTime() - deadlineNs > 0) {
                        return; // what is nacked still is counted unconfirmed
                    }
                    LockSupport.parkNanos(WAIT_SLICE_NS); // until its round is due
                    continue;
                }
                p.channel.basicQos(0); // one round trip: every basic.return is in
                return;
            } catch (ShutdownSignalException | IOException e) {
                if (System.nanoTime() - deadlineNs > 0) {
                    return;
                }
                recover(e);
            }
        }
    }
}
