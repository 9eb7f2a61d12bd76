package io.msgscope.driver.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.LockSupport;

/**
 * The consuming side (A1, A2): its own connection with one channel, a server-named, auto-delete, non-durable,
 * non-exclusive queue bound only to the default exchange, basic.consume on it. Routed by topic ({@code --opt topic},
 * scenario mode): a server-named, exclusive, auto-delete queue of its own, or with {@code --opt group} the group's
 * shared named queue, bound to the exchange with the topic. With reconnect=true every queue is named (see below).
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
 * <p>The delivery and acknowledgement path is {@link SubscriberDeliveries}; the closing path {@link SubscriberQueues}.
 * <p>With {@code --opt reconnect=true} (issue 32 item 3) a lost connection ({@link AmqpReconnect#survivable}) does not
 * end the subscription ({@link SubscriberReconnect}): it is opened again every {@link AmqpReconnect#WAIT_NS} (poll
 * mode: by the next polls; push mode: by the agent's retry thread, {@link AmqpShared#retries}), the queue declared and
 * bound again under its name and consumed ({@code subscriber_reconnects}); {@code ended} is not called meanwhile, only
 * when the attempts give up ({@link AmqpReconnect#GIVE_UP_NS}) or the subscription really ends. Each delivery is
 * acknowledged on the channel it came on: what the lost channel delivered and had not acknowledged the broker delivers
 * again (counted {@code redelivered}, a duplicate in the trace when the handler had it); with auto-ack what was on its
 * way is lost, and counted lost.
 */
final class AmqpSubscriber implements Subscriber, Consumer, ShutdownListener {
    private static final long WAIT_SLICE_NS = 1_000_000;

    private final AmqpOptions options;
    private final String address;
    private volatile Connection connection;
    private volatile Channel channel;
    /** The channel the subscriber was opened with (its deliveries come to this object's own callbacks). */
    private final Channel firstChannel;
    /** reconnect=true: opens the connection and channel again and declares the queue; else null. */
    private final AmqpReconnect.Opener reopen;
    /** reconnect=true: where the connection stands; else null. */
    private final SubscriberReconnect reconnect;
    /** reconnect=true, push mode: runs the attempts ({@link AmqpShared#retries}); else null. */
    private final ScheduledExecutorService retries;
    private final AmqpDispatch executor;
    private final String queue;
    private final String group;
    private final SubscriberDeliveries deliveries;

    private volatile java.util.function.Consumer<String> ended;
    private final java.util.concurrent.atomic.AtomicBoolean endReported = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile String consumerTag;
    private volatile String closeReason;
    private volatile boolean closing;
    private long lastPolled;
    private final IdleQueueCheck idleCheck;

    AmqpSubscriber(AmqpOptions options, String address, Connection connection, Channel channel,
                   AmqpDispatch executor, String queue, int messageSize, AmqpReconnect.Opener reopen,
                   ScheduledExecutorService retries) {
        this.options = options;
        this.address = address;
        this.connection = connection;
        this.channel = channel;
        this.firstChannel = channel;
        this.reopen = options.reconnect() ? reopen : null;
        this.reconnect = this.reopen != null ? new SubscriberReconnect() : null;
        this.retries = retries;
        this.executor = executor;
        this.queue = queue;
        this.group = options.group();
        this.idleCheck = new IdleQueueCheck(executor, this::queueStillThere);
        this.deliveries = new SubscriberDeliveries(options, messageSize, channel,
                () -> closing || closeReason != null);
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
        if (deliveries.handler != h) {
            boolean first = deliveries.handler == null;
            deliveries.handler = h;
            if (first) {
                // the delivery thread is created here, by the caller's thread, so it inherits the
                // caller's CPU affinity (the receiver pins its thread before polling, D3/M5)
                executor.own("msgscope-amqp-consumer");
                startConsuming();
            }
        }
        if (reconnect != null && reconnect.due(System.nanoTime())) {
            reconnectOnce();
        }
        final long seen = lastPolled;
        long d = deliveries.delivered();
        if (d == seen && closeReason == null && timeoutMs > 0) {
            final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
            while ((d = deliveries.delivered()) == seen && closeReason == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                // the delivery thread never wakes this one: nothing on its path but a volatile write
                LockSupport.parkNanos(this, Math.min(left, WAIT_SLICE_NS));
            }
            d = deliveries.delivered();
        }
        if (d == seen) {
            if (closeReason == null && (reconnect == null || !reconnect.reconnecting())) {
                idleCheck.idle(System.nanoTime());
            }
            if (closeReason != null) {
                return -1;
            }
            return 0;
        }
        lastPolled = d;
        idleCheck.delivered();
        return (int) (d - seen);
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
        }
    }

    private void startConsuming() throws IOException {
        try {
            Channel ch = channel; // a channel got back before start is consumed as the reconnect's would be
            consumerTag = ch.basicConsume(queue, options.autoAck(), "", false, false,
                    QueueTypes.consumeArguments(options.queueType()), ch == firstChannel ? this : new SubscriberDeliveries.Resumed(ch, deliveries, this));
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
        if (deliveries.handler != null) {
            throw new IllegalStateException("this subscriber was already started or polled");
        }
        this.ended = ended;
        deliveries.handler = h;
        String early = closeReason;
        if (early != null) { // the connection ended before start
            reportEnd(early);
            return;
        }
        if (reconnect != null && reconnect.reconnecting()) {
            return; // lost before start: the attempts under way consume the queue once it is back
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
        deliveries.deliver(firstChannel, envelope, body);
    }

    @Override
    public void pause() {
        deliveries.paused = true;
    }

    @Override
    public void resume() {
        deliveries.paused = false;
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
        if (reconnect != null && !closing && AmqpReconnect.survivable(cause)) {
            if (reconnect.lost(System.nanoTime()) && ended != null) {
                retryLater(0); // push mode: the retry thread reconnects; poll mode: the next poll
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

    /** Push mode: one attempt on the retry thread in {@code delayNs} (never on amqp-client's own threads). */
    private void retryLater(long delayNs) {
        try {
            retries.schedule(this::retry, delayNs, java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            end("amqp: the subscriber to " + address + " lost its connection while the agent closed");
        }
    }

    private void retry() {
        if (!closing && reconnect.reconnecting() && !reconnectOnce()) {
            if (reconnect.reconnecting()) {
                retryLater(AmqpReconnect.WAIT_NS);
            }
        }
    }

    /**
     * reconnect=true, one attempt (poll mode: the receiver's thread; push mode: the retry thread): opens the
     * connection again, declares and binds the queue again and consumes it; true when it is back. After
     * {@link AmqpReconnect#GIVE_UP_NS} without success the subscription ends as it would have without the option.
     */
    private boolean reconnectOnce() {
        long now = System.nanoTime();
        reconnect.attempting(now);
        AmqpReconnect.abandon(connection);
        try {
            AmqpReconnect.Link l = reopen.open();
            if (closing) { // closed while this attempt connected (the retry thread): nothing may outlive close
                AmqpReconnect.abandon(l.connection());
                return false;
            }
            connection = l.connection();
            channel = l.channel();
            l.channel().addShutdownListener(this); // one lost already is called at once: LOST stays, and so we fail
            l.connection().addShutdownListener(this);
            if (deliveries.handler != null) {
                consumerTag = l.channel().basicConsume(queue, options.autoAck(), "", false, false,
                        QueueTypes.consumeArguments(options.queueType()), new SubscriberDeliveries.Resumed(l.channel(), deliveries, this));
            }
            reconnect.back();
            if (!l.channel().isOpen() && reconnect.lost(System.nanoTime()) && ended != null) {
                retryLater(AmqpReconnect.WAIT_NS); // lost again between the consume and back()
            }
            return true;
        } catch (IOException | ShutdownSignalException e) {
            if (reconnect.failed(now)) {
                end("amqp: the subscriber could not reconnect to " + address + " within "
                        + AmqpReconnect.GIVE_UP_NS / 1_000_000_000L + " s: " + AmqpConnections.describe(e));
            }
            return false;
        }
    }

    @Override
    public void handleConsumeOk(String consumerTag) { // nothing to do: basicConsume returned the tag
    }

    @Override
    public void handleCancelOk(String consumerTag) { // closing
    }

    @Override
    public void handleRecoverOk(String consumerTag) { // never asked for
    }

    /** Why the broker ended the subscription (queue deleted, channel or connection closed), or null. */
    @Override
    public String closeReason() {
        return closeReason;
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>();
        deliveries.delivered(); // volatile read first: the consumer thread's counts are visible after it
        c.put("errors", deliveries.errors() + (closeReason != null ? 1 : 0));
        c.put("short_payloads", deliveries.shortPayloads());
        c.put("redelivered", deliveries.redelivered());
        c.put("consumer_tx_commits", deliveries.txCommits());
        c.put("broker_closed", closeReason != null ? 1L : 0L);
        if (reconnect != null) {
            c.put(io.msgscope.core.driver.Reconnects.SUBSCRIBER_RECONNECTS, reconnect.reconnects());
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
     * its subscribers to leave ({@link SubscriberQueues#deleteGroupQueueIfLast}); a named queue of its own by this
     * subscriber ({@link SubscriberQueues#deleteOwn}).
     */
    @Override
    public void close() throws IOException {
        closing = true;
        SubscriberQueues.closed(queue);
        try {
            if (!group.isEmpty() && connection.isOpen() && channel.isOpen()) {
                SubscriberQueues.deleteGroupQueueIfLast(channel, consumerTag, queue);
            } else if (group.isEmpty() && (options.queueType().durable() || reopen != null) && connection.isOpen()) {
                SubscriberQueues.deleteOwn(connection, channel, consumerTag, queue, address);
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
}
