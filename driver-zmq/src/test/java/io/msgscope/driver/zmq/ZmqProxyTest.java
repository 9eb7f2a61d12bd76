package io.msgscope.driver.zmq;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.MiddleBox;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ZeroMQ middle box (M1, M10): the forwarding loop the broker-probe agent runs, driven here with
 * the driver's own publisher and subscriber on loopback. Every message passes the tap once, in
 * place, in order; PUB/SUB topics match exactly (not as prefixes); the welcome handshake means not a
 * message is lost to the slow joiner although nothing sleeps; short payloads are counted.
 */
class ZmqProxyTest {
    private static final int SIZE = 64;

    private static ZmqDriver driver() {
        return (ZmqDriver) Drivers.load().get("zmq");
    }

    /** A running proxy: its forwarding thread and the tap's record of indices. */
    private static final class Running implements AutoCloseable {
        final MiddleBox box;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final List<Long> indices = new ArrayList<>();

        Running(Map<String, String> options) throws Exception {
            box = driver().openMiddleBox(spec(options, 0, ""), "127.0.0.1", 0, 0);
            Thread t = new Thread(() -> {
                try {
                    box.forward((buf, off, index) -> {
                        synchronized (indices) {
                            indices.add(index);
                        }
                        WireHeader.writeProbe(buf, off, 1000 + index, 7); // the probe's in-place stamp
                    });
                    done.complete(null);
                } catch (Exception e) {
                    done.completeExceptionally(e);
                }
            }, "proxy-under-test");
            t.setDaemon(true);
            t.start();
        }

        Subscriber subscribe(Map<String, String> options) throws Exception {
            return driver().openSubscriber(spec(options, box.egressPort(), ""));
        }

        Publisher publish(Map<String, String> options, String topic) throws Exception {
            return driver().openPublisher(spec(options, box.ingressPort(), topic));
        }

        @Override
        public void close() throws Exception {
            box.close();
            done.get(5, TimeUnit.SECONDS); // the loop notices within one 100 ms step
        }
    }

    private static DriverSpec spec(Map<String, String> options, int port, String destination) {
        return new DriverSpec("127.0.0.1", port, "", SIZE, 0, options, destination);
    }

    private static void send(Publisher pub, long first, int n) throws Exception {
        ByteBuffer b = driver().allocatePayload(SIZE);
        for (long i = first; i < first + n; i++) {
            WireHeader.writeSequence(b, 0, i);
            pub.send(b, 0, SIZE);
        }
    }

    interface Body {
        void run() throws Exception;
    }

    /**
     * A receiver that got not one message: the connection never carried any, JeroMQ 0.6.0's set-up race
     * (docs/limits.md: about 1 connection in 60 on loopback, no msgscope code involved). Told apart from a
     * loss, which delivers some messages and not others.
     */
    private static final class DeadConnection extends AssertionError {
        DeadConnection(int expected) {
            super("messages received: 0 of " + expected + " within 10 s: a connection that never carried one");
        }
    }

    /**
     * A receiver whose messages stopped coming: what came is exactly the first {@code got} sequences, in order,
     * and nothing after them within 10 s — JeroMQ 0.6.0's mid-stream stall (issue #1008, docs/limits.md: 1 run
     * in ~45-60 under load here, the last high-water mark's worth of messages left in the proxy-to-subscriber
     * connection). Told apart from a loss, which leaves a gap or delivers out of order.
     */
    private static final class StalledConnection extends AssertionError {
        StalledConnection(int got, int expected) {
            super("messages received: the first " + got + " of " + expected + " in order, then none within 10 s: "
                    + "a connection that stalled");
        }
    }

    /**
     * A receiver that missed the first messages and got every later one, in order: the connection they were queued
     * on got stuck in JeroMQ 0.6.0's set-up (the fault {@link DeadConnection} shows when it never heals) and the
     * 1 s ZMTP handshake deadline ({@code ZmqEndpoints.HANDSHAKE_IVL_MS}) dropped it with what it held — up to a
     * high-water mark's worth — and made a new one that carried the rest. Measured with {@code hwm=10} under load:
     * 13 of 200 attempts lost exactly sequences 0..9; with the deadline at 10 s, 28 of 200 lost 0..9 and then
     * stalled within the receive's 10 s (docs/limits.md). Told apart from a loss in the proxy, which leaves a gap
     * elsewhere or loses the same messages on every attempt.
     */
    private static final class HealedConnection extends AssertionError {
        HealedConnection(int got, int expected) {
            super("messages received: all but the first " + (expected - got) + " of " + expected + ", in order: "
                    + "a connection redone at its handshake deadline with what it held");
        }
    }

    /**
     * Runs {@code body} again on a fresh proxy (up to 3 times in all) only when a connection carried nothing
     * at all ({@link DeadConnection}), stalled after an exact in-order prefix ({@link StalledConnection}) or was
     * redone losing an exact prefix ({@link HealedConnection}), JeroMQ's documented connection faults; any other
     * failure (a gap, a duplicate, a reordering, a wrong count or tap stamp) fails at once, and a fault that comes
     * back on every attempt fails too. Every attempt checks the whole behaviour.
     */
    private static void onAWorkingConnection(Body body) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                body.run();
                return;
            } catch (DeadConnection | StalledConnection | HealedConnection e) {
                if (attempt == 3) {
                    throw e;
                }
                System.out.println(e.getMessage() + " (JeroMQ set-up, docs/limits.md); again on a fresh proxy "
                        + "(attempt " + (attempt + 1) + ")");
            }
        }
    }

    /**
     * Polls until {@code n} messages came (or 10 s); returns their sequences and probe stamps. None at all
     * is a {@link DeadConnection}; some but not all a failed assertion.
     */
    private static long[][] receive(Subscriber sub, int n) throws Exception {
        long[][] got = new long[2][n];
        int[] k = {0};
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (k[0] < n && System.nanoTime() < deadline) {
            sub.poll((buf, off) -> {
                if (k[0] < n) {
                    got[0][k[0]] = WireHeader.sequence(buf, off);
                    got[1][k[0]] = buf.getLong(off + WireHeader.PROBE_CPU_OFFSET);
                }
                k[0]++;
            }, 50);
        }
        if (k[0] == 0) {
            throw new DeadConnection(n);
        }
        if (k[0] < n && isPrefix(got[0], k[0])) {
            throw new StalledConnection(k[0], n);
        }
        if (k[0] < n && isSuffix(got[0], k[0], n)) {
            throw new HealedConnection(k[0], n);
        }
        assertEquals(n, k[0], () -> "messages received; " + missing(got[0], Math.min(k[0], n), n));
        return got;
    }

    /** Whether the first {@code k} sequences are n - k, ..., n - 1: every message after a lost first few. */
    private static boolean isSuffix(long[] sequences, int k, int n) {
        for (int i = 0; i < k; i++) {
            if (sequences[i] != n - k + i) {
                return false;
            }
        }
        return true;
    }

    /** Which of the sequences 0..n-1 the first {@code k} received lack, as ranges, for a failure's message. */
    private static String missing(long[] sequences, int k, int n) {
        java.util.BitSet seen = new java.util.BitSet(n);
        for (int i = 0; i < k; i++) {
            if (sequences[i] >= 0 && sequences[i] < n) {
                seen.set((int) sequences[i]);
            }
        }
        StringBuilder b = new StringBuilder("missing sequences:");
        for (int from = seen.nextClearBit(0); from < n; from = seen.nextClearBit(from)) {
            int to = Math.min(seen.nextSetBit(from) < 0 ? n : seen.nextSetBit(from), n);
            b.append(' ').append(from).append(to - 1 > from ? ".." + (to - 1) : "");
            from = to;
        }
        return b.toString();
    }

    /** Whether the first {@code k} sequences are 0, 1, ..., k - 1 (every test here sends from 0). */
    private static boolean isPrefix(long[] sequences, int k) {
        for (int i = 0; i < k; i++) {
            if (sequences[i] != i) {
                return false;
            }
        }
        return true;
    }

    @Test
    void pushPullThroughTheProxyPassesEveryMessageOnceInOrderThroughTheTap() throws Exception {
        onAWorkingConnection(this::pushPullThroughTheProxyPassesEveryMessageOnceInOrderThroughTheTapOnce);
    }

    private void pushPullThroughTheProxyPassesEveryMessageOnceInOrderThroughTheTapOnce() throws Exception {
        Map<String, String> o = Map.of("via", "proxy");
        try (Running p = new Running(o); Subscriber sub = p.subscribe(o); Publisher pub = p.publish(o, "")) {
            send(pub, 0, 10_000);
            long[][] got = receive(sub, 10_000);
            for (int i = 0; i < 10_000; i++) {
                assertEquals(i, got[0][i]);
                assertEquals(1000 + i, got[1][i], "the tap's stamp travels in the message");
            }
            assertEquals(0, sub.poll((b, off) -> { }, 100), "no duplicates");
            assertEquals(10_000, p.box.forwarded());
            assertTrue(p.box.helperCpuNs() > 0, "JeroMQ's I/O thread did the socket work and its CPU is found");
            synchronized (p.indices) {
                assertEquals(10_000, p.indices.size());
                assertEquals(9_999L, p.indices.get(9_999));
            }
            assertEquals(0L, sub.counters().get("errors"));
        }
    }

    /**
     * The first messages through a fresh proxy all arrive, with no attempt repeated: the subscriber's connect waits
     * for its ZMTP handshake (ZmqEndpoints.connectVerified), so no publisher starts while the proxy can still route
     * into a connection JeroMQ 0.6.0 is about to drop. Before, 6 to 12 of 300 fresh pairs on loopback lost their
     * first 100 messages that way (a throughput run's whole window: its warm-up timed out); 30 pairs here.
     */
    @Test
    void theFirstMessagesOfEveryFreshProxyConnectionArrive() throws Exception {
        Map<String, String> o = Map.of("via", "proxy");
        for (int pair = 0; pair < 30; pair++) {
            try (Running p = new Running(o); Subscriber sub = p.subscribe(o); Publisher pub = p.publish(o, "")) {
                send(pub, 0, 100);
                long[][] got = receive(sub, 100);
                for (int i = 0; i < 100; i++) {
                    assertEquals(i, got[0][i], "pair " + pair);
                }
            }
        }
    }

    @Test
    void aHighWaterMarkBlocksInsteadOfDropping() throws Exception {
        onAWorkingConnection(this::aHighWaterMarkBlocksInsteadOfDroppingOnce);
    }

    private void aHighWaterMarkBlocksInsteadOfDroppingOnce() throws Exception {
        Map<String, String> o = Map.of("via", "proxy", "hwm", "10");
        try (Running p = new Running(o); Subscriber sub = p.subscribe(o); Publisher pub = p.publish(o, "")) {
            send(pub, 0, 5_000);
            long[][] got = receive(sub, 5_000);
            assertEquals(4_999, got[0][4_999]);
        }
        Map<String, String> ps = Map.of("via", "proxy", "pattern", "pubsub", "hwm", "10");
        try (Running p = new Running(ps); Subscriber sub = p.subscribe(ps); Publisher pub = p.publish(ps, "msgscope")) {
            send(pub, 0, 5_000);
            long[][] got = receive(sub, 5_000);
            assertEquals(4_999, got[0][4_999], "XPUB_NODROP: the publisher waited instead of dropping");
        }
    }

    @Test
    void pubSubTopicsMatchExactlyAndNoMessageIsLostToTheSlowJoiner() throws Exception {
        onAWorkingConnection(this::pubSubTopicsMatchExactlyAndNoMessageIsLostToTheSlowJoinerOnce);
    }

    private void pubSubTopicsMatchExactlyAndNoMessageIsLostToTheSlowJoinerOnce() throws Exception {
        Map<String, String> base = Map.of("via", "proxy", "pattern", "pubsub");
        Map<String, String> t1 = Map.of("via", "proxy", "pattern", "pubsub", "topic", "t.1");
        Map<String, String> t10 = Map.of("via", "proxy", "pattern", "pubsub", "topic", "t.10");
        try (Running p = new Running(base);
             Subscriber a = p.subscribe(t1); Subscriber b = p.subscribe(t1); Subscriber c = p.subscribe(t10);
             Publisher p1 = p.publish(base, "t.1"); Publisher p10 = p.publish(base, "t.10")) {
            // no sleep anywhere: the subscribers had their welcome, the publishers their subscription
            send(p1, 0, 1_000);
            send(p10, 0, 500);
            for (Subscriber s : List.of(a, b)) {
                long[][] got = receive(s, 1_000);
                assertEquals(0, got[0][0], "the very first message arrived");
                assertEquals(999, got[0][999]);
            }
            receive(c, 500);
            for (Subscriber s : List.of(a, b, c)) {
                assertEquals(0, s.poll((buf, off) -> { }, 200), "'t.1' must not receive 't.10' (prefix match)");
                assertEquals(0L, s.counters().get("errors"));
                assertTrue(s.counters().get("welcomes") >= 1, s.counters().toString());
            }
            assertEquals(1_500, p.box.forwarded());
            assertEquals(3L, p.box.counters().get("proxy_subscriptions"));
        }
    }

    @Test
    void aPayloadShorterThanTheHeaderPassesUnstampedAndIsCountedAsAnError() throws Exception {
        // the subscriber's connection can be the one JeroMQ leaves dead too (CI saw it): a fresh proxy then
        onAWorkingConnection(this::aPayloadShorterThanTheHeaderPassesUnstampedAndIsCountedAsAnErrorOnce);
    }

    private void aPayloadShorterThanTheHeaderPassesUnstampedAndIsCountedAsAnErrorOnce() throws Exception {
        Map<String, String> o = Map.of("via", "proxy");
        try (Running p = new Running(o); Subscriber sub = p.subscribe(o); ZContext ctx = new ZContext(1)) {
            byte[] good = new byte[SIZE];
            WireHeader.writeSequence(ByteBuffer.wrap(good).order(java.nio.ByteOrder.LITTLE_ENDIAN), 0, 3);
            // JeroMQ 0.6.0 now and then leaves a connection that never carries a message (README, known
            // limits): the driver's handshake deadline, and a fresh socket if nothing came within 3 s
            for (int attempt = 0; attempt < 3 && p.box.forwarded() == 0; attempt++) {
                ZMQ.Socket push = ctx.createSocket(SocketType.PUSH);
                push.setHandshakeIvl(ZmqEndpoints.HANDSHAKE_IVL_MS);
                push.setLinger(0);
                push.connect("tcp://127.0.0.1:" + p.box.ingressPort());
                push.send(new byte[10], 0);
                push.send(good, 0);
                long deadline = System.nanoTime() + 3_000_000_000L;
                while (p.box.forwarded() < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                ctx.destroySocket(push);
            }
            long[][] got = receive(sub, 1);
            assertEquals(3, got[0][0]);
            assertEquals(1L, sub.counters().get("short_payloads"));
            assertEquals(1L, sub.counters().get("errors"));
            assertEquals(1L, p.box.counters().get("proxy_short_frames"));
            synchronized (p.indices) {
                assertEquals(List.of(1L), p.indices, "only the whole message went through the tap");
            }
        }
    }
}
