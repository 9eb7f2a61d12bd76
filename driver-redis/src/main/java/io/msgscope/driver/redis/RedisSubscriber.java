package io.msgscope.driver.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.msgscope.core.driver.HandOver;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What the two Redis subscribers share: delivery through {@link HandOver} on Lettuce's event loop (push, no thread of
 * their own), a receive buffer reused for every message (one event loop serves a connection, so one buffer suffices),
 * and the end of the connection reported once.
 */
abstract class RedisSubscriber implements Subscriber {
    final RedisSettings settings;
    final HandOver handOver = new HandOver();
    private ByteBuffer receive;
    volatile boolean closed;

    RedisSubscriber(RedisSettings settings, int messageSize) {
        this.settings = settings;
        this.receive = ByteBuffer.allocate(Math.max(messageSize, 64)).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Reports a lost connection (not one this subscriber closed) through the hand-over. */
    final RedisConnectionStateListener lossListener() {
        return new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
                if (!closed) {
                    handOver.lost("the connection to Redis at " + settings.address() + " was lost");
                }
            }
        };
    }

    /** Event loop: one message's bytes, copied into the reused receive buffer and handed over. */
    final void deliver(byte[] message) {
        ByteBuffer b = receive;
        if (b.capacity() < message.length) {
            b = ByteBuffer.allocate(message.length).order(ByteOrder.LITTLE_ENDIAN);
            receive = b;
        }
        b.clear();
        b.put(0, message, 0, message.length);
        b.limit(message.length);
        handOver.deliver(b);
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) {
        return handOver.poll(handler, timeoutMs);
    }

    @Override
    public void start(MessageHandler handler, Consumer<String> ended) {
        handOver.start(handler, ended);
    }

    @Override
    public String destination() {
        return settings.key();
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> m = new HashMap<>(extraCounters());
        m.put("short_payloads", handOver.shortPayloads());
        return Map.copyOf(m);
    }

    Map<String, Long> extraCounters() {
        return Map.of();
    }

    @Override
    public Map<String, String> serverInfo() {
        return Map.of("broker", "Redis", "mode", settings.mode());
    }

    /** Marks the subscriber closing so that its own close is not reported as a loss. */
    final void closing() {
        closed = true;
        handOver.closing();
    }
}
