package io.msgscope.driver.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.HandOver;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What the two Redis subscribers share: delivery through {@link HandOver} on Lettuce's event loop (push, no thread of
 * their own), a receive buffer reused for every message (one event loop serves a connection, so one buffer suffices),
 * and the end of the connection reported once. With {@code --opt reconnect=true} (issue 32 item 3) a lost connection
 * is not reported: it is dialled again on the agent's retry thread ({@link RedisReconnect#retry}) and the subclass
 * subscribes again ({@link #reopen}); only giving up ends the subscription.
 */
abstract class RedisSubscriber implements Subscriber {
    final RedisSettings settings;
    final ClientContext context;
    final HandOver handOver = new HandOver();
    private ByteBuffer receive;
    volatile boolean closed;
    private final AtomicBoolean reconnecting = new AtomicBoolean();
    private final AtomicLong reconnects = new AtomicLong();

    RedisSubscriber(RedisSettings settings, int messageSize, ClientContext context) {
        this.settings = settings;
        this.context = context;
        this.receive = ByteBuffer.allocate(Math.max(messageSize, 64)).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Reports a lost connection (not one this subscriber closed, nor one it left after a reconnect) through the
     * hand-over, or with {@code reconnect=true} starts getting it back.
     */
    final RedisConnectionStateListener lossListener() {
        return new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
                if (closed || !current(connection)) {
                    return;
                }
                if (!settings.reconnect()) {
                    handOver.lost("the connection to Redis at " + settings.address() + " was lost");
                } else if (reconnecting.compareAndSet(false, true)) {
                    RedisReconnect.retry(RedisShared.of(context).retry(), System.currentTimeMillis(),
                            RedisSubscriber.this::reopen, () -> closed, RedisSubscriber.this::back,
                            why -> handOver.lost("the connection to Redis at " + settings.address() + " was lost and "
                                    + why), 0);
                }
            }
        };
    }

    /** Retry thread: subscribed again. A connection lost again meanwhile (its report ignored) is got back too. */
    private void back() {
        reconnects.incrementAndGet();
        reconnecting.set(false);
        if (!currentOpen()) {
            lossListener().onRedisDisconnected(null);
        }
    }

    /** The connection this subscriber uses now (null while the first one is made). */
    abstract io.lettuce.core.api.StatefulConnection<byte[], byte[]> connection();

    /** Whether {@code c} is the one this subscriber uses now (null: the current one). */
    private boolean current(RedisChannelHandler<?, ?> c) {
        return c == null || c == connection();
    }

    private boolean currentOpen() {
        return connection().isOpen();
    }

    /**
     * Retry thread, {@code reconnect=true}: a new connection, subscribed as the lost one was, made the current one
     * last (closing it on a failure, which its listener then ignores); an IOException when this attempt failed.
     */
    abstract void reopen() throws java.io.IOException;

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
        if (settings.reconnect()) {
            m.put(io.msgscope.core.driver.Reconnects.SUBSCRIBER_RECONNECTS, reconnects.get());
        }
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
