package io.msgscope.driver.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.msgscope.core.driver.ClientContext;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What the Redis connections of one agent share (issue 13): one Lettuce client on one set of Netty event loops, as
 * many as the context's I/O threads, so the thousandth connection runs on the same threads as the first.
 */
final class RedisShared implements AutoCloseable {
    private final ClientResources resources;
    private final RedisClient client;
    private io.lettuce.core.api.StatefulRedisConnection<byte[], byte[]> admin; // guarded by this
    private String trusted; // the tls_ca the client's options trust; guarded by this
    private java.util.concurrent.ScheduledExecutorService retry; // reconnect=true subscribers' attempts; guarded by this

    /**
     * A consumer leaves its group; the group goes once no consumer is left and the stream key once no group is
     * left, all in one script so that subscribers closing at once cannot both miss the last step.
     */
    static final String LEAVE = """
            if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
            pcall(redis.call, 'XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
            local ok, cs = pcall(redis.call, 'XINFO', 'CONSUMERS', KEYS[1], ARGV[1])
            if ok and #cs == 0 then redis.call('XGROUP', 'DESTROY', KEYS[1], ARGV[1]) end
            if #redis.call('XINFO', 'GROUPS', KEYS[1]) == 0 then redis.call('DEL', KEYS[1]) return 1 end
            return 0
            """;

    static {
        // epoll, as Lettuce would prioritise anyway, without its warning that io_uring is on the class path too
        if (System.getProperty("io.lettuce.core.iouring") == null) {
            System.setProperty("io.lettuce.core.iouring", "false");
        }
    }

    private RedisShared(int ioThreads) {
        // no command latency recording: msgscope measures each message itself, and the recorder costs per command
        resources = DefaultClientResources.builder().ioThreadPoolSize(Math.max(2, ioThreads))
                .computationThreadPoolSize(2)
                .commandLatencyRecorder(io.lettuce.core.metrics.CommandLatencyRecorder.disabled()).build();
        client = RedisClient.create(resources);
        // no reconnect by Lettuce: a lost connection ends the connection, or with --opt reconnect=true msgscope dials
        // again itself and counts what it sends again (RedisReconnect)
        client.setOptions(ClientOptions.builder().autoReconnect(false)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
    }

    static RedisShared of(ClientContext context) {
        return context.resource(RedisShared.class, () -> new RedisShared(context.ioThreads()));
    }

    /** The client, its TLS trust set to {@code s}'s {@code tls_ca} first (every connection of a run has the same). */
    private static RedisClient client(RedisSettings s, ClientContext context) {
        RedisShared shared = of(context);
        if (s.tlsCa() != null) {
            synchronized (shared) {
                if (!s.tlsCa().equals(shared.trusted)) {
                    shared.client.setOptions(shared.client.getOptions().mutate().sslOptions(io.lettuce.core.SslOptions
                            .builder().jdkSslProvider().trustManager(new java.io.File(s.tlsCa())).build()).build());
                    shared.trusted = s.tlsCa();
                }
            }
        }
        return shared.client;
    }

    RedisClient client() {
        return client;
    }

    /**
     * The agent's one retry thread (made on first use), where subscribers with {@code --opt reconnect=true} dial again:
     * Lettuce's connect blocks, which its event loops must not.
     */
    synchronized java.util.concurrent.ScheduledExecutorService retry() {
        if (retry == null) {
            retry = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "redis-reconnect");
                t.setDaemon(true);
                return t;
            });
        }
        return retry;
    }

    // Lettuce runs at least 2 I/O and 2 computation threads (it raises smaller sizes itself, with a log line)

    /** One connection on the context's event loops, or an IOException naming the server. */
    static io.lettuce.core.api.StatefulRedisConnection<byte[], byte[]> connect(RedisSettings s, ClientContext context)
            throws java.io.IOException {
        try {
            return client(s, context).connect(io.lettuce.core.codec.ByteArrayCodec.INSTANCE, uri(s));
        } catch (RuntimeException e) {
            throw new java.io.IOException("cannot connect to Redis at " + s.address() + ": " + e.getMessage(), e);
        }
    }

    /** One pub/sub connection on the context's event loops, as {@link #connect}. */
    static io.lettuce.core.pubsub.StatefulRedisPubSubConnection<byte[], byte[]> connectPubSub(RedisSettings s,
            ClientContext context) throws java.io.IOException {
        try {
            return client(s, context).connectPubSub(io.lettuce.core.codec.ByteArrayCodec.INSTANCE, uri(s));
        } catch (RuntimeException e) {
            throw new java.io.IOException("cannot connect to Redis at " + s.address() + ": " + e.getMessage(), e);
        }
    }

    static RedisURI uri(RedisSettings s) {
        RedisURI u = RedisURI.create(s.uri());
        u.setTimeout(Duration.ofSeconds(30));
        if (u.isSsl()) { // the chain and the host name, or nothing with tls_verify=false
            u.setVerifyPeer(s.tlsVerify() ? io.lettuce.core.SslVerifyMode.FULL : io.lettuce.core.SslVerifyMode.NONE);
        }
        return u;
    }

    /**
     * A streams subscriber's end ({@link #LEAVE}) on this agent's one administrative connection (the subscriber's own
     * is closed first: its blocking read would hold the script back for up to a second).
     */
    synchronized void leave(RedisSettings s, byte[] key, byte[] group, byte[] consumer) throws java.io.IOException {
        try {
            if (admin == null || !admin.isOpen()) {
                admin = client.connect(io.lettuce.core.codec.ByteArrayCodec.INSTANCE, uri(s));
            }
            admin.sync().eval(LEAVE, io.lettuce.core.ScriptOutputType.INTEGER, new byte[][] {key}, group, consumer);
        } catch (RuntimeException e) {
            throw new java.io.IOException("could not remove consumer group or stream " + s.key() + " from Redis at "
                    + s.address() + " (`msgscope clean --driver redis` removes it later): " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (admin != null) {
                admin.close();
            }
            if (retry != null) {
                retry.shutdownNow();
            }
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
