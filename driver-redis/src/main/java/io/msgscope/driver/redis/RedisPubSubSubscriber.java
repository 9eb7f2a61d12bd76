package io.msgscope.driver.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.msgscope.core.driver.ClientContext;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Redis pub/sub: SUBSCRIBE to the channel, messages pushed by the server on Lettuce's event loop. At most once: Redis
 * keeps nothing for a subscriber and drops a subscriber whose output buffer overflows
 * ({@code client-output-buffer-limit pubsub}), so a loss is counted and does not fail the run. With
 * {@code --opt reconnect=true} a lost connection is dialled again and the channel subscribed again; what was
 * published meanwhile is lost, counted.
 */
final class RedisPubSubSubscriber extends RedisSubscriber {
    private volatile StatefulRedisPubSubConnection<byte[], byte[]> connection;

    RedisPubSubSubscriber(RedisSettings s, int messageSize, ClientContext context) throws IOException {
        super(s, messageSize, context);
        connection = subscribe();
    }

    /** A new connection subscribed to the channel; the SUBSCRIBE reply: the server has the subscription. */
    private StatefulRedisPubSubConnection<byte[], byte[]> subscribe() throws IOException {
        StatefulRedisPubSubConnection<byte[], byte[]> c = RedisShared.connectPubSub(settings, context);
        c.addListener(lossListener());
        c.addListener(new RedisPubSubAdapter<byte[], byte[]>() {
            @Override
            public void message(byte[] channel, byte[] message) {
                deliver(message);
            }
        });
        try {
            // before the publisher is told the channel
            c.async().subscribe(settings.key().getBytes(StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
            return c;
        } catch (Exception e) {
            c.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("Redis at " + settings.address() + " refused SUBSCRIBE " + settings.key() + ": "
                    + e.getMessage(), e);
        }
    }

    @Override
    io.lettuce.core.api.StatefulConnection<byte[], byte[]> connection() {
        return connection;
    }

    @Override
    void reopen() throws IOException {
        StatefulRedisPubSubConnection<byte[], byte[]> c = subscribe();
        StatefulRedisPubSubConnection<byte[], byte[]> lost = connection;
        connection = c;
        lost.close();
        if (closed) {
            c.close();
        }
    }

    @Override
    public void close() {
        closing();
        connection.close();
    }
}
