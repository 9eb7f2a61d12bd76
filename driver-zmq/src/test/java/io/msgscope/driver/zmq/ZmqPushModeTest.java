package io.msgscope.driver.zmq;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.MiddleBox;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Push-mode subscribers on the agent's shared pollers (issue 13): several sockets received by one thread, in order,
 * the handler on that thread; an idle poller sleeps; a subscriber closes cleanly while the others go on; the
 * context's close stops the poller; a publisher's offer refuses at the high-water mark instead of waiting.
 */
class ZmqPushModeTest {
    private static final int SIZE = 64;
    private final ZmqDriver driver = new ZmqDriver();

    /** Records the sequences delivered and the threads that delivered them. */
    private static final class Recording implements MessageHandler {
        private final List<Long> sequences = new ArrayList<>();
        private final Set<String> threads = new HashSet<>();

        @Override
        public synchronized void onMessage(ByteBuffer buffer, int offset) {
            sequences.add(WireHeader.sequence(buffer, offset));
            threads.add(Thread.currentThread().getName());
        }

        synchronized List<Long> sequences() {
            return new ArrayList<>(sequences);
        }

        synchronized Set<String> threads() {
            return new HashSet<>(threads);
        }
    }

    /** The ZeroMQ proxy of the broker-probe agent, forwarding on a thread of its own. */
    private static final class Proxy implements AutoCloseable {
        final MiddleBox box;
        final CompletableFuture<Void> done = new CompletableFuture<>();

        Proxy(Map<String, String> options) throws Exception {
            box = new ZmqDriver().openMiddleBox(new DriverSpec("127.0.0.1", 0, "", SIZE, 0, options, ""),
                    "127.0.0.1", 0, 0);
            Thread t = new Thread(() -> {
                try {
                    box.forward((buf, off, index) -> { });
                    done.complete(null);
                } catch (Exception e) {
                    done.completeExceptionally(e);
                }
            }, "proxy-under-test");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() throws Exception {
            box.close();
            done.get(5, TimeUnit.SECONDS);
        }
    }

    private static DriverSpec spec(Map<String, String> options, int port, String destination) {
        return new DriverSpec("127.0.0.1", port, "", SIZE, 0, options, destination);
    }

    private static void send(Publisher pub, long first, int n) throws Exception {
        ByteBuffer b = new ZmqDriver().allocatePayload(SIZE);
        for (long i = first; i < first + n; i++) {
            WireHeader.writeSequence(b, 0, i);
            pub.send(b, 0, SIZE);
        }
    }

    private static void await(BooleanSupplier condition, long seconds, String what) throws InterruptedException {
        io.msgscope.core.test.Await.until(condition, seconds, what);
    }

    private static List<Long> range(long first, int n) {
        List<Long> l = new ArrayList<>();
        for (long i = first; i < first + n; i++) {
            l.add(i);
        }
        return l;
    }

    @Test
    void severalSubscribersOnOnePollerThreadCloseCleanly() throws Exception {
        Map<String, String> ps = Map.of("via", "proxy", "pattern", "pubsub");
        ClientContext ctx = ClientContext.single(); // one I/O thread: one poller
        ZmqPoller poller = null;
        try (Proxy proxy = new Proxy(ps)) {
            List<Subscriber> subs = new ArrayList<>();
            List<Publisher> pubs = new ArrayList<>();
            List<Recording> got = new ArrayList<>();
            try {
                int threadsAfterFirst = 0;
                for (int i = 0; i < 5; i++) {
                    Map<String, String> o = Map.of("via", "proxy", "pattern", "pubsub", "topic", "t." + i);
                    Subscriber s = driver.openSubscriber(spec(o, proxy.box.egressPort(), ""), ctx);
                    Recording r = new Recording();
                    s.start(r, reason -> fail("ended: " + reason));
                    subs.add(s);
                    got.add(r);
                    pubs.add(driver.openPublisher(spec(ps, proxy.box.ingressPort(), "t." + i), ctx));
                    if (i == 0) {
                        threadsAfterFirst = java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
                    }
                }
                int threads = java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
                assertTrue(threads <= threadsAfterFirst + 1, "one context, one poller: " + threadsAfterFirst
                        + " threads after the first subscriber and publisher, " + threads + " after five each");
                poller = ZmqShared.of(ctx).poller();
                for (int i = 0; i < 5; i++) {
                    send(pubs.get(i), i * 10_000L, 1_000);
                }
                for (int i = 0; i < 5; i++) {
                    final Recording r = got.get(i);
                    await(() -> r.sequences().size() >= 1_000, 10, "1,000 messages on t." + i);
                    assertEquals(range(i * 10_000L, 1_000), r.sequences(), "t." + i + ": its own, once, in order");
                    assertEquals(Set.of("msgscope-zmq-poller-1"), r.threads(), "one thread delivers for all");
                }
                assertThrows(IllegalStateException.class, () -> subs.get(0).poll((b, o) -> { }, 0));

                subs.get(0).close(); // returns once the poller has closed its socket
                assertFalse(ZmqShared.of(ctx).zmq().getSockets().contains(((ZmqSubscriber) subs.get(0)).socket()),
                        "the poller closed the socket");
                for (int i = 1; i < 5; i++) {
                    send(pubs.get(i), i * 10_000L + 1_000, 100);
                }
                for (int i = 1; i < 5; i++) {
                    final Recording r = got.get(i);
                    await(() -> r.sequences().size() >= 1_100, 10, "the others go on: t." + i);
                    assertEquals(range(i * 10_000L, 1_100), r.sequences());
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
        poller.thread().join(5_000);
        assertFalse(poller.thread().isAlive(), "the context's close stops its poller");
    }

    /** Nothing arrives, nothing wakes: the poller waits in its poll with no timeout. */
    @Test
    void anIdlePollerSleeps() throws Exception {
        Map<String, String> pp = Map.of("via", "proxy");
        try (ClientContext ctx = ClientContext.single(); Proxy proxy = new Proxy(pp)) {
            Subscriber s = driver.openSubscriber(spec(pp, proxy.box.egressPort(), ""), ctx);
            Publisher p = driver.openPublisher(spec(pp, proxy.box.ingressPort(), ""), ctx);
            try {
                Recording r = new Recording();
                s.start(r, reason -> { });
                ZmqPoller poller = ZmqShared.of(ctx).poller();
                send(p, 0, 10);
                await(() -> r.sequences().size() == 10, 10, "10 messages");
                long before = poller.passes();
                Thread.sleep(300); // a span with nothing to do: what matters is that nothing happens in it
                assertEquals(before, poller.passes(), "an idle poller does not wake");
                send(p, 10, 1);
                await(() -> r.sequences().size() == 11, 10, "the 11th message");
                assertTrue(poller.passes() > before);
            } finally {
                p.close();
                s.close();
            }
        }
    }

    /**
     * offer never waits: at the high-water mark (both ends 10, nobody receiving yet) it refuses; once the subscriber
     * is started every accepted message arrives, once, in order.
     */
    @Test
    void offerRefusesAtTheHighWaterMarkAndEveryAcceptedMessageArrives() throws Exception {
        int size = 4_096; // fills the TCP buffers between the two sooner
        Map<String, String> o = Map.of("hwm", "10");
        try (ClientContext ctx = ClientContext.single()) {
            Subscriber s = driver.openSubscriber(new DriverSpec("", 0, "", size, 0, o, ""), ctx);
            Publisher p = driver.openPublisher(new DriverSpec("", 0, "", size, 0, o, s.destination()), ctx);
            try {
                ByteBuffer b = driver.allocatePayload(size);
                long accepted = 0;
                boolean refused = false;
                for (int attempt = 0; attempt < 1_000_000 && !refused; attempt++) {
                    WireHeader.writeSequence(b, 0, accepted);
                    if (p.offer(b, 0, size)) {
                        accepted++;
                    } else {
                        refused = true;
                    }
                }
                assertTrue(refused, "the high-water mark was never reached after " + accepted + " messages");
                List<Long> got = new ArrayList<>();
                s.start((buf, off) -> {
                    synchronized (got) {
                        got.add(WireHeader.sequence(buf, off));
                    }
                }, reason -> { });
                final long n = accepted;
                await(() -> {
                    synchronized (got) {
                        return got.size() >= n;
                    }
                }, 20, accepted + " messages after start");
                synchronized (got) {
                    assertEquals(range(0, (int) n), got, "every accepted message once, in order");
                }
                System.out.println("zmq offer: refused after " + accepted + " messages of " + size + " B (hwm 10)");
            } finally {
                p.close();
                s.close();
            }
        }
    }

    @Test
    void aPolledSubscriberCannotBeStarted() throws Exception {
        try (ClientContext ctx = ClientContext.single();
             Subscriber s = driver.openSubscriber(new DriverSpec("", 0, "", SIZE, 0, Map.of(), ""), ctx)) {
            s.poll((b, o) -> { }, 0);
            assertThrows(IllegalStateException.class, () -> s.start((b, o) -> { }, r -> { }));
        }
    }
}
