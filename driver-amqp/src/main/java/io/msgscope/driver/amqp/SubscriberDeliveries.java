package io.msgscope.driver.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.ReceiveBuffer;

import java.io.IOException;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;

/**
 * A subscriber's delivery and acknowledgement path (A1, A2, Q2), on the thread amqp-client calls its consumer on:
 * the body handed to the {@link MessageHandler} first thing, then acked (every {@code multi_ack}) and committed
 * (every {@code tx_size}) on the channel it came on, then the delivered count published through a volatile field.
 * With {@code --opt reconnect=true} (issue 32 item 3) a delivery of a lost channel is handed over but acked on none:
 * the broker delivers it again on the channel a reconnect gets back (counted {@code redelivered}).
 *
 * <p>Buffers: amqp-client allocates a new body array per delivery. A body of up to {@value #COPY_LIMIT} bytes is
 * copied into one reused little-endian buffer (no allocation in this code); a larger one is wrapped.
 */
final class SubscriberDeliveries {
    static final int COPY_LIMIT = 1024;
    private static final long WAIT_SLICE_NS = 1_000_000;

    private final ReceiveBuffer reused;
    private final boolean autoAck;
    private final int multiAck;
    private final int txSize;
    private final boolean reconnect;
    /** True once the subscription ends: a paused delivery thread stops waiting. */
    private final BooleanSupplier ending;

    volatile MessageHandler handler;
    /** A phase with paused consumers (issue 31): the delivery thread waits before the handler, so nothing is acked. */
    volatile boolean paused;
    private volatile long delivered;

    // the delivery thread's own state (read by others only after the run)
    private int unacked;
    private int inTx;
    private long shortPayloads;
    private long redelivered;
    private long errors;
    private long txCommits;
    private Channel ackChannel;

    SubscriberDeliveries(AmqpOptions options, int messageSize, Channel first, BooleanSupplier ending) {
        this.reused = ReceiveBuffer.copyingUpTo(messageSize, COPY_LIMIT);
        this.autoAck = options.autoAck();
        this.multiAck = options.multiAck();
        this.txSize = options.txSize();
        this.reconnect = options.reconnect();
        this.ackChannel = first;
        this.ending = ending;
    }

    /** Messages handed over so far (a volatile read: the handler's writes before it are visible after it). */
    long delivered() {
        return delivered;
    }

    long shortPayloads() {
        return shortPayloads;
    }

    long redelivered() {
        return redelivered;
    }

    long errors() {
        return errors;
    }

    long txCommits() {
        return txCommits;
    }

    /** One delivery that came on channel {@code ch}: handed over first, then acknowledged on {@code ch}. */
    void deliver(Channel ch, Envelope envelope, byte[] body) {
        if (paused) {
            awaitResume();
        }
        if (body.length >= WireHeader.SIZE) {
            handler.onMessage(reused.of(body), 0);
            delivered = delivered + 1; // single writer; publishes the handler's writes to poll()
        } else {
            shortPayloads++;
            errors++;
        }
        if (envelope.isRedeliver()) {
            redelivered++;
        }
        if (!autoAck) {
            acknowledge(ch, envelope.getDeliveryTag());
        }
    }

    /**
     * Holds the delivery thread while paused: this delivery is not handed over nor acked, so with the prefetch the
     * broker stops sending and keeps the backlog in the queue; at most the prefetch waits in the client, handed over
     * (and timed) on resume.
     */
    private void awaitResume() {
        while (paused && !ending.getAsBoolean()) {
            LockSupport.parkNanos(this, WAIT_SLICE_NS);
        }
    }

    private void acknowledge(Channel channel, long deliveryTag) {
        if (channel != ackChannel) { // the first delivery on a channel got back by a reconnect
            ackChannel = channel;
            unacked = 0;
            inTx = 0;
        }
        if (reconnect && !channel.isOpen()) {
            return; // a lost channel's delivery: the broker delivers it again
        }
        try {
            if (++unacked == multiAck) {
                channel.basicAck(deliveryTag, multiAck > 1);
                unacked = 0;
            }
            if (txSize > 0 && ++inTx == txSize) {
                if (unacked > 0) {
                    channel.basicAck(deliveryTag, true); // a transaction commits every ack it covers
                    unacked = 0;
                }
                channel.txCommit();
                inTx = 0;
                txCommits++;
            }
        } catch (IOException | ShutdownSignalException e) {
            if (!reconnect || !(e instanceof ShutdownSignalException s && AmqpReconnect.survivable(s))) {
                errors++; // an ack lost with a connection that comes back is not one: the broker redelivers
            } // the shutdown listener keeps the reason; later batches ack and commit as usual
            unacked = 0;
            inTx = 0;
        }
    }

    /**
     * The consumer of a channel got back by a reconnect (or consumed only after one): its deliveries acknowledged on
     * it, its cancel and shutdown passed to the subscriber ({@code owner}).
     */
    static final class Resumed extends com.rabbitmq.client.DefaultConsumer {
        private final SubscriberDeliveries deliveries;
        private final AmqpSubscriber owner;

        Resumed(Channel ch, SubscriberDeliveries deliveries, AmqpSubscriber owner) {
            super(ch);
            this.deliveries = deliveries;
            this.owner = owner;
        }

        @Override
        public void handleDelivery(String tag, Envelope envelope, com.rabbitmq.client.AMQP.BasicProperties props,
                                   byte[] body) {
            deliveries.deliver(getChannel(), envelope, body);
        }

        @Override
        public void handleCancel(String tag) {
            owner.handleCancel(tag);
        }

        @Override
        public void handleShutdownSignal(String tag, ShutdownSignalException sig) {
            owner.handleShutdownSignal(tag, sig);
        }
    }
}
