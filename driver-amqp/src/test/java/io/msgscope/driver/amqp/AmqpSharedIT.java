package io.msgscope.driver.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.msgscope.driver.amqp.AmqpTestSupport.Recording;
import static io.msgscope.driver.amqp.AmqpTestSupport.assertOneLine;
import static io.msgscope.driver.amqp.AmqpTestSupport.await;
import static io.msgscope.driver.amqp.AmqpTestSupport.send;
import static io.msgscope.driver.amqp.AmqpTestSupport.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * amqp-client in NIO mode on the agent's shared pools (issue 13): round trips on one I/O thread per side, the
 * thread count against a few hundred connections, push delivery and its end, a non-blocking offer, source
 * addresses, and the broker's socket limit named when a handshake goes unanswered.
 */
class AmqpSharedIT {
    private final AmqpDriver driver = new AmqpDriver();

    private static List<String> amqpThreads() {
        return AmqpShared.threads().stream().map(Thread::getName).sorted().toList();
    }

    /**
     * Full-speed round trips on a context of one I/O thread: every message once, in order, on one NIO loop per side.
     * Right after basic.consume and channel.open-ok the publisher fills its write queue at once: amqp-client waited
     * for room holding the channel lock the loop needed for that reply, a 10 s stall (now the publisher waits itself).
     */
    @ParameterizedTest
    @EnumSource(Broker.class)
    void fullSpeedRoundTripsOnOneIoThreadPerSide(Broker broker) throws Exception {
        String uri = broker.uri();
        java.util.Set<Thread> before = new java.util.HashSet<>(AmqpShared.threads());
        try (ClientContext ctx = ClientContext.single()) {
            for (int round = 0; round < 10; round++) {
                Map<String, String> opts = round % 2 == 0 ? Map.of() : Map.of("confirm", "500");
                try (Subscriber sub = driver.openSubscriber(spec(uri, opts), ctx)) {
                    Recording h = new Recording(5_000);
                    sub.start(h, reason -> { });
                    try (Publisher pub = driver.openPublisher(spec(uri, opts).withDestination(sub.destination()), ctx)) {
                        send(pub, 0, 5_000);
                        pub.drain(30_000);
                        h.await(30);
                        List<Long> got = h.sequences();
                        for (int i = 0; i < 5_000; i++) {
                            assertEquals(i, got.get(i), "round " + round + ": in order, once");
                        }
                        assertEquals(0L, pub.counters().get("errors"));
                        assertTrue(h.threads().stream().allMatch(t -> t.startsWith("msgscope-amqp-dispatch-")),
                                h.threads().toString());
                    }
                }
            }
            List<String> mine = AmqpShared.threads().stream().filter(t -> !before.contains(t)).map(Thread::getName)
                    .sorted().toList();
            assertEquals(2, mine.stream().filter(n -> n.startsWith("msgscope-amqp-io-")).count(),
                    "one NIO loop per side: " + mine);
            assertEquals(1, mine.stream().filter(n -> n.startsWith("msgscope-amqp-dispatch-")).count(), mine.toString());
        }
        await(() -> AmqpShared.threads().stream().allMatch(t -> before.contains(t)
                        || t.getName().startsWith("msgscope-amqp-closing-")), 10,
                "the context's pools stop with it (idle closing threads end within 5 s): " + amqpThreads());
    }

    /**
     * 300 connections (150 subscribers, 150 publishers, a topic each) on a context of two I/O threads: the JVM's
     * thread count after them is what it was after the first ten, and amqp-client made no thread of its own.
     */
    @Test
    void threadCountDoesNotGrowWithConnections() throws Exception {
        String uri = Broker.RABBITMQ.uri();
        String base = "msgscope.it-threads-" + UUID.randomUUID();
        var mx = ManagementFactory.getThreadMXBean();
        List<Subscriber> subs = new ArrayList<>();
        List<Publisher> pubs = new ArrayList<>();
        List<Recording> got = new ArrayList<>();
        java.util.Set<Thread> before = new java.util.HashSet<>(AmqpShared.threads());
        ClientContext ctx = new ClientContext(2, List.of());
        try {
            int baseline = 0;
            for (int i = 0; i < 150; i++) {
                Map<String, String> o = Map.of("topic", base + "." + i);
                Subscriber s = driver.openSubscriber(spec(uri, o), ctx);
                subs.add(s);
                Recording r = new Recording(1);
                got.add(r);
                s.start(r, reason -> { });
                Publisher p = driver.openPublisher(spec(uri, o), ctx);
                pubs.add(p);
                send(p, i, 1);
                if (i == 4) {
                    for (int j = 0; j <= i; j++) {
                        got.get(j).await(10);
                    }
                    baseline = mx.getThreadCount();
                }
            }
            for (int i = 0; i < got.size(); i++) {
                got.get(i).await(20);
                assertEquals(List.of((long) i), got.get(i).sequences(), "each subscriber its own topic's message");
            }
            int after = mx.getThreadCount();
            System.out.printf("threads: %d after 10 connections, %d after 300 (%s)%n", baseline, after, amqpThreads());
            assertTrue(after <= baseline + 2, "threads grew from " + baseline + " to " + after + ": " + amqpThreads());
            // 2 loops per side, 2 dispatch threads, 1 heartbeat thread; nothing of amqp-client's own
            List<String> mine = AmqpShared.threads().stream().filter(t -> !before.contains(t)).map(Thread::getName)
                    .sorted().toList();
            assertTrue(mine.size() <= 7, mine.toString());
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                String n = t.getName();
                assertFalse(n.startsWith("AMQP Connection") || n.startsWith("rabbitmq-") || n.contains("heartbeat")
                        && !n.startsWith("msgscope-amqp-"), "amqp-client thread " + n);
            }
        } finally {
            for (Publisher p : pubs) {
                p.close();
            }
            for (Subscriber s : subs) {
                s.close();
            }
            ctx.close(); // after its connections, as the roles do
        }
    }

    /** RabbitMQ cancels the consumer of a deleted queue (basic.cancel): {@code ended} is called once, in one line. */
    @Test
    void pushModeReportsADeletedQueueOnce() throws Exception {
        String uri = Broker.RABBITMQ.uri();
        List<String> ends = new CopyOnWriteArrayList<>();
        try (ClientContext ctx = ClientContext.single(); Subscriber sub = driver.openSubscriber(spec(uri, Map.of()), ctx);
             Publisher pub = driver.openPublisher(spec(uri, Map.of()).withDestination(sub.destination()), ctx)) {
            Recording h = new Recording(100);
            sub.start(h, ends::add);
            assertThrows(IllegalStateException.class, () -> sub.poll(h, 0), "push mode is not polled");
            send(pub, 0, 100);
            h.await(10);
            ConnectionFactory f = new ConnectionFactory();
            f.setUri(uri);
            try (Connection c = f.newConnection(); Channel ch = c.createChannel()) {
                ch.queueDelete(sub.destination());
            }
            await(() -> !ends.isEmpty(), 10, "ended after the queue was deleted");
            assertEquals(1, ends.size(), ends.toString());
            assertOneLine(ends.get(0));
            assertTrue(ends.get(0).contains(sub.destination()) && ends.get(0).contains("deleted"), ends.get(0));
            assertEquals(ends.get(0), sub.closeReason());
        }
        assertEquals(1, ends.size(), "close() is no end to report: " + ends);
    }

    /** A broker that goes away: {@code ended} once, naming the broker's address. */
    @Test
    void pushModeReportsALostConnectionOnce() throws Exception {
        List<String> ends = new CopyOnWriteArrayList<>();
        EmbeddedQpid own = EmbeddedQpid.start();
        boolean stopped = false;
        try (ClientContext ctx = ClientContext.single();
             Subscriber sub = driver.openSubscriber(spec(own.uri(), Map.of()), ctx)) {
            sub.start((b, o) -> { }, ends::add);
            own.close();
            stopped = true;
            await(() -> !ends.isEmpty(), 15, "ended after the broker stopped");
            assertEquals(1, ends.size(), ends.toString());
            assertOneLine(ends.get(0));
            assertTrue(ends.get(0).contains("127.0.0.1:" + own.port), ends.get(0));
        } finally {
            if (!stopped) {
                own.close();
            }
        }
    }

    /**
     * offer never waits: with a confirm window of 1 it refuses until the broker confirmed the last message, and with
     * transactions it sends tx.commit without waiting; every accepted message arrives once, in order.
     */
    @ParameterizedTest
    @EnumSource(Broker.class)
    void offerRefusesInsteadOfWaiting(Broker broker) throws Exception {
        String uri = broker.uri();
        for (Map<String, String> opts : List.of(Map.of("confirm", "1"), Map.of("tx_size", "10"))) {
            try (ClientContext ctx = ClientContext.single(); Subscriber sub = driver.openSubscriber(spec(uri, opts), ctx);
                 Publisher pub = driver.openPublisher(spec(uri, opts).withDestination(sub.destination()), ctx)) {
                Recording h = new Recording(1_000);
                sub.start(h, reason -> { });
                ByteBuffer b = driver.allocatePayload(AmqpTestSupport.SIZE);
                long refused = 0;
                for (int i = 0; i < 1_000; ) {
                    WireHeader.writeSequence(b, 0, i);
                    if (pub.offer(b, 0, AmqpTestSupport.SIZE)) {
                        i++;
                    } else {
                        refused++;
                        java.util.concurrent.locks.LockSupport.parkNanos(20_000); // a pacer's next round
                    }
                }
                pub.drain(30_000);
                h.await(30);
                List<Long> got = h.sequences();
                for (int i = 0; i < 1_000; i++) {
                    assertEquals(i, got.get(i));
                }
                System.out.println(broker + " " + opts + ": offer refused " + refused + " times, " + pub.counters());
                if (opts.containsKey("confirm")) {
                    assertTrue(refused > 0, "a window of 1 must refuse while a confirm is outstanding");
                    assertEquals(1_000L, pub.counters().get("messages_acked"));
                } else {
                    assertEquals(100L, pub.counters().get("producer_tx_commits"));
                }
                assertEquals(0L, pub.counters().get("errors"));
            }
        }
    }

    /**
     * Every connection binds its socket to the context's next source address before it connects, in NIO mode and
     * with {@code io=blocking} (a message through each, too).
     */
    @ParameterizedTest
    @EnumSource(Broker.class)
    void socketsBindTheContextsSourceAddresses(Broker broker) throws Exception {
        String uri = broker.uri();
        InetAddress a2 = InetAddress.getByName("127.0.0.2");
        InetAddress a3 = InetAddress.getByName("127.0.0.3");
        for (Map<String, String> opts : List.of(Map.<String, String>of(), Map.of("io", "blocking"))) {
            try (ClientContext ctx = new ClientContext(1, List.of(a2, a3));
                 Subscriber s1 = driver.openSubscriber(spec(uri, opts), ctx);
                 Subscriber s2 = driver.openSubscriber(spec(uri, opts), ctx)) {
                assertEquals(List.of(a2, a3), List.of(s1.localAddress(), s2.localAddress()), opts.toString());
                Recording r = new Recording(100);
                s2.start(r, reason -> { });
                try (Publisher p = driver.openPublisher(spec(uri, opts).withDestination(s2.destination()), ctx)) {
                    send(p, 0, 100);
                    r.await(10);
                }
                assertEquals(100, r.sequences().size());
            }
            try (ClientContext ctx = new ClientContext(1, List.of(InetAddress.getByName("192.0.2.1")))) {
                IOException e = assertThrows(IOException.class, () -> driver.openSubscriber(spec(uri, opts), ctx));
                System.out.println(broker + " " + opts + ", a source address not on this machine: " + e.getMessage());
                assertOneLine(e.getMessage());
                assertTrue(e.getMessage().contains("source address 192.0.2.1"), e.getMessage());
            }
        }
    }

    /**
     * A broker past its socket limit accepts TCP and never answers (RabbitMQ 3.10, tried with ulimit -n 256: the
     * 142nd connection): the failure names the limit and the setting, with this agent's open connections.
     */
    @Test
    void anUnansweredHandshakeNamesTheBrokersSocketLimit() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> accepted = new CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept()); // accepted, never answered
                    }
                } catch (IOException e) {
                    // closed
                }
            }, "silent-broker");
            acceptor.setDaemon(true);
            acceptor.start();
            String uri = "amqp://guest:guest@127.0.0.1:" + silent.getLocalPort() + "/%2f";
            long t0 = System.nanoTime();
            IOException e = assertThrows(IOException.class, () -> driver.openSubscriber(spec(uri, Map.of())));
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("silent broker (%.1f s): %s%n", s, e.getMessage());
            assertOneLine(e.getMessage());
            assertTrue(e.getMessage().contains("127.0.0.1:" + silent.getLocalPort()), e.getMessage());
            assertTrue(e.getMessage().contains("did not complete the AMQP handshake"), e.getMessage());
            assertTrue(e.getMessage().contains("0 connections open") && e.getMessage().contains("ulimit -n"),
                    e.getMessage());
            assertTrue(s < TimeUnit.MILLISECONDS.toSeconds(AmqpConnections.HANDSHAKE_TIMEOUT_MS) + 3, "took " + s + " s");
            for (Socket a : accepted) {
                a.close();
            }
        }
    }
}
