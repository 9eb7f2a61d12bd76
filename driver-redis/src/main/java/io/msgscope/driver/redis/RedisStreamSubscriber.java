package io.msgscope.driver.redis;

import io.lettuce.core.RedisBusyException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
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
 */
final class RedisStreamSubscriber extends RedisSubscriber {
    /** XREADGROUP's BLOCK: the longest one read waits on the server before the next is sent. */
    static final long BLOCK_MS = 1000;

    private final ClientContext context;
    private final StatefulRedisConnection<byte[], byte[]> connection;
    private final RedisAsyncCommands<byte[], byte[]> commands;
    private final byte[] key;
    private final byte[] group;
    private final byte[] consumerName;
    private final io.lettuce.core.Consumer<byte[]> consumer;
    private final XReadArgs readArgs;
    private final XReadArgs.StreamOffset<byte[]> offset;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong ackErrors = new AtomicLong();
    private final BiConsumer<List<StreamMessage<byte[], byte[]>>, Throwable> onRead = this::onRead;
    private final BiConsumer<Long, Throwable> onAck = (n, e) -> {
        if (e != null) {
            ackErrors.incrementAndGet();
        } else {
            acked.addAndGet(n);
        }
    };

    RedisStreamSubscriber(RedisSettings s, int messageSize, ClientContext context) throws IOException {
        super(s, messageSize);
        this.context = context;
        String hex = Long.toHexString(ThreadLocalRandom.current().nextLong());
        this.key = s.key().getBytes(StandardCharsets.UTF_8);
        this.group = (s.group().isEmpty() ? "msgscope-" + hex : s.group()).getBytes(StandardCharsets.UTF_8);
        this.consumerName = ("c-" + hex).getBytes(StandardCharsets.UTF_8);
        this.consumer = io.lettuce.core.Consumer.from(group, consumerName);
        this.readArgs = XReadArgs.Builder.block(BLOCK_MS).count(s.count());
        this.offset = XReadArgs.StreamOffset.lastConsumed(key);
        connection = RedisShared.connect(s, context);
        connection.addListener(lossListener());
        commands = connection.async();
        try {
            connection.sync().xgroupCreate(XReadArgs.StreamOffset.latest(key), group, XGroupCreateArgs.Builder.mkstream());
        } catch (RedisBusyException e) {
            // BUSYGROUP: another subscriber of this round-robin group made it first
        } catch (RuntimeException e) {
            connection.close();
            throw new IOException("Redis at " + s.address() + " refused XGROUP CREATE " + s.key() + " "
                    + new String(group, StandardCharsets.UTF_8) + ": " + e.getMessage(), e);
        }
        read();
    }

    private void read() {
        if (!closed) {
            commands.xreadgroup(consumer, readArgs, offset).whenComplete(onRead);
        }
    }

    /** Event loop: one XREADGROUP's reply, handed over in order, acknowledged, and the next read sent. */
    private void onRead(List<StreamMessage<byte[], byte[]>> entries, Throwable error) {
        if (closed) {
            return;
        }
        if (error != null) {
            handOver.lost("XREADGROUP on " + settings.key() + " failed: " + error.getMessage());
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
            commands.xack(key, group, ids).whenComplete(onAck);
        }
        read();
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
