package io.msgscope.driver.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Publisher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
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
 */
final class RedisPublisher implements Publisher {
    static final byte[] FIELD = "d".getBytes(StandardCharsets.US_ASCII);

    private final RedisSettings settings;
    private final int messageSize;
    private final StatefulRedisConnection<byte[], byte[]> connection;
    private final RedisAsyncCommands<byte[], byte[]> commands;
    private final byte[] key;
    private final XAddArgs xadd;
    private final Semaphore window;
    private final AckCounts counts = new AckCounts();
    private final BiConsumer<Object, Throwable> onReply = new Reply(false);
    private final BiConsumer<Object, Throwable> onWarmupReply = new Reply(true);

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
        connection = RedisShared.connect(s, context);
        connection.setAutoFlushCommands(false);
        commands = connection.async();
    }

    private final class Reply implements BiConsumer<Object, Throwable> {
        private final boolean warmup;

        Reply(boolean warmup) {
            this.warmup = warmup;
        }

        /**
         * Counts the reply, then frees its slot: {@link #drain} returns once every slot is free, and the counters read
         * after it must hold every reply (released first, the last one's count could land after the read: RedisIT
         * saw 1,999 of 2,000 acked).
         */
        @Override
        public void accept(Object result, Throwable error) {
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
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        for (int off = offset; off < offset + length; off += messageSize) {
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
        checkOpen();
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
                checkOpen();
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
        RedisFuture<?> f = settings.streams() ? commands.xadd(key, xadd, FIELD, copy) : commands.publish(key, copy);
        f.whenComplete(WireHeader.sequence(buffer, off) < 0 ? onWarmupReply : onReply);
    }

    @Override
    public void drain(long timeoutMs) throws IOException {
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

    @Override
    public Map<String, Long> counters() {
        return counts.counters(true, false);
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
