package io.msgscope.driver.redis;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Reconnects;
import io.msgscope.core.driver.Subscriber;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --opt reconnect=true} (issue 32 item 3) against a PRIVATE redis-server on a free port (append-only file
 * fsynced before each reply, no snapshots), SIGKILLed while a publisher sends {@value #N} messages, 1 a millisecond,
 * and started again on the same files {@value #DOWN_MS} ms later: every message the server confirmed is there after
 * the restart, so every one arrives (streams), the publisher sends again what had no reply and both sides count one
 * reconnect; pub/sub subscribes again and loses what was published meanwhile, counted. Without the option a kill
 * ends the subscription and fails the publisher. The server is stopped by its PID; skipped without redis-server,
 * failed under CI=true.
 */
class RedisReconnectTest {
    private static final int N = 1000;
    private static final int KILL_AT = 300;
    private static final long DOWN_MS = 300;
    @TempDir
    Path dir;
    private int port;
    private Process server;

    @BeforeEach
    void start() throws Exception {
        PrivateRedis.require("redis-server");
        port = PrivateRedis.freePort();
        startServer();
    }

    private void startServer() throws Exception {
        server = PrivateRedis.start(port, dir.resolve("redis.log"), "--port", "" + port, "--save", "",
                "--appendonly", "yes", "--appendfsync", "always", "--dir", dir.toString());
    }

    @AfterEach
    void stop() throws InterruptedException {
        PrivateRedis.stop(server);
    }

    /** What one run saw: arrivals per sequence, and both sides' counters. */
    private record Seen(int[] arrivals, Map<String, Long> publisher, Map<String, Long> subscriber, long[] unconfirmed) {
        int distinct() {
            return (int) java.util.Arrays.stream(arrivals).filter(a -> a > 0).count();
        }

        int duplicates() {
            return java.util.Arrays.stream(arrivals).map(a -> Math.max(0, a - 1)).sum();
        }
    }

    /** Sends N messages with the options, the server killed at KILL_AT and started again DOWN_MS later. */
    private Seen run(Map<String, String> options) throws Exception {
        int[] arrivals = new int[N];
        AtomicBoolean stop = new AtomicBoolean();
        try (ClientContext context = new ClientContext(2, List.of())) {
            RedisDriver d = new RedisDriver();
            DriverSpec spec = new DriverSpec("", 0, "redis://127.0.0.1:" + port, 64, 0, options, "");
            try (Subscriber sub = d.openSubscriber(spec, context);
                 Publisher pub = d.openPublisher(spec.withDestination(sub.destination()), context)) {
                Thread poller = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            sub.poll((b, o) -> {
                                long seq = WireHeader.sequence(b, o);
                                synchronized (arrivals) {
                                    arrivals[(int) seq]++;
                                }
                            }, 50);
                        }
                    } catch (IOException e) {
                        System.out.println("subscriber ended: " + e.getMessage());
                    }
                });
                poller.start();
                ByteBuffer b = d.allocatePayload(64);
                Thread restarter = null;
                for (int i = 0; i < N; i++) {
                    if (i == KILL_AT) {
                        server.destroyForcibly();
                        server.waitFor(5, TimeUnit.SECONDS);
                        restarter = new Thread(() -> {
                            try {
                                Thread.sleep(DOWN_MS);
                                startServer();
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        });
                        restarter.start();
                    }
                    WireHeader.writeSequence(b, 0, i);
                    pub.send(b, 0, 64);
                    Thread.sleep(1);
                }
                pub.drain(10_000);
                restarter.join();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (System.nanoTime() < deadline) {
                    synchronized (arrivals) {
                        if (java.util.Arrays.stream(arrivals).allMatch(a -> a > 0)) {
                            break;
                        }
                    }
                    Thread.sleep(20);
                }
                Thread.sleep(200); // duplicates still on their way
                stop.set(true);
                poller.join();
                synchronized (arrivals) {
                    Seen s = new Seen(arrivals.clone(), pub.counters(), sub.counters(), pub.unconfirmed());
                    System.out.println("redis reconnect " + options + ": " + s.distinct() + " distinct, "
                            + s.duplicates() + " duplicates, publisher " + s.publisher() + ", subscriber "
                            + s.subscriber());
                    return s;
                }
            }
        }
    }

    @Test
    void streamsLoseNothingTheServerConfirmedAndCountWhatWasSentAgain() throws Exception {
        Seen s = run(Map.of("reconnect", "true"));
        assertEquals(N, s.distinct(), "every message arrived");
        assertEquals(1L, s.publisher().get(Reconnects.PUBLISHER_RECONNECTS), s.publisher()::toString);
        assertEquals(1L, s.subscriber().get(Reconnects.SUBSCRIBER_RECONNECTS), s.subscriber()::toString);
        assertEquals((long) N, s.publisher().get(Reconnects.CONFIRMED), s.publisher()::toString);
        assertEquals(0L, s.publisher().get(Reconnects.UNCONFIRMED), s.publisher()::toString);
        assertEquals(0, s.unconfirmed().length);
        assertEquals(0L, s.publisher().get("publish_errors"), s.publisher()::toString);
        // sent again: what had no reply at the kill (each reply waits for the fsync: tens of ms on a busy disk),
        // at most the window of max_inflight commands
        long republished = s.publisher().get(Reconnects.REPUBLISHED);
        assertTrue(republished <= 1000, s.publisher()::toString);
        // a duplicate is a republished message the server had stored, or a pending entry read again
        assertTrue(s.duplicates() <= republished + 100, () -> s.duplicates() + " duplicates");
    }

    @Test
    void pubSubSubscribesAgainAndLosesOnlyWhatWasPublishedWhileItWasAway() throws Exception {
        Seen s = run(Map.of("reconnect", "true", "mode", "pubsub"));
        assertEquals(1L, s.publisher().get(Reconnects.PUBLISHER_RECONNECTS), s.publisher()::toString);
        assertEquals(1L, s.subscriber().get(Reconnects.SUBSCRIBER_RECONNECTS), s.subscriber()::toString);
        // at most once: what went to the server while the subscriber was away is lost (nothing, when it was back
        // before the publisher), what the publisher sent again may arrive twice
        assertTrue(s.duplicates() <= s.publisher().get(Reconnects.REPUBLISHED), () -> s.duplicates() + " duplicates");
        for (int i = 0; i < KILL_AT - 100; i++) { // the last ones before the kill may have been in flight
            assertEquals(1, s.arrivals()[i], "before the kill: " + i);
        }
        for (int i = N - 100; i < N; i++) {
            assertEquals(1, s.arrivals()[i], "after the restart: " + i);
        }
    }

    @Test
    void withoutTheOptionEverySendAfterTheKillFailsAndNothingIsSentAgain() throws Exception {
        Seen s = run(Map.of());
        // today's behaviour: each later publish is an error (which fails the run), nothing reconnects
        assertTrue(s.publisher().get("publish_errors") >= N - KILL_AT, s.publisher()::toString);
        assertTrue(s.distinct() <= KILL_AT, () -> s.distinct() + " distinct");
        assertEquals(null, s.publisher().get(Reconnects.PUBLISHER_RECONNECTS));
        assertEquals(null, s.subscriber().get(Reconnects.SUBSCRIBER_RECONNECTS));
    }
}
