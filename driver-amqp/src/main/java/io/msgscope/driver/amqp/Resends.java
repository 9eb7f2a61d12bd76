package io.msgscope.driver.amqp;

import io.msgscope.core.driver.Confirmations;
import io.msgscope.core.driver.RepublishPacing;

import java.util.ArrayDeque;
import java.util.List;

/**
 * An {@link AmqpPublisher}'s messages to publish with {@code --opt reconnect=true} (issue 32 item 3), on the sending
 * thread only: each new message at the tail, the ones to send again at the head, and which of those count as
 * republished. No I/O here: the publisher publishes the head and says so ({@link #published}).
 *
 * <p>What a lost connection left unconfirmed goes out again as soon as the connection is back ({@link #firstAgain}).
 * What the broker nacked goes out again in rounds paced as JetStream's are ({@link RepublishPacing}: the first at
 * once, then, while the broker acknowledges nothing, each waiting twice as long as the one before, from
 * {@link #FIRST_WAIT_NS} to {@link #MAX_WAIT_NS}): a quorum queue without a leader nacks every publish, and sending
 * each nacked message again at once hit it with 13,931-18,225 publishes for ~6,000 messages while it elected one
 * (BENCHMARKS.md "Kills and pauses on the project's clusters").
 */
final class Resends {
    /** The first wait between two rounds of nacked messages, as JetStream's (NatsSettings.RECONNECT_WAIT). */
    static final long FIRST_WAIT_NS = 100_000_000L;
    /** The longest wait, 16 first waits (1.6 s), as JetStream's. */
    static final long MAX_WAIT_NS = 16 * FIRST_WAIT_NS;

    private final ArrayDeque<ConfirmWindow.Pending> toSend = new ArrayDeque<>();
    /** How many at the head of {@link #toSend} are sent again (counted republished as they go). */
    private int againLeft;
    private final Confirmations confirmations;
    private final RepublishPacing pacing = new RepublishPacing(FIRST_WAIT_NS, MAX_WAIT_NS);
    /** The publisher's acknowledged count at the last look: a change is an ack since then. */
    private long ackedSeen;

    /** @param confirmations where a message sent again is counted, or null without confirms (nothing is then) */
    Resends(Confirmations confirmations) {
        this.confirmations = confirmations;
    }

    /** A new message, after everything queued. */
    void add(long seq, byte[] body) {
        toSend.add(new ConfirmWindow.Pending(seq, body));
    }

    /** Messages to send again before anything queued, in their order (a lost connection's unconfirmed ones). */
    void firstAgain(List<ConfirmWindow.Pending> again) {
        for (int i = again.size() - 1; i >= 0; i--) {
            toSend.addFirst(again.get(i));
        }
        againLeft += again.size();
    }

    /**
     * Takes the messages {@code window} holds nacked to the head when a round is due at {@code nowNs} ({@code ackedSoFar}:
     * the publisher's measured acks so far, across its windows: any change since the last look is an acknowledgement,
     * which brings the wait back to the first); returns how many were taken, 0 when none waits or the round is not due.
     */
    int nackedIfDue(ConfirmWindow window, long ackedSoFar, long nowNs) {
        if (ackedSoFar != ackedSeen) {
            ackedSeen = ackedSoFar;
            pacing.acked();
        }
        if (window == null || !window.hasNacked() || !pacing.due(nowNs)) {
            return 0;
        }
        List<ConfirmWindow.Pending> nacked = window.takeNacked();
        firstAgain(nacked);
        return nacked.size();
    }

    boolean isEmpty() {
        return toSend.isEmpty();
    }

    /** The message to publish next. */
    ConfirmWindow.Pending head() {
        return toSend.peek();
    }

    /** The head went out (or may have): it leaves the queue; one sent again counts as republished. */
    void published() {
        toSend.poll();
        if (againLeft > 0) {
            againLeft--;
            confirmations.republished();
        }
    }
}
