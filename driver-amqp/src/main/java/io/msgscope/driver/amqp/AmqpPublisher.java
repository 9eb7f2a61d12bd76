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
 *
 * <p>With confirms each measured message's sequence is noted by tag, so an ack confirms it ({@code messages_confirmed},
 * {@code messages_unconfirmed}; issue 32 item 3) and the coordinator tells a lost message the broker had confirmed, a
 * guarantee violation with manual acks, from one it never had. With {@code --opt reconnect=true} a lost connection is
 * opened again ({@link AmqpReconnect}) and the measured messages still unconfirmed at the loss are published again
 * at once, those nacked in paced rounds ({@link Resends}) ({@code messages_republished}; each then may arrive twice, a
 * duplicate in the trace); each message is then
 * copied into a fresh array kept until it is confirmed (one allocation per message).
 */
final class AmqpPublisher implements Publisher, ReturnListener, ShutdownListener {
    private static final long WAIT_SLICE_NS = 1_000_000;
    /** Frames of the write queue left to others than the publishing thread: tx.commit, heartbeats, close. */
    static final int QUEUE_RESERVE = 16;

    private final AmqpOptions options;
    private final String address;
    private volatile Connection connection;
    private volatile Channel channel;
    private AmqpShared.CountingWriteQueue writeQueue;
    /** reconnect=true: opens the connection and channel again; else null. */
    private final AmqpReconnect.Opener reopen;
    private final io.msgscope.core.driver.Confirmations confirmations;
    private long reconnects;
    /** Acks and nacks counted by the confirm windows of channels lost before the current one. */
    private long ackedBefore;
    private long nackedBefore;
    /** reconnect=true, sender thread: the messages to publish, those sent again first; else null. */
    private final Resends resends;
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
    private ConfirmWindow confirms;
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
    AmqpPublisher(AmqpOptions options, String address, AmqpReconnect.Link link, AmqpReconnect.Opener reopen,
                  String exchange, String routingKey, int size) throws IOException {
        this.options = options;
        this.address = address;
        this.reopen = options.reconnect() ? reopen : null;
        this.confirmations = options.confirm() > 0 ? new io.msgscope.core.driver.Confirmations() : null;
        this.resends = this.reopen != null ? new Resends(confirmations) : null;
        final Connection connection = link.connection();
        final AmqpShared.CountingWriteQueue writeQueue = link.writeQueue();
        this.exchange = exchange;
        this.routingKey = routingKey;
        this.size = size;
        this.mandatory = options.mandatory();
        this.immediate = options.immediate();
        this.txSize = options.txSize();
        this.properties = new AMQP.BasicProperties.Builder().deliveryMode(options.persistent() ? 2 : 1).build();
        int frames = frames(size, connection.getFrameMax());
        this.queueRoom = writeQueue == null ? 0 : writeQueue.capacity() - QUEUE_RESERVE - frames;
        this.bodies = new BodyArrays(size,
                writeQueue == null ? 1 : BodyArrays.bodyArrays(size, frames, writeQueue.capacity()));
        attach(link);
    }

    /** Takes {@code link} as this publisher's connection and channel: listeners, confirm mode, a fresh confirm window. */
    private void attach(AmqpReconnect.Link link) throws IOException {
        connection = link.connection();
        channel = link.channel();
        writeQueue = link.writeQueue();
        ConfirmWindow previous = confirms;
        if (previous != null) {
            ackedBefore += previous.acked();
            nackedBefore += previous.nacked();
        }
        confirms = options.confirm() > 0 ? new ConfirmWindow(options.confirm(), confirmations, reopen != null) : null;
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
        if (txSize > 0) {
            channel.txSelect();
        }
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        if (reopen != null) {
            sendAgain(buffer, offset, length);
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
        long seq = body.length >= WireHeader.SIZE ? WireHeader.sequence(buffer, off) : -1;
        if (confirms != null && confirms.warmingUp() && seq >= 0) {
            confirms.measuredFrom(nextTag); // from here on confirms are counted
        }
        if (confirms != null) {
            confirmations.sent(seq);
            confirms.track(nextTag, seq, null);
        }
        try {
            channel.basicPublish(exchange, routingKey, mandatory, immediate, properties, body);
        } catch (ShutdownSignalException | IOException e) {
            throw failed(e);
        }
        bodies.published(k, writeQueue == null ? 0 : writeQueue.added());
        nextTag++;
    }

    // ---- reconnect=true (issue 32 item 3) ----

    /** Each message copied into an array of its own (kept until confirmed) and published; see {@link #sendAll}. */
    private void sendAgain(ByteBuffer buffer, int offset, int length) throws IOException {
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            byte[] body = new byte[size];
            buffer.get(off, body, 0, size);
            long seq = size >= WireHeader.SIZE ? WireHeader.sequence(buffer, off) : -1;
            if (confirmations != null) {
                confirmations.sent(seq);
            }
            resends.add(seq, body);
        }
        queueNacked();
        sendAll();
    }

    /** The measured messages the broker nacked go out again first, in rounds paced by {@link Resends}. */
    private void queueNacked() {
        resends.nackedIfDue(confirms, confirmedSoFar(), System.nanoTime());
    }

    /**
     * Publishes what {@link #resends} holds, each once there is room; a lost connection is got back ({@link #recover})
     * and what it left unconfirmed goes out again first. A message leaves the queue only as it is published: one
     * that failed while waiting for room is still there, one whose publish failed is among the unconfirmed.
     */
    private void sendAll() throws IOException {
        while (!resends.isEmpty()) {
            try {
                if (confirms != null && confirms.full(nextTag)) {
                    awaitWindow(nextTag - confirms.size() + 1, Long.MAX_VALUE);
                }
                if (writeQueue != null && writeQueue.size() > queueRoom) {
                    awaitWrites(false, 0);
                }
                ConfirmWindow.Pending p = resends.head();
                if (confirms != null) {
                    if (confirms.warmingUp() && p.seq() >= 0) {
                        confirms.measuredFrom(nextTag);
                    }
                    confirms.track(nextTag, p.seq(), p.body());
                }
                try {
                    channel.basicPublish(exchange, routingKey, mandatory, immediate, properties, p.body());
                } catch (com.rabbitmq.client.AlreadyClosedException e) { // refused before a byte went out
                    if (confirms != null) {
                        confirms.untrack(nextTag);
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
        nextTag++;
    }

    /**
     * After a failure: when the connection was lost ({@link AmqpReconnect#survivable}), puts the measured messages
     * it left unconfirmed (outstanding or nacked) at the head of {@link #resends}, opens the connection again (the same
     * URI, every {@link AmqpReconnect#WAIT_NS}) and counts a reconnect; any other failure is thrown as without the
     * option, counted in {@code errors}.
     */
    private void recover(Exception e) throws IOException {
        ShutdownSignalException s = closedBy != null ? closedBy : AmqpConnections.shutdownCause(e);
        if (s == null) { // a write failed before amqp-client noticed the connection's end: give it a moment
            long until = System.nanoTime() + AmqpConnections.CLOSE_TIMEOUT_MS * 1_000_000L;
            while (connection.isOpen() && System.nanoTime() < until) {
                LockSupport.parkNanos(WAIT_SLICE_NS);
            }
            s = closedBy != null ? closedBy : connection.getCloseReason();
        }
        if (closing || !AmqpReconnect.survivable(s)) {
            errors++;
            throw e instanceof IOException io ? io : failed(e);
        }
        long deadline = System.nanoTime() + AmqpReconnect.GIVE_UP_NS;
        while (true) {
            if (confirms != null) {
                resends.firstAgain(confirms.outstanding(nextTag));
            }
            AmqpReconnect.abandon(connection);
            AmqpReconnect.Link link;
            try {
                link = AmqpReconnect.reopen(reopen, deadline, "publisher");
            } catch (IOException x) {
                errors++; // gave up: the run fails as it would have without the option
                throw x;
            }
            try {
                attach(link);
                reconnects++;
                return;
            } catch (ShutdownSignalException | IOException x) {
                if (System.nanoTime() - deadline > 0) {
                    errors++;
                    throw failed(x);
                }
                // lost again while confirm mode was set up: the new window holds nothing yet; try again
            }
        }
    }

    /**
     * Waits for every confirm, publishing again what is nacked or left unconfirmed by a lost connection, until
     * {@code deadlineNs}; what is still unconfirmed then is counted {@code messages_unconfirmed}, not thrown.
     */
    private void drainAgain(long deadlineNs) throws IOException {
        while (true) {
            try {
                queueNacked();
                sendAll();
                if (confirms != null && !awaitWindow(nextTag, deadlineNs)) {
                    return;
                }
                if (confirms != null && confirms.hasNacked()) {
                    if (System.nanoTime() - deadlineNs > 0) {
                        return; // what is nacked still is counted unconfirmed
                    }
                    LockSupport.parkNanos(WAIT_SLICE_NS); // until its round is due
                    continue;
                }
                channel.basicQos(0); // one round trip: every basic.return is in
                return;
            } catch (ShutdownSignalException | IOException e) {
                if (System.nanoTime() - deadlineNs > 0) {
                    return;
                }
                recover(e);
            }
        }
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
        if (reopen == null) {
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
        if (reopen != null) {
            drainAgain(deadline);
            return;
        }
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

    /** The broker's reason when it closed the channel or connection, else null. */
    String closeReason() {
        ShutdownSignalException s = closedBy;
        return s == null ? null : AmqpConnections.explain(s, options);
    }

    /** Measured messages acked by publisher confirms so far (nacked ones are not in the queue); -1 without. */
    @Override
    public long confirmedSoFar() {
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
        c.put("producer_tx_commits", txCommits);
        c.put("errors", errors + (reopen == null ? nacked : 0)); // failed operations and nacked messages
        if (confirmations != null) {
            c.putAll(confirmations.counters());
        }
        if (reopen != null) {
            c.put(io.msgscope.core.driver.Reconnects.PUBLISHER_RECONNECTS, reconnects);
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
