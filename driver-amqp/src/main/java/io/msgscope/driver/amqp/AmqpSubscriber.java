package io.msgscope.driver.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.ReceiveBuffer;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The consuming side (A1, A2): its own connection with one channel, a server-named, auto-delete,
 * non-durable, non-exclusive queue bound only to the default exchange, basic.consume on it. Routed by
 * topic ({@code --opt topic}, scenario mode): a server-named, exclusive, auto-delete queue of its own, or
 * with {@code --opt group} the group's shared named queue, bound to the exchange with the topic.
 *
 * <p>amqp-client calls {@link #handleDelivery} on a consumer-dispatch thread, which hands the body to the
 * {@link MessageHandler} first thing (Q2), then acks/commits, then publishes the delivered count
 * through a volatile field. Two ways to use it, chosen by the first call (basic.consume is issued by it,
 * once the handler is known: until then messages wait in the broker's queue, so none is lost and none is
 * delivered without a handler):
 * <ul>
 *   <li>{@link #poll} (run and throughput modes): the callbacks move to a thread of this subscriber's own
 *       ("msgscope-amqp-consumer"), started by the first poll on the caller's thread, so it runs on the cores
 *       the receiver was pinned to; poll waits on the delivered count.</li>
 *   <li>{@link #start} (scenario mode, issue 13): the callbacks stay on the agent's shared dispatch threads
 *       ({@link AmqpShared}); nothing of the caller waits, nothing wakes while nothing arrives, and the end of
 *       the subscription (a lost connection, a closed channel, the broker's basic.cancel when the queue is
 *       deleted) is reported once through {@code ended}.</li>
 * </ul>
 *
 * <p>Buffers: amqp-client allocates a new body array per delivery. A body of up to
 * {@value #COPY_LIMIT} bytes is copied into one reused little-endian buffer (no allocation in this
 * code); a larger one is wrapped, one small ByteBuffer per delivery, cheaper than copying it.
 *
 * <p>With {@code --opt reconnect=true} (poll mode; issue 32 item 3) a lost connection ({@link AmqpReconnect#survivable})
 * does not end the subscription: the next polls open it again every {@link AmqpReconnect#WAIT_NS}, declare the
 * queue again under its name and consume it ({@code subscriber_reconnects}). Each delivery is acknowledged on the
 * channel it came on: what the lost channel delivered and had not acknowledged the broker delivers again (counted
 * {@code redelivered}, a duplicate in the trace when the handler had it); with auto-ack what was on its way is lost,
 * and counted lost.
 */
final class AmqpSubscriber implements Subscriber, Consumer, ShutdownListener {
    static final int COPY_LIMIT = 1024;
    private static final long WAIT_SLICE_NS = 1_000_000;
    /** After this long without a delivery, poll checks that the queue still exists (see pollIdle). */
    static final long IDLE_CHECK_NS = 1_000_000_000L;

    private final AmqpOptions options;
    private final String address;
    private volatile Connection connection;
    private volatile Channel channel;
    /** The channel the subscriber was opened with (its deliveries come to this object's own callbacks). */
    private final Channel firstChannel;
    /** reconnect=true: opens the connection and channel again and declares the queue; else null. */
    private final AmqpReconnect.Opener reopen;
    private volatile boolean lost;
    private volatile long lostSinceNs;
    private long lastAttemptNs;
    private volatile long reconnects;
    private final AmqpDispatch executor;
    private final String queue;
    private final String group;
    private final ReceiveBuffer reused;
    private final boolean autoAck;
    private final int multiAck;
    private final int txSize;

    private volatile MessageHandler handler;
    /** A phase with paused consumers (issue 31): the delivery thread waits before the handler, so nothing is acked. */
    private volatile boolean paused;
    private volatile java.util.function.Consumer<String> ended;
    private final java.util.concurrent.atomic.AtomicBoolean endReported = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile String consumerTag;
    private volatile long delivered;
    private volatile String closeReason;
    private volatile boolean closing;
    private long lastPolled;
    private long lastChangeNs;
    private long lastCheckNs;
    private volatile boolean idleCheckPending;
    private final Runnable idleCheck = this::queueStillThere;

    // consumer-thread state (read by others only after the run)
    private int unacked;
    private int inTx;
    private long shortPayloads;
    private long redelivered;
    private long errors;
    private long txCommits;
    private Channel ackChannel;

    AmqpSubscriber(AmqpOptions options, String address, Connection connection, Channel channel,
                   AmqpDispatch executor, String queue, int messageSize, AmqpReconnect.Opener reopen) {
        this.options = options;
        this.address = address;
        this.connection = connection;
        this.channel = channel;
        this.firstChannel = channel;
        this.ackChannel = channel;
        this.reopen = options.reconnect() ? reopen : null;
        this.executor = executor;
        this.queue = queue;
        this.group = options.group();
        this.autoAck = options.autoAck();
        this.multiAck = options.multiAck();
        this.txSize = options.txSize();
        this.reused = ReceiveBuffer.copyingUpTo(messageSize, COPY_LIMIT);
        channel.addShutdownListener(this);
        connection.addShutdownListener(this);
    }

    @Override
    public String destination() {
        return queue;
    }

    @Override
    public int poll(MessageHandler h, long timeoutMs) throws IOException {
        if (ended != null) {
            throw new IllegalStateException("this subscriber was started in push mode: it cannot be polled");
        }
        if (handler != h) {
            boolean first = handler == null;
            handler = h;
            if (first) {
                // the delivery thread is created here, by the caller's thread, so it inherits the
                // caller's CPU affinity (the receiver pins its thread before polling, D3/M5)
                executor.own("msgscope-amqp-consumer");
                startConsuming();
            }
        }
        if (lost) {
            reconnect();
        }
        final long seen = lastPolled;
        long d = delivered;
        if (d == seen && closeReason == null && timeoutMs > 0) {
            final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
            while ((d = delivered) == seen && closeReason == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                // the delivery thread never wakes this one: nothing on its path but a volatile write
                LockSupport.parkNanos(this, Math.min(left, WAIT_SLICE_NS));
            }
            d = delivered;
        }
        if (d == seen) {
            if (closeReason == null && !lost) {
                checkWhenIdle();
            }
            if (closeReason != null) {
                return -1;
            }
            return 0;
        }
        lastPolled = d;
        lastChangeNs = 0;
        return (int) (d - seen);
    }

    /**
     * RabbitMQ tells a consumer that its queue was deleted (basic.cancel); Qpid Broker-J does not, the
     * channel simply goes quiet. So once nothing was delivered for {@link #IDLE_CHECK_NS}, and at most
     * that often, poll asks the broker whether the queue still exists: a passive queue.declare, run on
     * the delivery thread so that it never overlaps that thread's own acks and commits on the channel
     * (404 NOT_FOUND closes the channel, and the reason is kept). Only on the idle path.
     */
    private void checkWhenIdle() {
        final long now = System.nanoTime();
        if (lastChangeNs == 0) {
            lastChangeNs = now;
            return;
        }
        if (now - lastChangeNs < IDLE_CHECK_NS || now - lastCheckNs < IDLE_CHECK_NS || idleCheckPending) {
            return;
        }
        lastCheckNs = now;
        idleCheckPending = true;
        try {
            executor.execute(idleCheck);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            idleCheckPending = false; // closing
        }
    }

    private void queueStillThere() {
        try {
            channel.queueDeclarePassive(queue);
        } catch (IOException | ShutdownSignalException e) {
            ShutdownSignalException s = AmqpConnections.shutdownCause(e);
            if (s != null && AmqpConnections.replyCode(s) == 404 && closeReason == null) {
                end("amqp: queue '" + queue + "' no longer exists at " + address + " (it was deleted): "
                        + AmqpConnections.closeReason(s));
            } else if (closeReason == null && !closing) {
                shutdownCompleted(s != null ? s : new ShutdownSignalException(false, false, null, channel,
                        AmqpConnections.describe(e), e));
            }
        } finally {
            idleCheckPending = false;
        }
    }

    private void startConsuming() throws IOException {
        try {
            consumerTag = channel.basicConsume(queue, autoAck, "", false, false,
                    QueueTypes.consumeArguments(options.queueType()), this);
        } catch (IOException | ShutdownSignalException e) {
            ShutdownSignalException s = AmqpConnections.shutdownCause(e);
            throw new IOException("amqp: cannot consume from queue '" + queue + "' at " + address + ": "
                    + (s != null ? AmqpConnections.explain(s, options) : AmqpConnections.describe(e)), e);
        }
    }

    /**
     * Push delivery (issue 13): basic.consume now, every delivery handed to {@code h} on the agent's shared
     * dispatch threads, first thing in amqp-client's callback. A refused basic.consume, like a later end of the
     * subscription, is reported through {@code ended} (once, one line), not thrown.
     */
    @Override
    public void start(MessageHandler h, java.util.function.Consumer<String> ended) {
        if (handler != null) {
            throw new IllegalStateException("this subscriber was already started or polled");
        }
        this.ended = ended;
        handler = h;
        String early = closeReason;
        if (early != null) { // the connection ended before start
            reportEnd(early);
            return;
        }
        try {
            startConsuming();
        } catch (IOException e) {
            end(e.getMessage());
        }
    }

    /** Keeps the first reason the subscription ended and tells the push-mode caller, once. */
    private void end(String reason) {
        if (closeReason == null) {
            closeReason = reason;
        }
        reportEnd(closeReason);
    }

    private void reportEnd(String reason) {
        java.util.function.Consumer<String> e = ended;
        if (e != null && !closing && endReported.compareAndSet(false, true)) {
            e.accept(reason);
        }
    }

    // ---- amqp-client callbacks (the consumer thread) ----

    @Override
    public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
        deliver(firstChannel, envelope, body);
    }

    /** One delivery that came on channel {@code ch}: handed over first, then acknowledged on {@code ch}. */
    private void deliver(Channel ch, Envelope envelope, byte[] body) {
        if (paused) {
            awaitResume();
        }
        final int n = body.length;
        if (n >= WireHeader.SIZE) {
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
        while (paused && !closing && closeReason == null) {
            LockSupport.parkNanos(this, WAIT_SLICE_NS);
        }
    }

    @Override
    public void pause() {
        paused = true;
    }

    @Override
    public void resume() {
        paused = false;
    }

    private void acknowledge(Channel channel, long deliveryTag) {
        if (channel != ackChannel) { // the first delivery on a channel got back by a reconnect
            ackChannel = channel;
            unacked = 0;
            inTx = 0;
        }
        if (reopen != null && !channel.isOpen()) {
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
            if (reopen == null || !(e instanceof ShutdownSignalException s && AmqpReconnect.survivable(s))) {
                errors++; // an ack lost with a connection that comes back is not one: the broker redelivers
            } // the shutdown listener keeps the reason; later batches ack and commit as usual
            unacked = 0;
            inTx = 0;
        }
    }

    @Override
    public void handleCancel(String consumerTag) {
        end("amqp: the broker cancelled the consumer of queue '" + queue + "' at " + address
                + " (the queue was deleted)");
    }

    @Override
    public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
        shutdownCompleted(sig);
    }

    @Override
    public void shutdownCompleted(ShutdownSignalException cause) {
        Object ref = cause.getReference();
        if (ref != connection && ref != channel) {
            return; // a connection this subscriber left after a reconnect
        }
        if (reopen != null && ended == null && !closing && AmqpReconnect.survivable(cause)) {
            if (!lost) {
                lostSinceNs = System.nanoTime();
                lost = true; // the next poll reconnects
            }
            return;
        }
        if (!cause.isInitiatedByApplication() && !closing && closeReason == null) {
            String r = AmqpConnections.explain(cause, options);
            end(AmqpConnections.replyCode(cause) == 404
                    ? "amqp: queue '" + queue + "' at " + address + " is gone (deleted?): " + r
                    : "amqp: " + address + ": " + r);
        }
    }

    /**
     * reconnect=true, the receiver's thread: opens the connection again (at most every {@link AmqpReconnect#WAIT_NS}),
     * declares the queue again and consumes it; after {@link AmqpReconnect#GIVE_UP_NS} without success the
     * subscription ends as it would have without the option.
     */
    private void reconnect() {
        long now = System.nanoTime();
        if (now - lastAttemptNs < AmqpReconnect.WAIT_NS) {
            return;
        }
        lastAttemptNs = now;
        AmqpReconnect.abandon(connection);
        try {
            AmqpReconnect.Link l = reopen.open();
            connection = l.connection();
            channel = l.channel();
            lost = false; // before the listeners: one added to a connection already lost is called at once
            l.channel().addShutdownListener(this);
            l.connection().addShutdownListener(this);
            consumerTag = l.channel().basicConsume(queue, autoAck, "", false, false,
                    QueueTypes.consumeArguments(options.queueType()), new Resumed(l.channel()));
            reconnects++;
        } catch (IOException | ShutdownSignalException e) {
            lost = true;
            if (now - lostSinceNs > AmqpReconnect.GIVE_UP_NS) {
                end("amqp: the subscriber could not reconnect to " + address + " within "
                        + AmqpReconnect.GIVE_UP_NS / 1_000_000_000L + " s: " + AmqpConnections.describe(e));
            }
        }
    }

    /** The consumer of a channel got back by a reconnect: this subscriber's callbacks, acknowledging on it. */
    private final class Resumed extends com.rabbitmq.client.DefaultConsumer {
        Resumed(Channel ch) {
            super(ch);
        }

        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
            deliver(getChannel(), envelope, body);
        }

        @Override
        public void handleCancel(String tag) {
            AmqpSubscriber.this.handleCancel(tag);
        }

        @Override
        public void handleShutdownSignal(String tag, ShutdownSignalException sig) {
            shutdownCompleted(sig);
        }
    }

    @Override
    public void handleConsumeOk(String consumerTag) {
    }

    @Override
    public void handleCancelOk(String consumerTag) {
    }

    @Override
    public void handleRecoverOk(String consumerTag) {
    }

    /**
     * The exclusive queues of this JVM's subscribers and their connections: only its own connection may passive-declare
     * such a queue, so a backlog probe reads it there (scenario mode, issue 31 item 3).
     */
    private static final java.util.concurrent.ConcurrentHashMap<String, Connection> EXCLUSIVE =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Notes that {@code queue} is exclusive to {@code c}; returns the queue. */
    static String exclusive(String queue, Connection c) {
        EXCLUSIVE.put(queue, c);
        return queue;
    }

    /** The connection that holds exclusive {@code queue} in this JVM, or null. */
    static Connection exclusiveOwner(String queue) {
        return EXCLUSIVE.get(queue);
    }

    /** Why the broker ended the subscription (queue deleted, channel or connection closed), or null. */
    @Override
    public String closeReason() {
        return closeReason;
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>();
        long d = delivered; // volatile read first: the consumer thread's counts are visible after it
        c.put("errors", errors + (closeReason != null ? 1 : 0));
        c.put("short_payloads", shortPayloads);
        c.put("redelivered", redelivered);
        c.put("consumer_tx_commits", txCommits);
        c.put("broker_closed", closeReason != null ? 1L : 0L);
        if (reopen != null) {
            c.put(io.msgscope.core.driver.Reconnects.SUBSCRIBER_RECONNECTS, reconnects);
        }
        return c;
    }

    @Override
    public InetAddress localAddress() {
        return connection instanceof com.rabbitmq.client.impl.AMQConnection c ? c.getLocalAddress() : null;
    }

    /** The queue this subscriber consumes (server-named, or the group's). */
    String queue() {
        return queue;
    }

    /**
     * Closes the connection (its exclusive queue goes with it). A group's shared queue is deleted by the last of
     * its subscribers to leave: its own consumer cancelled, a queue with no other consumer is deleted; the broker's
     * auto-delete covers subscribers that leave together.
     */
    @Override
    public void close() throws IOException {
        closing = true;
        EXCLUSIVE.remove(queue);
        try {
            if (!group.isEmpty() && connection.isOpen() && channel.isOpen()) {
                deleteGroupQueueIfLast();
            } else if (group.isEmpty() && (options.queueType().durable() || reopen != null) && connection.isOpen()) {
                deleteOwnQueue();
            }
            if (connection.isOpen()) {
                connection.close(AmqpConnections.CLOSE_TIMEOUT_MS);
            }
        } catch (ShutdownSignalException | IOException e) {
            // closing anyway
        } finally {
            connection.abort(AmqpConnections.CLOSE_TIMEOUT_MS);
            executor.shutdownNow();
        }
    }

    /**
     * A quorum or stream queue of this subscriber's own is durable and named, so nothing removes it with the
     * connection: deleted here, on a fresh channel when the broker closed the consuming one (issue 19).
     */
    private void deleteOwnQueue() {
        try {
            String tag = consumerTag;
            if (tag != null && channel.isOpen()) {
                channel.basicCancel(tag);
            }
            Channel ch = channel.isOpen() ? channel : connection.createChannel();
            ch.queueDelete(queue);
        } catch (IOException | ShutdownSignalException e) {
            // the broker closed the connection: the queue expires (quorum) or stays named in the log (stream)
            System.err.println("amqp: could not delete queue '" + queue + "' at " + address + ": "
                    + AmqpConnections.describe(e) + "; remove it with: rabbitmqctl delete_queue " + queue);
        }
    }

    private void deleteGroupQueueIfLast() {
        try {
            String tag = consumerTag;
            if (tag != null) {
                channel.basicCancel(tag);
            }
            if (channel.queueDeclarePassive(queue).getConsumerCount() == 0) {
                channel.queueDelete(queue);
            }
        } catch (IOException | ShutdownSignalException e) {
            // gone already (auto-delete), or the broker closed the channel: the connection closes anyway
        }
    }
}
