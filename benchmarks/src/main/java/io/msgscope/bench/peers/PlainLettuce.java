package io.msgscope.bench.peers;

import io.lettuce.core.Consumer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The peer for msgscope's Redis driver (issue 35 item 2): a plain Lettuce loop, 1 → 1, no measurement in the loop.
 * {@code pubsub}: async PUBLISH and a listener on a pub/sub connection; {@code streams}: async XADD and an
 * XREADGROUP BLOCK loop with XACK per batch. At most 1000 commands unanswered, as the driver's default
 * {@code max_inflight}. {@code redis-benchmark} measures request rates, not end-to-end delivery, hence this loop.
 *
 * <pre>java -cp benchmarks.jar io.msgscope.bench.peers.PlainLettuce redis://127.0.0.1:6379 pubsub|streams [count] [warmup] [size]</pre>
 * prints {@code sent= received= lost= send_msg_s= receive_msg_s= delivered_msg_s=}.
 */
public final class PlainLettuce {
    private static final byte[] FIELD = {'d'};

    private PlainLettuce() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
        boolean streams = args.length > 1 && args[1].equals("streams");
        long[] s = PeerCount.sizes(args, 2);
        byte[] key = ("msgscope:peer-" + Long.toHexString(System.nanoTime())).getBytes(StandardCharsets.UTF_8);
        PeerCount count = new PeerCount();
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<byte[], byte[]> pub = client.connect(ByteArrayCodec.INSTANCE)) {
            AutoCloseable sub = streams ? streamReader(client, key, count) : subscriber(client, key, count);
            RedisAsyncCommands<byte[], byte[]> c = pub.async();
            Semaphore window = new Semaphore(1000);
            send(c, window, key, streams, s[1], (int) s[2], (byte) 1);
            count.await(true, s[1], 2000);
            long t0 = System.nanoTime();
            send(c, window, key, streams, s[0], (int) s[2], (byte) 0);
            window.acquire(1000);
            long sendNs = System.nanoTime() - t0;
            count.await(false, s[0], 2000);
            System.out.println(count.report(s[0], t0, sendNs));
            window.release(1000);
            sub.close();
            pub.sync().del(key);
        } finally {
            client.shutdown();
        }
    }

    private static void send(RedisAsyncCommands<byte[], byte[]> c, Semaphore window, byte[] key, boolean streams,
                             long n, int size, byte marker) throws InterruptedException {
        for (long i = 0; i < n; i++) {
            byte[] msg = new byte[size];
            msg[0] = marker;
            window.acquire();
            (streams ? c.xadd(key, FIELD, msg) : c.publish(key, msg)).whenComplete((r, e) -> window.release());
        }
    }

    private static AutoCloseable subscriber(RedisClient client, byte[] key, PeerCount count)
            throws Exception {
        StatefulRedisPubSubConnection<byte[], byte[]> sub = client.connectPubSub(ByteArrayCodec.INSTANCE);
        sub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(byte[] channel, byte[] message) {
                count.arrived(message[0]);
            }
        });
        sub.async().subscribe(key).get(10, TimeUnit.SECONDS);
        return sub;
    }

    private static AutoCloseable streamReader(RedisClient client, byte[] key, PeerCount count) {
        StatefulRedisConnection<byte[], byte[]> sub = client.connect(ByteArrayCodec.INSTANCE);
        byte[] group = {'g'};
        sub.sync().xgroupCreate(XReadArgs.StreamOffset.latest(key), group, XGroupCreateArgs.Builder.mkstream());
        Consumer<byte[]> consumer = Consumer.from(group, new byte[] {'c'});
        XReadArgs args = XReadArgs.Builder.block(1000).count(100);
        XReadArgs.StreamOffset<byte[]> offset = XReadArgs.StreamOffset.lastConsumed(key);
        RedisAsyncCommands<byte[], byte[]> c = sub.async();
        new Object() {
            void read() {
                c.xreadgroup(consumer, args, offset).whenComplete((List<StreamMessage<byte[], byte[]>> l, Throwable e) -> {
                    if (e != null) {
                        return;
                    }
                    if (!l.isEmpty()) {
                        String[] ids = new String[l.size()];
                        for (int i = 0; i < ids.length; i++) {
                            ids[i] = l.get(i).getId();
                            count.arrived(l.get(i).getBody().values().iterator().next()[0]);
                        }
                        c.xack(key, group, ids);
                    }
                    read();
                });
            }
        }.read();
        return sub;
    }
}
