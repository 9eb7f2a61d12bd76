package io.msgscope.driver.zmq;

import io.msgscope.core.driver.RoundTrip;
import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Subscriber;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ZeroMQ driver, brokerless: PULL bound by the subscriber, PUSH connected by the publisher. */
class ZmqDriverTest {
    private static ZmqDriver driver() {
        return (ZmqDriver) Drivers.load().get("zmq");
    }

    @Test
    void tenThousandMessagesArriveOnceInOrder() throws Exception {
        RoundTrip rt = RoundTrip.run(driver(), "", Map.of(), 10_000, 64);
        rt.assertAllOnce(10_000, true);
        assertTrue(rt.destination.matches("tcp://127\\.0\\.0\\.1:\\d+"), rt.destination);
        System.out.println("zmq push/pull: " + rt.rate());
    }

    @Test
    void aHighWaterMarkStillDeliversEverything() throws Exception {
        RoundTrip rt = RoundTrip.run(driver(), "", Map.of("hwm", "100"), 10_000, 512);
        rt.assertAllOnce(10_000, true);
    }

    @Test
    void shortAndOversizePayloadsAreCountedNotDelivered() throws Exception {
        DriverSpec spec = new DriverSpec("", 0, "", 64, 0, Map.of(), "");
        try (Subscriber sub = driver().openSubscriber(spec); ZContext ctx = new ZContext(1)) {
            byte[] good = new byte[64];
            WireHeader.writeSequence(java.nio.ByteBuffer.wrap(good).order(java.nio.ByteOrder.LITTLE_ENDIAN), 0, 7);
            long[] seen = {-1, 0};
            // JeroMQ 0.6.0 now and then leaves a connection that never carries a message (README, known
            // limits): with the driver's own handshake deadline, and a fresh socket if nothing came in 3 s
            for (int attempt = 0; attempt < 3 && seen[1] == 0; attempt++) {
                ZMQ.Socket push = ctx.createSocket(SocketType.PUSH);
                push.setHandshakeIvl(ZmqEndpoints.HANDSHAKE_IVL_MS);
                push.setLinger(0);
                push.connect(sub.destination());
                push.send(new byte[10], 0);
                push.send(new byte[200], 0);
                push.send(good, 0);
                long deadline = System.nanoTime() + 3_000_000_000L;
                while (seen[1] < 1 && System.nanoTime() < deadline) {
                    sub.poll((buf, off) -> {
                        seen[0] = WireHeader.sequence(buf, off);
                        seen[1]++;
                    }, 50);
                }
                ctx.destroySocket(push);
            }
            assertEquals(1, seen[1]);
            assertEquals(7, seen[0]);
            assertEquals(1L, sub.counters().get("short_payloads"));
            assertEquals(1L, sub.counters().get("oversize_payloads"));
            assertEquals(2L, sub.counters().get("errors"));
        }
    }

    @Test
    void pollTimesOutWithZeroWhenNothingComes() throws Exception {
        try (Subscriber sub = driver().openSubscriber(new DriverSpec("", 0, "", 64, 0, Map.of(), ""))) {
            long t0 = System.nanoTime();
            assertEquals(0, sub.poll((b, o) -> { }, 100));
            double ms = (System.nanoTime() - t0) / 1e6;
            assertTrue(ms >= 80 && ms < 2_000, "waited " + ms + " ms");
        }
    }

    @Test
    void noPeerIsOneLineNamingTheAddressWithinTheConnectTimeout() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        long t0 = System.nanoTime();
        IOException e = assertThrows(IOException.class, () -> driver().openPublisher(
                new DriverSpec("", 0, "", 64, 0, Map.of(), "tcp://127.0.0.1:" + port)));
        double s = (System.nanoTime() - t0) / 1e9;
        assertTrue(s < 8, "took " + s + " s");
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    /**
     * A subscriber through the proxy returns only once its connection has completed the ZMTP handshake: against a
     * port that accepts TCP but never speaks ZeroMQ it gives up after 3 attempts of 3 s, in one line naming the
     * address, instead of waiting for messages that could never come (or that the proxy routed into a connection
     * JeroMQ later drops).
     */
    @Test
    void aSubscriberThroughTheProxyWaitsForItsHandshakeAndNamesTheAddressWhenNoneComes() throws Exception {
        try (ServerSocket mute = new ServerSocket(0)) {
            Thread acceptor = new Thread(() -> {
                java.util.List<java.net.Socket> held = new java.util.ArrayList<>();
                try {
                    while (true) {
                        held.add(mute.accept()); // accepted and never answered
                    }
                } catch (IOException closed) {
                    held.forEach(h -> {
                        try {
                            h.close();
                        } catch (IOException ignored) {
                            // closing anyway
                        }
                    });
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            long t0 = System.nanoTime();
            IOException e = assertThrows(IOException.class, () -> driver().openSubscriber(
                    new DriverSpec("127.0.0.1", mute.getLocalPort(), "", 64, 0, Map.of("via", "proxy"), "")));
            double s = (System.nanoTime() - t0) / 1e9;
            assertTrue(s >= 3 * ZmqEndpoints.HANDSHAKE_TIMEOUT_MS / 1e3 - 0.5 && s < 20, "took " + s + " s");
            assertTrue(e.getMessage().contains("handshake with tcp://127.0.0.1:" + mute.getLocalPort()), e.getMessage());
            assertTrue(e.getMessage().contains("(3 attempts)"), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
    }

    @Test
    void badOptionsNameTheOption() {
        assertEquals("--opt hwm", assertThrows(SpecException.class, () -> driver().openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("hwm", "-1"), ""))).option());
        assertEquals("--opt qos", assertThrows(SpecException.class, () -> driver().openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("qos", "1"), ""))).option());
    }
}
