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
 * <p>{@link #offer} (the scenario runtime's pacers, issue 13) never waits: it refuses the message (false)
 * while the confirm window is full, while a tx.commit is unanswered (commits are sent with
 * {@code asyncCompletableRpc}; RabbitMQ refuses a publish during one, 504 CHANNEL_ERROR), and while the
 * connection's outgoing frame queue (amqp-client NIO, drained by the shared I/O loop) lacks room for the
 * message's frames: there amqp-client's basic.publish would block.
 *
 * <p>Counters: messages_acked / messages_nacked (publisher confirms) and returned (basic.return)
 * count measured messages only: those from the first one whose header sequence is >= 0, so the
 * warm-up (negative sequences) does not inflate them.
 */
final class AmqpPublisher implements Publisher, ReturnListener, ShutdownListener {
    private static final long WAIT_SLICE_NS = 1_000_000;
    /** Frames of the write queue left to others than the publishing thread: tx.commit, heartbeats, close. */
    static final int QUEUE_RESERVE = 16;

    private final AmqpOptions options;
    private final String address;
    private final Connection connection;
    private final Channel channel;
    private final AmqpShared.CountingWriteQueue writeQueue;
    private final int queueRoom;
    private final String exchange;
    private final String routingKey;
    private final AMQP.BasicProperties properties;
    private final boolean mandatory;
    private final boolean immediate;
    private final int size;
    private final int txSize;
    /** Message bodies in turn (see {@link #publish}). */
    private final BodyArrays bodies;
    /** Publisher confirms, or null without ({@code confirm=0}). */
    private final ConfirmWindow confirms;
    private volatile long returned;

    // the sending thread's own state
    private long nextTag = 1;
    private int inTx;
    private long txCommits;
    private long errors;
    private java.util.concurrent.CompletableFuture<com.rabbitmq.client.Command> pendingCommit;

    private volatile ShutdownSignalException closedBy;
    private volatile boolean closing;

    /**
     * @param writeQueue the connection's outgoing frame queue, or null when unknown ({@link #offer} then checks
     *                   only the confirm window and the commits)
     */
    AmqpPublisher(AmqpOptions options, String address, Connection connection, Channel channel,
                  AmqpShared.CountingWriteQueue writeQueue, String exchange, String routingKey, int size)
            throws IOException {
        this.options = options;
        this.address = address;
        this.connection = connection;
        this.channel = channel;
        this.writeQueue = writeQueue;
        this.exchange = exchange;
        this.routingKey = routingKey;
        this.size = size;
        this.mandatory = options.mandatory();
        this.immediate = options.immediate();
        this.txSize = options.txSize();
        this.properties = new AMQP.BasicProperties.Builder().deliveryMode(options.persistent() ? 2 : 1).build();
        this.confirms = options.confirm() > 0 ? new ConfirmWindow(options.confirm()) : null;
        int frames = frames(size, connection.getFrameMax());
        this.queueRoom = writeQueue == null ? 0 : writeQueue.capacity() - QUEUE_RESERVE - frames;
        this.bodies = new BodyArrays(size,
                writeQueue == null ? 1 : BodyArrays.bodyArrays(size, frames, writeQueue.capacity()));
        channel.addShutdownListener(this);
        connection.addShutdownListener(this);
        channel.addReturnListener(this);
        if (confirms != null) {
            channel.addConfirmListener(confirms);
            channel.confirmSelect();
        }
        if (txSize > 0) {
            channel.txSelect();
        }
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
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
            if (txSize > 0 && ++inTx == txSize) {
                try {
                    channel.txCommit();
                } catch (ShutdownSignalException | IOException e) {
                    throw failed(e);
                }
                inTx = 0;
                txCommits++;
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
        if (confirms != null && confirms.warmingUp() && body.length >= WireHeader.SIZE
                && WireHeader.sequence(buffer, off) >= 0) {
            confirms.measuredFrom(nextTag); // from here on confirms are counted
        }
        try {
            channel.basicPublish(exchange, routingKey, mandatory, immediate, properties, body);
        } catch (ShutdownSignalException | IOException e) {
            throw failed(e);
        }
        bodies.published(k, writeQueue == null ? 0 : writeQueue.added());
        nextTag++;
    }

    private long writtenFrames() {
        return writeQueue == null ? Long.MAX_VALUE : writeQueue.written();
    }

    /**
     * Waits, woken by the I/O loop after each frame it writes, until the write queue has room for a message
     * ({@code body} false), or until it has written {@code until} frames, freeing a body array ({@code body} true).
     * Waiting here rather than in amqp-client matters: amqp-client waits for room in the queue holding the channel's
     * lock, which the I/O loop needs to finish reading an RPC reply on that channel; the two stalled each other
     * (seen with a full queue right after channel.open-ok, until amqp-client's 10 s enqueuing timeout).
     */
    private void awaitWrites(boolean body, long until) throws IOException {
        final Thread me = Thread.currentThread();
        try {
            while (body ? writeQueue.written() < until : writeQueue.size() > queueRoom) {
                ShutdownSignalException s = closedBy;
                if (s != null) {
                    throw failed(s);
                }
                writeQueue.waiter(me, body ? until : Long.MAX_VALUE, body ? -1 : queueRoom);
                if (body ? writeQueue.written() < until : writeQueue.size() > queueRoom) { // not reached meanwhile
                    LockSupport.parkNanos(this, WAIT_SLICE_NS);
                }
            }
        } finally {
            writeQueue.waiter(null, Long.MAX_VALUE, -1);
        }
    }

    /**
     * Frames amqp-client writes for one message of {@code size} bytes: basic.publish, the content header, and the
     * body cut into frames of at most frameMax - 8 bytes (frameMax 0 = no limit).
     */
    static int frames(int size, int frameMax) {
        int bodyFrame = frameMax > 8 ? frameMax - 8 : Integer.MAX_VALUE;
        return 2 + (size == 0 ? 0 : (int) ((size + (long) bodyFrame - 1) / bodyFrame));
    }

    /**
     * One message, only if it can go without waiting (issue 13): false while the confirm window is full, while the
     * connection's outgoing frame queue is too full to take the message's frames, while every body array is still
     * being written, or while the last tx.commit is unanswered (commits go out without waiting for their answer;
     * the channel publishes nothing until it came). Throws once the channel or connection is gone.
     */
    @Override
    public boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
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
        if (pendingCommit != null && !commitAnswered()) {
            return false; // RabbitMQ closes a channel that publishes while its tx.commit is under way (504)
        }
        int k = bodies.next(writtenFrames());
        if (k < 0) {
            return false;
        }
        publish(buffer, offset, k);
        if (txSize > 0 && ++inTx == txSize) {
            try {
                pendingCommit = channel.asyncCompletableRpc(COMMIT);
            } catch (ShutdownSignalException | IOException e) {
                throw failed(e);
            }
            inTx = 0;
        }
        return true;
    }

    private static final com.rabbitmq.client.Method COMMIT = new AMQP.Tx.Commit.Builder().build();

    /** True when no tx.commit sent by {@link #offer} is outstanding; a failed one is thrown. */
    private boolean commitAnswered() throws IOException {
        java.util.concurrent.CompletableFuture<com.rabbitmq.client.Command> c = pendingCommit;
        if (c == null) {
            return true;
        }
        if (!c.isDone()) {
            return false;
        }
        pendingCommit = null;
        try {
            c.join();
            txCommits++;
            return true;
        } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
            throw failed(e.getCause() instanceof Exception x ? x : e);
        }
    }

    /** Waits until the lowest unconfirmed tag reaches {@code low}; false at the deadline. */
    private boolean awaitWindow(long low, long deadlineNs) throws IOException {
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

    private IOException failed(Exception e) {
        errors++;
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
        try {
            if (pendingCommit != null) {
                try {
                    pendingCommit.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    txCommits++;
                } catch (java.util.concurrent.TimeoutException e) {
                    errors++;
                    throw new IOException("amqp: a tx.commit still unanswered by " + address + " after " + timeoutMs
                            + " ms");
                } catch (java.util.concurrent.ExecutionException e) {
                    throw failed(e.getCause() instanceof Exception x ? x : e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("amqp: interrupted while waiting for a tx.commit", e);
                } finally {
                    pendingCommit = null;
                }
            }
            if (txSize > 0 && inTx > 0) {
                channel.txCommit();
                inTx = 0;
                txCommits++;
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
        if (!cause.isInitiatedByApplication() && !closing) {
            if (closedBy == null) {
                closedBy = cause;
            }
            if (confirms != null) {
                confirms.wake();
            }
        }
    }

    /** The broker's reason when it closed the channel or connection, else null. */
    String closeReason() {
        ShutdownSignalException s = closedBy;
        return s == null ? null : AmqpConnections.explain(s, options);
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>();
        long acked = confirms == null ? 0 : confirms.acked();
        long nacked = confirms == null ? 0 : confirms.nacked();
        c.put("messages_acked", acked);
        c.put("messages_nacked", nacked);
        c.put("returned", returned);
        c.put("producer_tx_commits", txCommits);
        c.put("errors", errors + nacked); // failed operations and nacked messages
        return c;
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
