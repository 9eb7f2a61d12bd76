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
 * ({@code client-output-buffer-limit pubsub}), so a loss is counted and does not fail the run.
 */
final class RedisPubSubSubscriber extends RedisSubscriber {
    private final StatefulRedisPubSubConnection<byte[], byte[]> connection;

    RedisPubSubSubscriber(RedisSettings s, int messageSize, ClientContext context) throws IOException {
        super(s, messageSize);
        connection = RedisShared.connectPubSub(s, context);
        connection.addListener(lossListener());
        connection.addListener(new RedisPubSubAdapter<byte[], byte[]>() {
            @Override
            public void message(byte[] channel, byte[] message) {
                deliver(message);
            }
        });
        try {
            // the SUBSCRIBE reply: the server has the subscription before the publisher is told the channel
            connection.async().subscribe(s.key().getBytes(StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            connection.close();
            throw new IOException("Redis at " + s.address() + " refused SUBSCRIBE " + s.key() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        closing();
        connection.close();
    }
}
