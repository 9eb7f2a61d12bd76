package io.msgscope.driver.redis;

import io.lettuce.core.RedisBusyException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.msgscope.core.driver.ClientContext;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * Redis Streams: a consumer of a consumer group reading with XREADGROUP ... BLOCK and acknowledging each batch with
 * XACK. Without {@code --opt group} the subscriber makes a group of its own (every subscriber sees every message:
 * fan-out); with it, the subscribers of that group share the entries (round-robin). The group is created at the
 * stream's end ({@code $}, MKSTREAM) before the publisher is told the key, so it sees everything published after.
 *
 * <p>No thread waits: the next XREADGROUP is sent from the completion of the previous one, on Lettuce's event loop;
 * the blocking read occupies the connection, not a thread. On close the consumer leaves its group, the group goes
 * when it has no consumer left and the stream key when it has no group left ({@link RedisShared#leave}), so a run
 * leaves no key behind while the server is there.
 *
 * <p>With {@code --opt reconnect=true} (issue 32 item 3) a lost connection is dialled again as the same consumer of
 * the same group (made again from the stream's start if the server lost it), which first reads its own pending
 * entries again (XREADGROUP from id 0: delivered before the loss, their XACK lost with the connection: each
 * arrives again, a duplicate the trace counts) and then goes on with new ones.
 */
final class RedisStreamSubscriber extends RedisSubscriber {
    /** XREADGROUP's BLOCK: the longest one read waits on the server before the next is sent. */
    static final long BLOCK_MS = 1000;

    private volatile StatefulRedisConnection<byte[], byte[]> connection;
    private final byte[] key;
    private final byte[] group;
    private final byte[] consumerName;
    private final io.lettuce.core.Consumer<byte[]> consumer;
    private final XReadArgs readArgs;
    private final XReadArgs.StreamOffset<byte[]> offset;
    private final XReadArgs.StreamOffset<byte[]> pending;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong ackErrors = new AtomicLong();
    private final BiConsumer<Long, Throwable> onAck = (n, e) -> {
        if (e != null) {
            ackErrors.incrementAndGet();
        } else {
            acked.addAndGet(n);
        }
    };

    RedisStreamSubscriber(RedisSettings s, int messageSize, ClientContext context) throws IOException {
        super(s, messageSize, context);
        String hex = Long.toHexString(ThreadLocalRandom.current().nextLong());
        this.key = s.key().getBytes(StandardCharsets.UTF_8);
        this.group = (s.group().isEmpty() ? "msgscope-" + hex : s.group()).getBytes(StandardCharsets.UTF_8);
        this.consumerName = ("c-" + hex).getBytes(StandardCharsets.UTF_8);
        this.consumer = io.lettuce.core.Consumer.from(group, consumerName);
        this.readArgs = XReadArgs.Builder.block(BLOCK_MS).count(s.count());
        this.offset = XReadArgs.StreamOffset.lastConsumed(key);
        this.pending = XReadArgs.StreamOffset.from(key, "0");
        connection = join(XReadArgs.StreamOffset.latest(key));
        read(connection, false);
    }

    /**
     * A new connection whose group exists: made at {@code from} with the stream (MKSTREAM), or there already
     * (BUSYGROUP: another subscriber of this round-robin group made it first, or this one before a reconnect).
     */
    private StatefulRedisConnection<byte[], byte[]> join(XReadArgs.StreamOffset<byte[]> from) throws IOException {
        StatefulRedisConnection<byte[], byte[]> c = RedisShared.connect(settings, context);
        c.addListener(lossListener());
        try {
            c.sync().xgroupCreate(from, group, XGroupCreateArgs.Builder.mkstream());
        } catch (RedisBusyException e) {
            // the group is there
        } catch (RuntimeException e) {
            c.close();
            throw new IOException("Redis at " + settings.address() + " refused XGROUP CREATE " + settings.key() + " "
                    + new String(group, StandardCharsets.UTF_8) + ": " + e.getMessage(), e);
        }
        return c;
    }

    @Override
    io.lettuce.core.api.StatefulConnection<byte[], byte[]> connection() {
        return connection;
    }

    /** Retry thread: the same consumer again, its pending entries read first. */
    @Override
    void reopen() throws IOException {
        StatefulRedisConnection<byte[], byte[]> c = join(XReadArgs.StreamOffset.from(key, "0"));
        StatefulRedisConnection<byte[], byte[]> lost = connection;
        connection = c;
        lost.close();
        read(c, true);
    }

    /** The next XREADGROUP on {@code c}: of this consumer's pending entries when {@code backlog}, else of new ones. */
    private void read(StatefulRedisConnection<byte[], byte[]> c, boolean backlog) {
        if (!closed) {
            c.async().xreadgroup(consumer, readArgs, backlog ? pending : offset)
                    .whenComplete((entries, error) -> onRead(c, backlog, entries, error));
        }
    }

    /**
     * Event loop: one XREADGROUP's reply, handed over in order, acknowledged, and the next read sent; the pending
     * entries are read until none is left. A reply on a connection left behind is dropped, and so is a failure
     * from a lost connection that is being got back.
     */
    private void onRead(StatefulRedisConnection<byte[], byte[]> c, boolean backlog,
            List<StreamMessage<byte[], byte[]>> entries, Throwable error) {
        if (closed || c != connection) {
            return;
        }
        if (error != null) {
            if (!settings.reconnect() || !RedisReconnect.connectionLost(error)) {
                handOver.lost("XREADGROUP on " + settings.key() + " failed: " + error.getMessage());
            }
            return;
        }
        if (entries != null && !entries.isEmpty()) {
            String[] ids = new String[entries.size()];
            for (int i = 0; i < ids.length; i++) {
                StreamMessage<byte[], byte[]> m = entries.get(i);
                ids[i] = m.getId();
                Map<byte[], byte[]> body = m.getBody();
                if (body != null && !body.isEmpty()) {
                    deliver(body.values().iterator().next());
                }
            }
            c.async().xack(key, group, ids).whenComplete(onAck);
        }
        read(c, backlog && entries != null && !entries.isEmpty());
    }

    @Override
    Map<String, Long> extraCounters() {
        return Map.of("xack_acked", acked.get(), "xack_errors", ackErrors.get());
    }

    @Override
    public Map<String, String> serverInfo() {
        return Map.of("broker", "Redis", "mode", settings.mode(), "group", new String(group, StandardCharsets.UTF_8));
    }

    @Override
    public void close() throws IOException {
        closing();
        connection.close();
        RedisShared.of(context).leave(settings, key, group, consumerName);
    }
}
