package io.msgscope.driver.amqp;

/**
 * Where a subscriber with {@code --opt reconnect=true} stands with its connection (issue 32 item 3), apart from the
 * AMQP calls so that the transitions can be checked with times given by hand: {@link State#UP} until a survivable
 * loss ({@link AmqpReconnect#survivable}), then {@link State#LOST} while attempts, at most one every
 * {@link AmqpReconnect#WAIT_NS}, fail, back to UP when one succeeds (a reconnect counted), or {@link State#GAVE_UP}
 * once {@link AmqpReconnect#GIVE_UP_NS} passed since the loss: the subscription then ends as it would have without
 * the option. Poll mode attempts on the receiver's thread when {@link #due}; push mode (scenarios) on the agent's
 * retry thread, scheduled by {@link #lost} and by each failed attempt. Thread-safe: the loss is reported on
 * amqp-client's threads, the attempts made on another.
 */
final class SubscriberReconnect {
    /** The connection's state. */
    enum State { UP, LOST, GAVE_UP }

    private State state = State.UP;
    private long lostSinceNs;
    private long lastAttemptNs;
    private boolean attempted;
    private long reconnects;

    /**
     * The connection was lost (survivably) at {@code nowNs}. True when this starts a loss (the first report of it:
     * amqp-client reports one loss to the channel's and the connection's listeners both), so exactly one round of
     * attempts is set going.
     */
    synchronized boolean lost(long nowNs) {
        if (state != State.UP) {
            return false;
        }
        state = State.LOST;
        lostSinceNs = nowNs;
        attempted = false;
        return true;
    }

    /** Whether an attempt may be made at {@code nowNs}: lost, and the first one or {@link AmqpReconnect#WAIT_NS} after the last. */
    synchronized boolean due(long nowNs) {
        return state == State.LOST && (!attempted || nowNs - lastAttemptNs >= AmqpReconnect.WAIT_NS);
    }

    /** An attempt starts at {@code nowNs}. */
    synchronized void attempting(long nowNs) {
        attempted = true;
        lastAttemptNs = nowNs;
    }

    /** The attempt succeeded: the queue is consumed again on a new connection. */
    synchronized void back() {
        if (state == State.LOST) {
            state = State.UP;
            reconnects++;
        }
    }

    /**
     * The attempt started at {@code attemptNs} failed: true when the side gives up now (more than
     * {@link AmqpReconnect#GIVE_UP_NS} since the loss), false when it tries again.
     */
    synchronized boolean failed(long attemptNs) {
        if (state == State.LOST && attemptNs - lostSinceNs > AmqpReconnect.GIVE_UP_NS) {
            state = State.GAVE_UP;
            return true;
        }
        return false;
    }

    synchronized State state() {
        return state;
    }

    /** Whether the connection is lost and being got back (its end must not be reported as the subscription's). */
    synchronized boolean reconnecting() {
        return state == State.LOST;
    }

    /** Connections got back: {@code subscriber_reconnects}. */
    synchronized long reconnects() {
        return reconnects;
    }
}
