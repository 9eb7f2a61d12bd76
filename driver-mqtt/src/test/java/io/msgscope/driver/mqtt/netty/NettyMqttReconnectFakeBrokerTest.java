package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Reconnects;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.mqtt.netty.NettyEngineFakeBrokerTest.Packet;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static io.msgscope.driver.mqtt.netty.NettyEngineFakeBrokerTest.message;
import static io.msgscope.driver.mqtt.netty.NettyEngineFakeBrokerTest.read;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --opt reconnect=true} on the netty engine (issue 32 item 3) against a simulated MQTT 5 broker on a local
 * socket that acknowledges each publish unless told to drop that acknowledgement or to close the connection when a
 * given sequence arrives (a killed broker), and that answers a returning client's CONNECT with Session Present. Every
 * count is worked out by hand in the comments; the waits are for conditions, never for time.
 */
class NettyMqttReconnectFakeBrokerTest {
    private static final int SIZE = 64;

    /** The simulated broker: every connection in turn, what it was sent, and what it must do to which sequence. */
    static final class FakeMqtt implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        /** Sequences whose PUBACK (QoS 1) or PUBREC (QoS 2) is never sent. */
        final Set<Long> neverAck = ConcurrentHashMap.newKeySet();
        /** Sequences whose PUBACK (QoS 1) or PUBCOMP (QoS 2) is dropped the first time (a lost acknowledgement). */
        final Set<Long> dropAckOnce = ConcurrentHashMap.newKeySet();
        /** A sequence on whose first arrival the broker closes the connection without an answer. */
        volatile long closeOn = -1;
        final AtomicInteger connections = new AtomicInteger();
        /** The CONNECT's client id and clean-start flag, per connection. */
        final List<String> connects = new CopyOnWriteArrayList<>();
        /** Each measured PUBLISH as it arrived: "connection:sequence", with "dup" when the DUP flag was set. */
        final List<String> received = new CopyOnWriteArrayList<>();
        /** Each PUBREL: "connection:packet id". */
        final List<String> releases = new CopyOnWriteArrayList<>();
        /** For a subscriber: what to send on each connection after the CONNACK (before its SUBSCRIBE). */
        volatile java.util.function.IntFunction<List<byte[]>> toSubscriber = n -> List.of();
        /** For a subscriber: what to send on each connection after its SUBACK, and whether to close then. */
        volatile java.util.function.IntFunction<List<byte[]>> afterSubscribe = n -> List.of();
        volatile java.util.function.IntPredicate closeAfterSubscribe = n -> false;
        private final Thread acceptor;

        FakeMqtt() throws IOException {
            acceptor = new Thread(this::accept, "fake-mqtt");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String uri() {
            return "tcp://127.0.0.1:" + server.getLocalPort();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    int n = connections.incrementAndGet();
                    Thread t = new Thread(() -> serve(s, n), "fake-mqtt-" + n);
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket s, int conn) {
            try (s) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();
                Packet connect = read(in);
                byte[] b = connect.body(); // 00 04 MQTT, level, flags, keep-alive, properties, client id
                int props = b[10] & 0xff; // short properties (< 128 bytes)
                int at = 11 + props;
                String clientId = new String(b, at + 2, (b[at] & 0xff) << 8 | b[at + 1] & 0xff,
                        java.nio.charset.StandardCharsets.UTF_8);
                connects.add(clientId + (((b[7] & 0x02) != 0) ? " clean" : " resume"));
                out.write(new byte[] {0x20, 0x03, (byte) (conn > 1 ? 1 : 0), 0x00, 0x00}); // Session Present after 1
                for (byte[] p : toSubscriber.apply(conn)) {
                    out.write(p);
                }
                out.flush();
                while (true) {
                    Packet p = read(in);
                    switch (p.type()) {
                        case 8 -> { // SUBSCRIBE: granted QoS 1
                            out.write(new byte[] {(byte) 0x90, 0x04, p.body()[0], p.body()[1], 0x00, 0x01});
                            for (byte[] m : afterSubscribe.apply(conn)) {
                                out.write(m);
                            }
                            out.flush();
                            if (closeAfterSubscribe.test(conn)) {
                                return;
                            }
                        }
                        case 3 -> {
                            int qos = (p.flags() >>> 1) & 3;
                            byte[] body = p.body();
                            int id = (body[3] & 0xff) << 8 | body[4] & 0xff; // after topic "t"
                            long seq = WireHeader.sequence(ByteBuffer.wrap(body, 6, SIZE).slice()
                                    .order(ByteOrder.LITTLE_ENDIAN), 0); // after the id and an empty property list
                            if (seq >= 0) {
                                received.add(conn + ":" + seq + ((p.flags() & 0x08) != 0 ? "dup" : ""));
                                if (seq == closeOn) {
                                    closeOn = -1;
                                    return; // gone without an answer, as a killed broker
                                }
                                if (neverAck.contains(seq)) {
                                    continue;
                                }
                                if (qos == 1 && dropAckOnce.remove(seq)) {
                                    continue;
                                }
                            }
                            if (qos == 2) {
                                out.write(new byte[] {0x50, 0x02, (byte) (id >>> 8), (byte) id}); // PUBREC
                                if (seq >= 0 && dropAckOnce.remove(seq)) {
                                    out.flush();
                                    Packet rel = read(in);
                                    releases.add(conn + ":" + rel.id());
                                    return; // the PUBREL came, its PUBCOMP never will: the broker dies
                                }
                            } else {
                                out.write(new byte[] {0x40, 0x02, (byte) (id >>> 8), (byte) id}); // PUBACK
                            }
                            out.flush();
                        }
                        case 6 -> { // PUBREL
                            releases.add(conn + ":" + p.id());
                            out.write(new byte[] {0x70, 0x02, p.body()[0], p.body()[1]}); // PUBCOMP
                            out.flush();
                        }
                        case 14 -> {
                            return; // DISCONNECT
                        }
                        default -> { } // PUBACK from a subscriber, PINGREQ
                    }
                }
            } catch (IOException e) {
                // the client went or the broker closed
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    private static Publisher publisher(FakeMqtt fake, int qos) throws IOException {
        return Drivers.load().get("mqtt").openPublisher(new DriverSpec("", 0, fake.uri(), SIZE, 0,
                Map.of("qos", "" + qos, Reconnects.OPTION, "true"), "t"));
    }

    private static void send(Publisher p, long from, long to) throws IOException {
        for (long s = from; s < to; s++) {
            p.send(ByteBuffer.wrap(message(s)).order(ByteOrder.LITTLE_ENDIAN), 0, SIZE);
        }
    }

    private static void await(BooleanSupplier c, String what) {
        long deadline = System.nanoTime() + 60_000_000_000L; // generous: a loaded box
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "waited 60 s for " + what);
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L);
        }
    }

    @Test
    void qos1BrokerThatDiesMidRunCostsTwoRepublishesAndNothingIsHidden() throws Exception {
        try (FakeMqtt fake = new FakeMqtt()) {
            try (Publisher p = publisher(fake, 1)) {
                NettyMqttPublisher np = (NettyMqttPublisher) p;
                // 0-4 acknowledged on connection 1
                send(p, 0, 5);
                p.drain(60_000);
                // 5's PUBACK is lost; the broker dies when 6 arrives: neither is acknowledged on connection 1
                fake.dropAckOnce.add(5L);
                fake.closeOn = 6;
                send(p, 5, 7);
                await(() -> np.session.lostWhy() != null, "the lost connection");
                // the next send gets the connection back, publishes 5 and 6 again with DUP, then 7-9
                send(p, 7, 10);
                p.drain(60_000);
                Map<String, Long> c = p.counters();
                assertEquals(10L, c.get(Reconnects.CONFIRMED), c::toString);
                assertEquals(0L, c.get(Reconnects.UNCONFIRMED), c::toString);
                assertEquals(2L, c.get(Reconnects.REPUBLISHED), c::toString); // 5 and 6, once each
                assertEquals(1L, c.get(Reconnects.PUBLISHER_RECONNECTS), c::toString);
                assertEquals(10L, c.get("messages_acked"), c::toString);
                assertEquals(0L, c.get("publish_errors"), c::toString);
                assertArrayEquals(new long[0], p.unconfirmed());
                assertTrue(p.confirms());
                assertEquals(List.of("1:0", "1:1", "1:2", "1:3", "1:4", "1:5", "1:6", "2:5dup", "2:6dup", "2:7", "2:8",
                        "2:9"), fake.received);
                // the same client id twice, the session kept (clean start off) both times
                assertEquals(2, fake.connects.size(), fake.connects::toString);
                assertEquals(fake.connects.get(0), fake.connects.get(1));
                assertTrue(fake.connects.get(0).endsWith(" resume"), fake.connects::toString);
            }
        }
    }

    /**
     * QoS 2: 5's PUBREC came and its PUBCOMP did not (the broker died after the PUBREL), 6 was not answered: on the
     * kept session 5 gets its PUBREL again (not published again) and 6 is published again with DUP.
     */
    @Test
    void qos2ReleasesWhatTheBrokerHadReceivedAndRepublishesTheRest() throws Exception {
        try (FakeMqtt fake = new FakeMqtt()) {
            try (Publisher p = publisher(fake, 2)) {
                NettyMqttPublisher np = (NettyMqttPublisher) p;
                send(p, 0, 5);
                p.drain(60_000);
                fake.dropAckOnce.add(5L);
                send(p, 5, 6);
                await(() -> np.session.lostWhy() != null, "the lost connection");
                fake.closeOn = 6;
                send(p, 6, 7); // on connection 2, after 5's PUBREL again
                await(() -> fake.received.size() == 7 && np.session.lostWhy() != null, "the second lost connection");
                send(p, 7, 8);
                p.drain(60_000);
                Map<String, Long> c = p.counters();
                // connection 1 died after 5's PUBREC: 6 went to connection 2 (nothing was waiting but 5's release),
                // which died on 6; connection 3 then got 6 again and 7
                assertEquals(8L, c.get(Reconnects.CONFIRMED), c::toString);
                assertEquals(0L, c.get(Reconnects.UNCONFIRMED), c::toString);
                assertEquals(1L, c.get(Reconnects.REPUBLISHED), c::toString); // 6
                assertEquals(2L, c.get(Reconnects.PUBLISHER_RECONNECTS), c::toString);
                assertEquals(List.of("1:0", "1:1", "1:2", "1:3", "1:4", "1:5", "2:6", "3:6dup", "3:7"), fake.received);
                // PUBRELs: 0-5 on connection 1 (5's PUBCOMP never came), 5 again on connection 2, 6 and 7 on 3
                List<String> rel = new ArrayList<>(fake.releases);
                assertEquals(9, rel.size(), rel::toString);
                assertTrue(rel.get(5).startsWith("1:") && rel.get(6).startsWith("2:"), rel::toString);
                assertEquals(rel.get(5).substring(2), rel.get(6).substring(2), "5's packet id released again");
            }
        }
    }

    @Test
    void whatIsNeverAcknowledgedIsCountedUnconfirmedByRange() throws Exception {
        try (FakeMqtt fake = new FakeMqtt()) {
            fake.neverAck.addAll(List.of(3L, 4L, 8L));
            try (Publisher p = publisher(fake, 1)) {
                send(p, 0, 10);
                await(() -> p.counters().get(Reconnects.CONFIRMED) == 7, "the seven acknowledgements");
                p.drain(200); // gives up on the three without failing: counted, not hidden
                Map<String, Long> c = p.counters();
                assertEquals(3L, c.get(Reconnects.UNCONFIRMED), c::toString);
                assertEquals(0L, c.get(Reconnects.REPUBLISHED), c::toString);
                assertEquals(0L, c.get(Reconnects.PUBLISHER_RECONNECTS), c::toString);
                assertArrayEquals(new long[] {3, 5, 8, 9}, p.unconfirmed());
            }
        }
    }

    /**
     * The subscriber gets 0 and 1, the broker dies; back on the kept session the broker sends 1 again (DUP: its PUBACK
     * was lost) and 2 before the subscription is renewed, then 3: 0, 1, 1, 2, 3 delivered, one reconnect.
     */
    @Test
    void subscriberResumesItsSessionAndSubscribesAgain() throws Exception {
        try (FakeMqtt fake = new FakeMqtt()) {
            fake.afterSubscribe = n -> n == 1 ? List.of(publish(0, false), publish(1, false))
                    : List.of(publish(3, false));
            fake.closeAfterSubscribe = n -> n == 1;
            fake.toSubscriber = n -> n == 2 ? List.of(publish(1, true), publish(2, false)) : List.of();
            try (Subscriber sub = Drivers.load().get("mqtt").openSubscriber(new DriverSpec("", 0, fake.uri(), SIZE, 0,
                    Map.of("topic", "t", Reconnects.OPTION, "true"), ""))) {
                List<Long> got = new CopyOnWriteArrayList<>();
                await(() -> {
                    try {
                        sub.poll((buf, off) -> got.add(WireHeader.sequence(buf, off)), 10);
                    } catch (IOException e) {
                        throw new AssertionError(e);
                    }
                    return got.size() >= 5 && sub.counters().get(Reconnects.SUBSCRIBER_RECONNECTS) == 1;
                }, "five deliveries and the subscription renewed");
                assertEquals(List.of(0L, 1L, 1L, 2L, 3L), got);
                assertEquals(1L, sub.counters().get(Reconnects.SUBSCRIBER_RECONNECTS));
                assertEquals(null, sub.closeReason());
                assertEquals(2, fake.connects.size(), fake.connects::toString);
                assertEquals(fake.connects.get(0), fake.connects.get(1));
                assertTrue(fake.connects.get(0).endsWith(" resume"), fake.connects::toString);
            }
        }
    }

    /** Without the option a lost connection ends the publisher's run, as before. */
    @Test
    void reconnectOffStillFailsOnALostConnection() throws Exception {
        try (FakeMqtt fake = new FakeMqtt()) {
            fake.closeOn = 1;
            try (Publisher p = Drivers.load().get("mqtt").openPublisher(new DriverSpec("", 0, fake.uri(), SIZE, 0,
                    Map.of("qos", "1"), "t"))) {
                send(p, 0, 2);
                NettyMqttPublisher np = (NettyMqttPublisher) p;
                await(() -> np.session.lostWhy() != null, "the lost connection");
                assertThrows(IOException.class, () -> send(p, 2, 3));
                assertEquals(null, p.counters().get(Reconnects.CONFIRMED));
                assertEquals(1, fake.connections.get());
            }
        }
    }

    /** A QoS 1 PUBLISH of message {@code seq} on topic "t" (MQTT 5: an empty property list), packet id seq + 1. */
    static byte[] publish(long seq, boolean dup) {
        byte[] m = message(seq);
        int id = (int) seq + 1;
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.write(0x32 | (dup ? 0x08 : 0));
        b.write(2 + 1 + 2 + 1 + m.length);
        b.write(0);
        b.write(1);
        b.write('t');
        b.write(id >>> 8);
        b.write(id & 0xff);
        b.write(0);
        b.writeBytes(m);
        return b.toByteArray();
    }
}
