package io.msgscope.driver.nats.netty;

import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.RoundTrip;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.nats.NatsDriver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import static io.msgscope.driver.nats.NatsDriverTest.requireSystemServer;
import static io.msgscope.driver.nats.netty.NettyEngineFakeServerTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lean engine against the shared nats-server on 127.0.0.1:4222 (required under CI=true): round trips in poll
 * and push mode, queue groups, PING/PONG drains, the server's limits, and many connections on one event loop.
 */
class NettyEngineTest {
    private static final String URI = "nats://127.0.0.1:4222";
    private static final ClientContext CONTEXT = new ClientContext(1, List.of());

    @AfterAll
    static void closeContext() {
        CONTEXT.close();
    }

    private static NatsDriver driver() {
        return new NatsDriver();
    }

    private static String subject() {
        return "msgscope.test." + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    private static DriverSpec spec(int size, Map<String, String> opts, String destination) {
        return new DriverSpec("", 0, URI, size, 0, opts, destination);
    }

    @Test
    void theNettyEngineIsTheDefaultForCoreNats() throws Exception {
        requireSystemServer();
        try (Subscriber sub = driver().openSubscriber(spec(64, Map.of(), ""), CONTEXT);
             Publisher pub = driver().openPublisher(spec(64, Map.of(), sub.destination()), CONTEXT)) {
            assertInstanceOf(NettyNatsSubscriber.class, sub);
            assertInstanceOf(NettyNatsPublisher.class, pub);
            Map<String, String> info = sub.serverInfo();
            assertEquals("nats 127.0.0.1:4222", info.get("broker"));
            assertEquals("netty", info.get("engine"));
            assertEquals("core NATS", info.get("protocol"));
            assertTrue(info.get("version").startsWith("2."), info.toString());
            assertFalse(info.get("server_id").isEmpty(), info.toString());
            assertEquals("false", info.get("tls"));
            assertEquals(InetAddress.getByName("127.0.0.1"), sub.localAddress());
        }
        assertTrue(driver().bindsSourceAddresses(Map.of()));
        assertTrue(driver().bindsSourceAddresses(Map.of("engine", "netty")));
        assertFalse(driver().bindsSourceAddresses(Map.of("engine", "jnats")));
        assertFalse(driver().bindsSourceAddresses(Map.of("jetstream", "true")));
    }

    @Test
    void roundTripsOfEverySizeArriveOnceInOrder() throws Exception {
        requireSystemServer();
        for (int size : new int[] {32, 64, 1024, 65_536, 1_048_576}) {
            int n = size >= 65_536 ? 200 : 20_000;
            RoundTrip rt = RoundTrip.run(driver(), URI, Map.of(), n, size);
            rt.assertAllOnce(n, true);
            assertEquals(0L, rt.publisherCounters.get("publish_errors"));
            System.out.println("nats netty engine, " + size + " B: " + rt.rate());
        }
    }

    @Test
    void pushDeliveryRunsTheHandlerOnTheEventLoop() throws Exception {
        requireSystemServer();
        int n = 20_000;
        AtomicIntegerArray arrivals = new AtomicIntegerArray(n);
        AtomicLong received = new AtomicLong();
        AtomicLong outOfOrder = new AtomicLong();
        List<String> ends = new java.util.concurrent.CopyOnWriteArrayList<>();
        String[] thread = new String[1];
        long[] last = {-1};
        MessageHandler h = (b, off) -> {
            long seq = WireHeader.sequence(b, off);
            arrivals.incrementAndGet((int) seq);
            if (seq != last[0] + 1) {
                outOfOrder.incrementAndGet();
            }
            last[0] = seq;
            thread[0] = Thread.currentThread().getName();
            received.incrementAndGet();
        };
        try (Subscriber sub = driver().openSubscriber(spec(64, Map.of(), ""), CONTEXT)) {
            sub.start(h, ends::add);
            try (Publisher pub = driver().openPublisher(spec(64, Map.of(), sub.destination()), CONTEXT)) {
                ByteBuffer buf = driver().allocatePayload(64);
                for (int i = 0; i < n; i++) {
                    WireHeader.writeSequence(buf, 0, i);
                    while (!pub.offer(buf, 0, 64)) {
                        Thread.onSpinWait(); // a pacer would serve its other connections here
                    }
                }
                pub.drain(10_000);
            }
            await(() -> received.get() == n, "all " + n + " messages pushed");
            for (int i = 0; i < n; i++) {
                assertEquals(1, arrivals.get(i), "arrivals of " + i);
            }
            assertEquals(0, outOfOrder.get());
            assertTrue(thread[0].startsWith("msgscope-io"), thread[0]);
        }
        assertEquals(List.of(), ends, "closing by msgscope is no end to report");
    }

    @Test
    void aQueueGroupGivesEachMessageToOneMember() throws Exception {
        requireSystemServer();
        String subject = subject();
        int n = 6000;
        AtomicIntegerArray arrivals = new AtomicIntegerArray(n);
        long[] perMember = new long[3];
        AtomicLong total = new AtomicLong();
        List<Subscriber> subs = new ArrayList<>();
        try {
            for (int m = 0; m < 3; m++) {
                Subscriber sub = driver().openSubscriber(spec(64, Map.of("subject", subject, "group", "workers"), ""),
                        CONTEXT);
                subs.add(sub);
                int member = m;
                sub.start((b, off) -> {
                    arrivals.incrementAndGet((int) WireHeader.sequence(b, off));
                    perMember[member]++; // one event loop serves all three
                    total.incrementAndGet();
                }, e -> { });
            }
            try (Publisher pub = driver().openPublisher(spec(64, Map.of(), subject), CONTEXT)) {
                ByteBuffer buf = driver().allocatePayload(64);
                for (int i = 0; i < n; i++) {
                    WireHeader.writeSequence(buf, 0, i);
                    pub.send(buf, 0, 64);
                }
                pub.drain(10_000);
            }
            await(() -> total.get() == n, n + " messages to the group");
            for (int i = 0; i < n; i++) {
                assertEquals(1, arrivals.get(i), "message " + i + " to exactly one member");
            }
            for (long k : perMember) {
                assertTrue(k > 0, "every member got some: " + java.util.Arrays.toString(perMember));
            }
        } finally {
            for (Subscriber s : subs) {
                s.close();
            }
        }
    }

    @Test
    void drainWaitsForThePong() throws Exception {
        requireSystemServer();
        try (NettyNatsSubscriber sub = (NettyNatsSubscriber) driver().openSubscriber(spec(64, Map.of(), ""), CONTEXT);
             Publisher pub = driver().openPublisher(spec(64, Map.of(), sub.destination()), CONTEXT)) {
            assertEquals(2, sub.connection().pongs(), "CONNECT's and SUB's PINGs answered");
            pub.drain(5_000);
            pub.drain(5_000);
            assertEquals(Map.of("publish_errors", 0L), pub.counters());
        }
    }

    @Test
    void aSizeAboveTheServersMaxPayloadIsAUsageError() {
        requireSystemServer();
        SpecException e = assertThrows(SpecException.class, () -> driver().openPublisher(spec(1_048_577, Map.of(),
                "msgscope.x"), CONTEXT));
        assertEquals("--size", e.option());
        assertTrue(e.getMessage().contains("at most 1048576 bytes with NATS at 127.0.0.1:4222 (its max_payload)"),
                e.getMessage());
        e = assertThrows(SpecException.class, () -> driver().openPublisher(spec(1_048_577, Map.of("engine", "jnats"),
                "msgscope.x"), CONTEXT));
        assertEquals("--size", e.option());
    }

    /**
     * The sending thread allocates nothing per message, also when messages go one per write (a paced publisher):
     * the publisher reuses its own write buffers (a fresh buffer per write was 16 bytes a message here, and a
     * sampled leak-detector stack trace every 128 writes).
     */
    @Test
    void thePublisherAllocatesNothingPerMessage() throws Exception {
        requireSystemServer();
        com.sun.management.ThreadMXBean tm = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        try (Publisher pub = driver().openPublisher(spec(64, Map.of(), subject()), CONTEXT)) {
            ByteBuffer buf = driver().allocatePayload(64);
            for (int round = 0; round < 2; round++) { // the first warms up
                int n = 20_000;
                long before = tm.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < n; i++) {
                    WireHeader.writeSequence(buf, 0, i);
                    pub.send(buf, 0, 64);
                    if (i % 2 == 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(10_000); // let the event loop take it alone
                    }
                }
                long perMessage = (tm.getCurrentThreadAllocatedBytes() - before) / n;
                pub.drain(10_000);
                if (round == 1) {
                    assertTrue(perMessage < 2, perMessage + " bytes allocated per message on the sending thread");
                }
            }
        }
    }

    /** Issue 13: the agent's thread count does not grow with its connections. */
    @Test
    void aHundredConnectionsShareOneEventLoop() throws Exception {
        requireSystemServer();
        String subject = subject();
        List<AutoCloseable> open = new ArrayList<>();
        try (ClientContext ctx = new ClientContext(1, List.of(InetAddress.getByName("127.0.0.2")))) {
            long before = ioThreads();
            AtomicLong received = new AtomicLong();
            for (int k = 0; k < 50; k++) {
                Subscriber sub = driver().openSubscriber(spec(64, Map.of("subject", subject), ""), ctx);
                open.add(sub);
                sub.start((b, off) -> received.incrementAndGet(), e -> { });
                assertEquals(InetAddress.getByName("127.0.0.2"), sub.localAddress(), "bound to the source address");
            }
            List<Publisher> pubs = new ArrayList<>();
            for (int k = 0; k < 50; k++) {
                Publisher p = driver().openPublisher(spec(64, Map.of(), subject), ctx);
                open.add(p);
                pubs.add(p);
            }
            assertEquals(before + 1, ioThreads(), "one event loop thread for 100 connections");
            ByteBuffer buf = driver().allocatePayload(64);
            for (Publisher p : pubs) {
                assertTrue(p.offer(buf, 0, 64));
            }
            for (Publisher p : pubs) {
                p.drain(10_000);
            }
            await(() -> received.get() == 50L * 50, "every message to every subscriber");
            for (int k = open.size() - 1; k >= 0; k--) {
                open.get(k).close();
            }
        }
    }

    private static long ioThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("msgscope-io")).count();
    }
}
