package io.msgscope.driver.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Publisher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * basic.publish to the default exchange with the subscriber's queue as routing key (A1-A3), or routed by topic
 * ({@code --opt topic}, scenario mode) to the topic exchange with the topic as routing key, on its own
 * connection with one channel. The basic properties are built once (only the delivery mode set).
 * amqp-client in NIO mode queues frames that refer to the body array until the shared I/O loop has
 * written them, so each message is copied into one of this publisher's {@link BodyArrays}, reused once the
 * loop has written past it (two to start with, doubled while the loop lags, up to the write queue's worth or
 * 1 MiB): the sender may overwrite its payload in place at once, and nothing is allocated per message
 * in this code.
 *
 * <p>Publisher confirms ({@link ConfirmWindow}): the sending thread waits (parking, woken by the listener)
 * while the span of unconfirmed tags fills the window of {@code confirm} tags. No locks and no allocation in
 * this code per message.
 *
 * <p>{@link #offer} (the scenario runtime's pacers, issue 13) never waits: it refuses the message (false) while the
 * confirm window is full, while a tx.commit is unanswered, and while the connection's outgoing frame queue (amqp-client
 * NIO, drained by the shared I/O loop) lacks room for the message's frames: there basic.publish would block.
 *
 * <p>Counters: messages_acked / messages_nacked (publisher confirms) and returned (basic.return)
 * count measured messages only: those from the first one whose header sequence is >= 0, so the
 * warm-up (negative sequences) does not inflate them.
 *
 * <p>With confirms each measured message's sequence is noted by tag, so an ack confirms it ({@code messages_confirmed},
 * {@code messages_unconfirmed}; issue 32 item 3) and the coordinator tells a lost message the broker had confirmed, a
 * guarantee violation with manual acks, from one it never had. With {@code --opt reconnect=true} sending goes through
 * {@link PublisherRecovery}, which gets a lost connection back and publishes again what it left unconfirmed; the
 * transactions are {@link PublisherTransactions}'.
 */
final class AmqpPublisher implements Publisher, ReturnListener, ShutdownListener {
    private static final long WAIT_SLICE_NS = 1_000_000;
    /** Frames of the write queue left to others than the publishing thread: tx.commit, heartbeats, close. */
    static final int QUEUE_RESERVE = 16;

    private final AmqpOptions options;
    private final String address;
    // the fields and methods without private are shared with PublisherRecovery (the reconnect path)
    volatile Connection connection;
    volatile Channel channel;
    AmqpShared.CountingWriteQueue writeQueue;
    final io.msgscope.core.driver.Confirmations confirmations;
    /** Acks and nacks counted by the confirm windows of channels lost before the current one. */
    private long ackedBefore;
    private long nackedBefore;
    /** reconnect=true: the sending thread's reconnect path; else null. */
    private final PublisherRecovery recovery;
    final int queueRoom;
    private final String exchange;
    private final String routingKey;
    private final AMQP.BasicProperties properties;
    final int size;
    private final PublisherTransactions transactions;
    /** Message bodies in turn (see {@link #publish}). */
    private final BodyArrays bodies;
    /** Publisher confirms, or null without ({@code confirm=0}). */
    ConfirmWindow confirms;
    private volatile long returned;

    // the sending thread's own state
    long nextTag = 1;
    long errors;

    volatile ShutdownSignalException closedBy;
    volatile boolean closing;

    /** {@code link}'s write queue may be null (blocking I/O): {@link #offer} then checks the window and the commits only. */
    AmqpPublisher(AmqpOptions options, String address, AmqpReconnect.Link link, AmqpReconnect.Opener reopen,
                  String exchange, String routingKey, int size) throws IOException {
        this.options = options;
        this.address = address;
        this.confirmations = options.confirm() > 0 ? new io.msgscope.core.driver.Confirmations() : null;
        this.recovery = options.reconnect() ? new PublisherRecovery(this, reopen, confirmations) : null;
        final Connection connection = link.connection();
        final AmqpShared.CountingWriteQueue writeQueue = link.writeQueue();
        this.exchange = exchange;
        this.routingKey = routingKey;
        this.size = size;
        this.transactions = new PublisherTransactions(options.txSize());
        this.properties = new AMQP.BasicProperties.Builder().deliveryMode(options.persistent() ? 2 : 1).build();
        int frames = BodyArrays.frames(size, connection.getFrameMax());
        this.queueRoom = writeQueue == null ? 0 : writeQueue.capacity() - QUEUE_RESERVE - frames;
        this.bodies = new BodyArrays(size,
                writeQueue == null ? 1 : BodyArrays.bodyArrays(size, frames, writeQueue.capacity()));
        attach(link);
    }

    /** Takes {@code link} as this publisher's connection and channel: listeners, confirm mode, a fresh confirm window. */
    void attach(AmqpReconnect.Link link) throws IOException {
        connection = link.connection();
        channel = link.channel();
        writeQueue = link.writeQueue();
        ConfirmWindow previous = confirms;
        if (previous != null) {
            ackedBefore += previous.acked();
            nackedBefore += previous.nacked();
        }
        confirms = options.confirm() > 0 ? new ConfirmWindow(options.confirm(), confirmations, options.reconnect()) : null;
        if (previous != null && !previous.warmingUp()) {
            confirms.measuredFrom(1);
        }
        nextTag = 1;
        closedBy = null;
        channel.addShutdownListener(this);
        connection.addShutdownListener(this);
        channel.addReturnListener(this);
        if (confirms != null) {
            channel.addConfirmListener(confirms);
            channel.confirmSelect();
        }
        if (options.txSize() > 0) {
            channel.txSelect();
        }
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        if (recovery != null) {
            recovery.send(buffer, offset, length);
            return;
        }
        final int sz = size;
        final int end = offset + length;
        for (int off = offset; off < end; off += sz) {
            if (confirms != null && confirms.full(nextTag)) {
                awaitWindow(nextTag - confirms.size() + 1, Long.MAX_VALUE);
            }
            if (writeQueue != null && writeQueue.size() > queueRoom) {
                awaitWrites(false, 0);
            }
            int k = bodies.next(writtenFrames());
            if (k < 0) {
                k = bodies.oldest();
                awaitWrites(true, bodies.end(k));
            }
            publish(buffer, off, k);
            try {
                transactions.published(channel);
            } catch (ShutdownSignalException | IOException e) {
                throw failed(e);
            }
        }
    }

    /**
     * Copies the message at {@code off} into body array {@code k} and publishes it. amqp-client's NIO frames refer
     * to that array until the I/O loop has written them (no copy of its own), so the array is reused only once the
     * connection's write queue has written past this message's frames ({@link BodyArrays#published}); the sender's
     * payload buffer is free again at once.
     */
    private void publish(ByteBuffer buffer, int off, int k) throws IOException {
        final byte[] body = bodies.body(k);
        if (buffer.hasArray()) {
            System.arraycopy(buffer.array(), buffer.arrayOffset() + off, body, 0, size);
        } else {
            buffer.get(off, body, 0, size);
        }
        long seq = body.length >= WireHeader.SIZE ? WireHeader.sequence(buffer, off) : -1;
        if (confirms != null && confirms.warmingUp() && seq >= 0) {
            confirms.measuredFrom(nextTag); // from here on confirms are counted
        }
        if (confirms != null) {
            confirmations.sent(seq);
            confirms.track(nextTag, seq, null);
        }
        try {
            publishBody(body);
        } catch (ShutdownSignalException | IOException e) {
            throw failed(e);
        }
        bodies.published(k, writeQueue == null ? 0 : writeQueue.added());
        nextTag++;
    }

    /** One basic.publish of {@code body} on the current channel. */
    void publishBody(byte[] body) throws IOException {
        channel.basicPublish(exchange, routingKey, options.mandatory(), options.immediate(), properties, body);
    }

    private long writtenFrames() {
        return writeQueue == null ? Long.MAX_VALUE : writeQueue.written();
    }

    /** Waits for room in the write queue, or for a body array to be written: {@link AmqpShared.CountingWriteQueue#await}. */
    void awaitWrites(boolean body, long until) throws IOException {
        try {
            writeQueue.await(body, until, queueRoom, () -> closedBy);
        } catch (ShutdownSignalException s) {
            throw failed(s);
        }
    }

    /**
     * One message, only if it can go without waiting (issue 13): false while the confirm window is full, while the
     * connection's outgoing frame queue is too full to take the message's frames, while every body array is still
     * being written, or while the last tx.commit is unanswered (commits go out without waiting for their answer;
     * the channel publishes nothing until it came). Throws once the channel or connection is gone.
     */
    @Override
    public boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        if (recovery != null) {
            return recovery.offer(buffer, offset, length);
        }
        ShutdownSignalException s = closedBy;
        if (s != null) {
            throw failed(s);
        }
        if (confirms != null && confirms.full(nextTag)) {
            return false;
        }
        if (writeQueue != null && writeQueue.size() > queueRoom) {
            return false;
        }
        try {
            if (!transactions.answered()) {
                return false; // RabbitMQ closes a channel that publishes while its tx.commit is under way (504)
            }
        } catch (ShutdownSignalException | IOException e) {
            throw failed(e);
        }
        int k = bodies.next(writtenFrames());
        if (k < 0) {
            return false;
        }
        publish(buffer, offset, k);
        try {
            transactions.offered(channel);
        } catch (ShutdownSignalException | IOException e) {
            throw failed(e);
        }
        return true;
    }

    /** Waits until the lowest unconfirmed tag reaches {@code low}; false at the deadline. */
    boolean awaitWindow(long low, long deadlineNs) throws IOException {
        if (confirms.lowestUnconfirmed() >= low) {
            return true;
        }
        confirms.waiter(Thread.currentThread());
        try {
            while (confirms.lowestUnconfirmed() < low) {
                ShutdownSignalException s = closedBy;
                if (s != null) {
                    throw failed(s);
                }
                long left = deadlineNs - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, Math.min(left, WAIT_SLICE_NS));
            }
            return true;
        } finally {
            confirms.waiter(null);
        }
    }

    IOException failed(Exception e) {
        if (recovery == null) {
            errors++; // reconnect=true: counted by recover, as a reconnect or as the failure it gave up on
        }
        ShutdownSignalException s = e instanceof ShutdownSignalException sse ? sse : AmqpConnections.shutdownCause(e);
        if (s == null) {
            s = closedBy;
        }
        if (s != null) {
            return new IOException("amqp: publishing to " + address + " failed: " + AmqpConnections.explain(s, options), e);
        }
        return new IOException("amqp: publishing to " + address + " failed: " + AmqpConnections.describe(e), e);
    }

    /**
     * Commits an open transaction, waits for every publisher confirm, then makes one round trip to the
     * broker (basic.qos), so every basic.return and channel close the broker sent for the messages
     * published is in before the counters are read.
     */
    @Override
    public void drain(long timeoutMs) throws IOException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        if (recovery != null) {
            recovery.drain(deadline);
            return;
        }
        try {
            if (!transactions.finish(channel, deadline)) {
                errors++;
                throw new IOException("amqp: a tx.commit still unanswered by " + address + " after " + timeoutMs + " ms");
            }
            if (confirms != null && !awaitWindow(nextTag, deadline)) {
                errors++;
                throw new IOException("amqp: " + (nextTag - confirms.lowestUnconfirmed()) + " of " + (nextTag - 1)
                        + " publisher confirms still outstanding from " + address + " after " + timeoutMs + " ms");
            }
            channel.basicQos(0);
        } catch (ShutdownSignalException e) {
            throw failed(e);
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("amqp: ")) {
                throw e;
            }
            throw failed(e);
        }
    }

    // ---- amqp-client callbacks (its connection thread) ----

    @Override
    public void handleReturn(int replyCode, String replyText, String exchange, String key,
                             AMQP.BasicProperties props, byte[] body) {
        // the sequence is little-endian at bytes 8-15: its sign bit is the top bit of byte 15
        if (body.length < WireHeader.SIZE || (body[WireHeader.SEQUENCE_OFFSET + 7] & 0x80) == 0) {
            returned++; // single writer: the connection thread; warm-up messages are not counted
        }
    }

    @Override
    public void shutdownCompleted(ShutdownSignalException cause) {
        Object ref = cause.getReference();
        if (ref != connection && ref != channel) {
            return; // a connection this publisher left after a reconnect
        }
        if (!cause.isInitiatedByApplication() && !closing) {
            if (closedBy == null) {
                closedBy = cause;
            }
            if (confirms != null) {
                confirms.wake();
            }
        }
    }

    /** Measured messages acked by publisher confirms so far (nacked ones are not in the queue); -1 without. */
    @Override
    public long confirmedSoFar() { // PublisherRecovery's too
        return confirms == null ? -1 : ackedBefore + confirms.acked(); // across reconnects, as counters() counts
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>();
        long acked = confirms == null ? 0 : ackedBefore + confirms.acked();
        long nacked = confirms == null ? 0 : nackedBefore + confirms.nacked();
        c.put("messages_acked", acked);
        c.put("messages_nacked", nacked);
        c.put("returned", returned);
        c.put("producer_tx_commits", transactions.commits());
        c.put("errors", errors + (recovery == null ? nacked : 0)); // failed operations and nacked messages
        if (confirmations != null) {
            c.putAll(confirmations.counters());
        }
        if (recovery != null) {
            c.put(io.msgscope.core.driver.Reconnects.PUBLISHER_RECONNECTS, recovery.reconnects());
        }
        return c;
    }

    /** Confirms with manual acks make each confirmed message a promise (issue 32 item 3); auto-ack forgets them. */
    @Override
    public boolean confirms() {
        return confirmations != null && !options.autoAck();
    }

    @Override
    public long[] unconfirmed() {
        return confirms() ? confirmations.unconfirmedRanges() : null;
    }

    @Override
    public void close() throws IOException {
        closing = true;
        try {
            if (connection.isOpen()) {
                connection.close(AmqpConnections.CLOSE_TIMEOUT_MS);
            }
        } catch (ShutdownSignalException | IOException e) {
            // closing anyway
        } finally {
            connection.abort(AmqpConnections.CLOSE_TIMEOUT_MS);
        }
    }
}
