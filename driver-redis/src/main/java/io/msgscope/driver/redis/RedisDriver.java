package io.msgscope.driver.redis;

import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Redis (issue 35 item 2) through Lettuce on the agent's shared Netty event loops. The subscriber connects first,
 * chooses the key ({@code msgscope:<random>}) unless {@code --opt key} names one, and reports it as its destination.
 *
 * <p>{@code --uri}: {@code redis://[user:password@]host:port[/db]} (default {@code redis://127.0.0.1:6379}).
 * Options ({@code --opt key=value}):
 * <ul>
 *   <li>{@code mode} streams or pubsub (default streams): Redis Streams with consumer groups and XACK
 *       ({@link RedisStreamSubscriber}), or PUBLISH/SUBSCRIBE, at most once ({@link RedisPubSubSubscriber})</li>
 *   <li>{@code key} the stream key or channel (default chosen by the subscriber)</li>
 *   <li>{@code group} streams subscriber: join this consumer group (round-robin); default a group of its own</li>
 *   <li>{@code maxlen} streams publisher: XADD MAXLEN ~ N trimming, 0 = none (default 0)</li>
 *   <li>{@code count} streams subscriber: XREADGROUP COUNT, 1-100000 (default 100)</li>
 *   <li>{@code max_inflight} publisher: commands not yet answered before {@code send} waits, 1-1000000 (default 1000)</li>
 *   <li>{@code reconnect} true/false (default false; issue 32 item 3): a lost connection is dialled again, streams
 *       consumers read their pending entries again, pub/sub subscribers subscribe again, publishers send again
 *       what had no reply, all counted ({@link RedisReconnect}); off, a lost connection ends the run</li>
 * </ul>
 */
public final class RedisDriver implements Driver {
    @Override
    public String name() {
        return "redis";
    }

    @Override
    public Set<String> optionKeys() {
        return RedisSettings.OPTIONS;
    }

    @Override
    public void checkOptions(DriverSpec spec) {
        RedisSettings.of(spec, false);
    }

    /** Heap: Lettuce takes byte arrays, and each message is copied out of this buffer into one. */
    @Override
    public ByteBuffer allocatePayload(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException {
        RedisSettings s = RedisSettings.of(spec, false);
        return s.streams() ? new RedisStreamSubscriber(s, spec.messageSize(), context)
                : new RedisPubSubSubscriber(s, spec.messageSize(), context);
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        return new RedisPublisher(RedisSettings.of(spec, true), spec.messageSize(), context);
    }

    /** Redis keys take any bytes; only white space is refused, as it breaks the command lines users copy. */
    @Override
    public void checkTopicPrefix(String prefix) {
        Driver.super.checkTopicPrefix(prefix);
        if (prefix.chars().anyMatch(Character::isWhitespace)) {
            throw new SpecException("--topic-prefix", "must be a Redis key without white space, got '" + prefix + "'");
        }
    }

    @Override
    public ScenarioSupport scenarios() {
        return RedisScenarios.INSTANCE;
    }

    /** Kill and restart need {@code --opt reconnect=true}: without it a lost connection ends the run. */
    @Override
    public String whyClientsCannotReconnect(Map<String, String> options) {
        if (io.msgscope.core.driver.Reconnects.on(options)) {
            return null;
        }
        return "the redis driver's clients end at a lost connection without --opt reconnect=true";
    }

    @Override
    public String lossHint(Map<String, String> options) {
        return streams(options) ? null : "Redis pub/sub is at most once: the server keeps nothing for a subscriber and "
                + "disconnects one whose output buffer passes client-output-buffer-limit pubsub; use --opt mode=streams "
                + "for delivery that counts";
    }

    @Override
    public String failureNote(Map<String, String> options) {
        return streams(options) ? "Redis streams this run made (" + RedisSettings.KEY_PREFIX + "...) are deleted at its "
                + "end while the server is there; if it went away, `msgscope clean --driver redis --uri URI` removes "
                + "what is left" : null;
    }

    /**
     * Streams whose key begins with {@code msgscope:} (every key msgscope chooses: trace runs' random keys, scenario
     * keys without {@code --topic-prefix}), found with SCAN ... TYPE stream and deleted unless {@code dryRun}.
     * Pub/sub channels leave nothing behind.
     */
    @Override
    public List<String> clean(DriverSpec spec, boolean dryRun) throws IOException {
        RedisSettings s = RedisSettings.of(spec.withDestination(RedisSettings.KEY_PREFIX + "clean"), true);
        ClientContext context = ClientContext.single();
        try (context; StatefulRedisConnection<byte[], byte[]> c = RedisShared.connect(s, context)) {
            List<String> out = new ArrayList<>();
            KeyScanArgs match = KeyScanArgs.Builder.matches(RedisSettings.KEY_PREFIX + "*").type("stream").limit(1000);
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<byte[]> page = c.sync().scan(cursor, match);
                for (byte[] k : page.getKeys()) {
                    if (!dryRun) {
                        c.sync().del(k);
                    }
                    out.add((dryRun ? "would delete" : "deleted") + " Redis stream "
                            + new String(k, StandardCharsets.UTF_8) + " at " + s.address());
                }
                cursor = page;
            } while (!cursor.isFinished());
            return out;
        } catch (RuntimeException e) {
            throw new IOException("Redis at " + s.address() + " refused to list or delete streams: " + e.getMessage(), e);
        }
    }

    private static boolean streams(Map<String, String> options) {
        return !"pubsub".equalsIgnoreCase(options.get("mode"));
    }
}
