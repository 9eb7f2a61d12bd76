package io.msgscope.driver.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Confirmations;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Reconnects;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * One publisher connection: PUBLISH (pub/sub) or XADD NOMKSTREAM (streams) through Lettuce's asynchronous API on the
 * agent's shared event loops. At most {@code max_inflight} commands wait for their reply; commands are flushed once
 * per {@link #send} batch or {@link #offer}, and before waiting for room. A reply is the broker's ack:
 * {@code messages_acked} counts XADDs that returned an entry id and PUBLISHes that the server took (whether or not
 * a subscriber was there: pub/sub keeps nothing); an XADD to a stream that no longer exists (NOMKSTREAM: the
 * subscribers removed it at the end of a run) is a publish error, so a late publisher never leaves a key behind.
 *
 * <p>Lettuce takes each message as a {@code byte[]} it encodes later on its event loop, so every message is copied
 * into an array of its own: that allocation is the client library's contract, reported by the hot-thread figures.
 *
 * <p>With {@code --opt reconnect=true} (issue 32 item 3) a command that failed because the connection went (not an
 * error reply) keeps its copy aside; the sending thread, finding the connection lost, waits for every command of
 * the lost one to be answered, dials again ({@link RedisReconnect}), then sends the copies again in sequence order
 * before anything new, each counted in {@code messages_republished} (a command that failed once more is sent, and
 * counted, again). An XADD whose reply is an entry id confirms its message ({@code messages_confirmed}); one that
 * was added before the loss and sent again arrives twice, a duplicate the trace counts.
 */
final class RedisPublisher implements Publisher {
    static final byte[] FIELD = "d".getBytes(StandardCharsets.US_ASCII);

    private final RedisSettings settings;
    private final int messageSize;
    private final ClientContext context;
    private volatile StatefulRedisConnection<byte[], byte[]> connection;
    private RedisAsyncCommands<byte[], byte[]> commands; // sending thread
    private final byte[] key;
    private final XAddArgs xadd;
    private final Semaphore window;
    private final AckCounts counts = new AckCounts();
    private final BiConsumer<Object, Throwable> onReply = new Reply(false);
    private final BiConsumer<Object, Throwable> onWarmupReply = new Reply(true);
    /** reconnect=true: measured sequences confirmed; else null. */
    private final Confirmations confirmations;
    /** reconnect=true: what failed with the connection, to send again. */
    private final ConcurrentLinkedQueue<Again> resend = new ConcurrentLinkedQueue<>();
    private long reconnects; // sending thread

    RedisPublisher(RedisSettings s, int messageSize, ClientContext context) throws IOException {
        this.settings = s;
        this.messageSize = messageSize;
        this.key = s.key().getBytes(StandardCharsets.UTF_8);
        this.window = new Semaphore(s.maxInflight());
        XAddArgs a = new XAddArgs().nomkstream();
        if (s.maxlen() > 0) {
            a.maxlen(s.maxlen()).approximateTrimming();
        }
        this.xadd = a;
        this.context = context;
        this.confirmations = s.reconnect() ? new Confirmations() : null;
        open(RedisShared.connect(s, context));
    }

    private void open(StatefulRedisConnection<byte[], byte[]> c) {
        c.setAutoFlushCommands(false);
        commands = c.async();
        connection = c;
    }

    private final class Reply implements BiConsumer<Object, Throwable> {
        private final boolean warmup;

        Reply(boolean warmup) {
            this.warmup = warmup;
        }

        @Override
        public void accept(Object result, Throwable error) {
            replied(warmup, result, error);
        }
    }

    /**
     * A message to send again: {@code wentOut} false when the client refused it as the connection was already lost
     * (it never reached the server: sending it is not counted as republishing).
     */
    private record Again(byte[] copy, long seq, boolean wentOut) {
    }

    /** A command's reply, as {@link Reply}, with reconnect=true: a failure with the connection keeps {@code copy}. */
    private void replied(long seq, byte[] copy, Object result, Throwable error) {
        if (error != null && RedisReconnect.connectionLost(error)) {
            resend.add(new Again(copy, seq, !RedisReconnect.refusedUnsent(error)));
            window.release();
            return;
        }
        if (error == null && result != null) {
            confirmations.confirm(seq);
        }
        replied(seq < 0, result, error);
    }

    /**
     * Counts the reply, then frees its slot: {@link #drain} returns once every slot is free, and the counters read
     * after it must hold every reply (released first, the last one's count could land after the read: RedisIT
     * saw 1,999 of 2,000 acked).
     */
    private void replied(boolean warmup, Object result, Throwable error) {
        if (error != null) {
            counts.error(counts.firstError() == null ? settings.mode() + " publish to " + settings.key()
                    + " failed: " + error.getMessage() : null);
        } else if (result == null) {
            counts.error(counts.firstError() == null ? "XADD to " + settings.key()
                    + " added nothing: the stream no longer exists" : null);
        } else {
            counts.acked(warmup);
        }
        window.release();
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        for (int off = offset; off < offset + length; off += messageSize) {
            if (confirmations != null) {
                ensureUp();
            }
            if (!window.tryAcquire()) {
                connection.flushCommands();
                acquire();
            }
            dispatch(buffer, off);
        }
        connection.flushCommands();
    }

    @Override
    public boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        if (confirmations != null) {
            ensureUp();
        } else {
            checkOpen();
        }
        if (!window.tryAcquire()) {
            return false;
        }
        dispatch(buffer, offset);
        connection.flushCommands();
        return true;
    }

    private void acquire() throws IOException {
        try {
            while (!window.tryAcquire(1, TimeUnit.SECONDS)) {
                if (confirmations == null) {
                    checkOpen();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for Redis replies", e);
        }
    }

    private void checkOpen() throws IOException {
        if (!connection.isOpen()) {
            throw new IOException("the connection to Redis at " + settings.address() + " was lost");
        }
    }

    private void dispatch(ByteBuffer buffer, int off) {
        byte[] copy = new byte[messageSize];
        buffer.get(off, copy, 0, messageSize);
        long seq = WireHeader.sequence(buffer, off);
        if (confirmations != null) {
            confirmations.sent(seq);
            command(copy).whenComplete((r, e) -> replied(seq, copy, r, e));
        } else {
            command(copy).whenComplete(seq < 0 ? onWarmupReply : onReply);
        }
    }

    private RedisFuture<?> command(byte[] copy) {
        return settings.streams() ? commands.xadd(key, xadd, FIELD, copy) : commands.publish(key, copy);
    }

    /**
     * Sending thread, reconnect=true: while the connection is lost or something waits to be sent again, dials again
     * and sends it again; an IOException once {@link RedisReconnect#GIVE_UP_MS} passed without a connection.
     */
    private void ensureUp() throws IOException {
        // a command failed with the connection only when it went: one waiting to be sent again means a lost one,
        // even while Lettuce does not say it is closed yet (sending again on it would fail at once, again and again)
        while (!connection.isOpen() || !resend.isEmpty()) {
            reconnect();
            republish();
        }
    }

    private void reconnect() throws IOException {
        long lostAt = System.currentTimeMillis();
        connection.close(); // what it still held fails now, its copy kept aside
        int max = settings.maxInflight();
        if (!tryAcquire(max, 10_000)) {
            throw new IOException("redis: " + (max - window.availablePermits()) + " commands of the lost connection "
                    + "to " + settings.address() + " still unanswered after 10 s");
        }
        window.release(max);
        while (true) {
            try {
                open(RedisShared.connect(settings, context));
                reconnects++;
                return;
            } catch (IOException e) {
                if (System.currentTimeMillis() - lostAt > RedisReconnect.GIVE_UP_MS) {
                    throw new IOException("redis: the publisher could not reconnect within "
                            + RedisReconnect.GIVE_UP_MS / 1000 + " s: " + e.getMessage(), e);
                }
                sleep(RedisReconnect.WAIT_MS);
            }
        }
    }

    /** Sending thread: what failed with a connection, sent again in sequence order, counted. */
    private void republish() throws IOException {
        List<Again> again = new ArrayList<>();
        for (Again a; (a = resend.poll()) != null; ) {
            again.add(a);
        }
        again.sort(Comparator.comparingLong(Again::seq));
        for (Again a : again) {
            if (!window.tryAcquire()) {
                connection.flushCommands();
                acquire();
            }
            if (a.seq() >= 0 && a.wentOut()) {
                confirmations.republished();
            }
            command(a.copy()).whenComplete((r, e) -> replied(a.seq(), a.copy(), r, e));
        }
        connection.flushCommands();
    }

    private boolean tryAcquire(int permits, long timeoutMs) throws IOException {
        try {
            return window.tryAcquire(permits, timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for Redis replies", e);
        }
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reconnecting to Redis", e);
        }
    }

    @Override
    public void drain(long timeoutMs) throws IOException {
        if (confirmations != null) {
            drainReconnecting(timeoutMs);
            return;
        }
        connection.flushCommands();
        int max = settings.maxInflight();
        try {
            if (!window.tryAcquire(max, timeoutMs, TimeUnit.MILLISECONDS)) {
                throw new IOException((max - window.availablePermits()) + " Redis commands unanswered after "
                        + timeoutMs + " ms");
            }
            window.release(max);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while draining", e);
        }
    }

    /** Until every command is answered and nothing waits to be sent again, reconnecting as needed. */
    private void drainReconnecting(long timeoutMs) throws IOException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        int max = settings.maxInflight();
        while (true) {
            ensureUp();
            connection.flushCommands();
            if (tryAcquire(max, 100)) {
                window.release(max);
                if (resend.isEmpty() && connection.isOpen()) {
                    return;
                }
            } else if (System.currentTimeMillis() > deadline) {
                throw new IOException((max - window.availablePermits()) + " Redis commands unanswered after "
                        + timeoutMs + " ms");
            }
        }
    }

    @Override
    public Map<String, Long> counters() {
        if (confirmations == null) {
            return counts.counters(true, false);
        }
        Map<String, Long> m = new HashMap<>(counts.counters(true, false));
        if (confirms()) {
            m.putAll(confirmations.counters());
        } else { // a PUBLISH's reply confirms nothing: pub/sub keeps no message
            m.put(Reconnects.REPUBLISHED, confirmations.counters().get(Reconnects.REPUBLISHED));
        }
        m.put(Reconnects.PUBLISHER_RECONNECTS, reconnects);
        return Map.copyOf(m);
    }

    /** reconnect=true with streams: an XADD's entry id confirms its message (pub/sub keeps nothing to confirm). */
    @Override
    public boolean confirms() {
        return confirmations != null && settings.streams();
    }

    @Override
    public long[] unconfirmed() {
        return confirms() ? confirmations.unconfirmedRanges() : null;
    }

    @Override
    public long confirmedSoFar() {
        return confirms() ? confirmations.confirmed() : -1;
    }

    @Override
    public String firstError() {
        return counts.firstError();
    }

    @Override
    public void close() {
        connection.flushCommands();
        connection.close();
    }
}
