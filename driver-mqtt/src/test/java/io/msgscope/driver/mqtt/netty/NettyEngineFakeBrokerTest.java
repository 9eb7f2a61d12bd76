package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Subscriber;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
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
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lean engine's framing and acknowledgements against a scripted broker on a local socket, where
 * every byte is known: SUBACK refusals, QoS 1/2 acknowledgements, a QoS 2 redelivery, short payloads,
 * packets split across reads and the end of the connection (issue 5's faults, MQTT 3.1.1 §3), and the MQTT 5
 * reason codes (SUBACK, PUBACK, PUBREC, a DISCONNECT from the broker, Receive Maximum) over a real socket.
 */
class NettyEngineFakeBrokerTest {

    /** One packet as the broker reads it: type, flags and body. */
    record Packet(int type, int flags, byte[] body) {
        int id() {
            return (body[0] & 0xff) << 8 | body[1] & 0xff;
        }
    }

    interface Script {
        void run(DataInputStream in, OutputStream out, List<Packet> seen) throws IOException;
    }

    /** Accepts one client, answers its CONNECT with CONNACK 0, then runs {@code script}; records every packet read. */
    static final class FakeBroker implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        final List<Packet> seen = new CopyOnWriteArrayList<>();
        final Thread thread;

        FakeBroker(Script script) throws IOException {
            this(new byte[] {0x20, 0x02, 0x00, 0x00}, script);
        }

        /** Answers the CONNECT with {@code connack} (e.g. an MQTT 5 one with properties). */
        FakeBroker(byte[] connack, Script script) throws IOException {
            thread = new Thread(() -> {
                try (Socket c = server.accept()) {
                    DataInputStream in = new DataInputStream(c.getInputStream());
                    Packet connect = read(in);
                    seen.add(connect);
                    c.getOutputStream().write(connack);
                    script.run(in, c.getOutputStream(), seen);
                } catch (IOException ignored) {
                    // the client went
                }
            }, "fake-mqtt-broker");
            thread.start();
        }

        String uri() {
            return "tcp://127.0.0.1:" + server.getLocalPort();
        }

        @Override
        public void close() throws Exception {
            server.close();
            thread.join(10_000);
        }
    }

    static Packet read(DataInputStream in) throws IOException {
        int first = in.readUnsignedByte();
        int len = 0;
        int shift = 0;
        int b;
        do {
            b = in.readUnsignedByte();
            len |= (b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        byte[] body = new byte[len];
        in.readFully(body);
        return new Packet(first >>> 4, first & 0x0f, body);
    }

    /** A PUBLISH of {@code payload} on topic "t" at {@code qos} with packet id {@code id}. */
    static byte[] publish(int qos, int id, byte[] payload) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int len = 2 + 1 + (qos > 0 ? 2 : 0) + payload.length;
        b.write(0x30 | qos << 1);
        do {
            int d = len & 0x7f;
            len >>>= 7;
            b.write(len > 0 ? d | 0x80 : d);
        } while (len > 0);
        b.write(0);
        b.write(1);
        b.write('t');
        if (qos > 0) {
            b.write(id >>> 8);
            b.write(id & 0xff);
        }
        b.writeBytes(payload);
        return b.toByteArray();
    }

    static byte[] message(long seq) {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        WireHeader.writeSendTime(b, 0, 1);
        WireHeader.writeSequence(b, 0, seq);
        return b.array();
    }

    static Subscriber subscriber(FakeBroker broker, int qos) throws IOException {
        return Drivers.load().get("mqtt").openSubscriber(new DriverSpec("", 0, broker.uri(), 64, 0,
                Map.of("engine", "netty", "version", "3", "qos", "" + qos, "topic", "t"), ""));
    }

    @Test
    void subackFailureIsARefusedFaultNamingTheCode() throws Exception {
        try (FakeBroker broker = new FakeBroker((in, out, seen) -> {
            subscribe(in, seen);
            out.write(new byte[] {(byte) 0x90, 0x03, 0x00, 0x01, (byte) 0x80});
            in.read();
        })) {
            IOException e = assertThrows(IOException.class, () -> subscriber(broker, 1));
            assertEquals(Fault.Kind.REFUSED, Fault.kindOf(e));
            assertTrue(e.getMessage().contains("0x80") && e.getMessage().contains("refused the subscription"), e.getMessage());
        }
    }

    @Test
    void aLoweredQosIsARefusedFault() throws Exception {
        try (FakeBroker broker = new FakeBroker((in, out, seen) -> {
            Packet sub = subscribe(in, seen);
            assertEquals(2, sub.body[sub.body.length - 1], "the requested QoS");
            out.write(new byte[] {(byte) 0x90, 0x03, 0x00, 0x01, 0x01});
            in.read();
        })) {
            IOException e = assertThrows(IOException.class, () -> subscriber(broker, 2));
            assertEquals(Fault.Kind.REFUSED, Fault.kindOf(e));
            assertTrue(e.getMessage().contains("lowered") && e.getMessage().contains("qos=2"), e.getMessage());
        }
    }

    /**
     * QoS 0, 1 and 2 publishes, one split across two reads, a short payload and a QoS 2 redelivery:
     * each whole message delivered once, in order; PUBACK for QoS 1, PUBREC (twice for the redelivered
     * id) and PUBCOMP after PUBREL for QoS 2; then the broker hangs up and poll reports it.
     */
    @Test
    void deliversAcknowledgesAndCountsExactly() throws Exception {
        try (FakeBroker broker = new FakeBroker((in, out, seen) -> {
            subscribe(in, seen);
            out.write(new byte[] {(byte) 0x90, 0x03, 0x00, 0x01, 0x02});
            out.flush();
            byte[] qos1 = publish(1, 9, message(1));
            out.write(publish(0, 0, message(0)));
            out.write(qos1, 0, 10); // split: the framer must wait for the rest
            out.flush();
            sleep(100);
            out.write(qos1, 10, qos1.length - 10);
            out.write(publish(0, 0, new byte[10])); // shorter than the header
            out.write(publish(2, 7, message(2)));
            out.write(publish(2, 7, message(2))); // redelivered before our PUBREC (DUP)
            out.flush();
            assertEquals(9, awaitPacket(in, seen, 4).id(), "PUBACK");
            assertEquals(7, awaitPacket(in, seen, 5).id(), "PUBREC");
            assertEquals(7, awaitPacket(in, seen, 5).id(), "PUBREC of the redelivery");
            out.write(new byte[] {0x62, 0x02, 0x00, 0x07}); // PUBREL
            out.flush();
            assertEquals(7, awaitPacket(in, seen, 7).id(), "PUBCOMP");
        })) {
            List<Long> seqs = new ArrayList<>();
            try (Subscriber sub = subscriber(broker, 2)) {
                long deadline = System.nanoTime() + 10_000_000_000L;
                int n;
                while ((n = sub.poll((b, off) -> seqs.add(WireHeader.sequence(b, off)), 50)) >= 0
                        && System.nanoTime() < deadline) {
                    assertTrue(n >= 0);
                }
                assertEquals(-1, n, "poll reports the end of the connection");
                assertEquals(List.of(0L, 1L, 2L), seqs);
                Map<String, Long> c = sub.counters();
                assertEquals(1L, c.get("short_payloads"), c.toString());
                assertEquals(1L, c.get("qos2_redelivered"), c.toString());
                assertEquals(1L, c.get("errors"), c.toString());
                assertEquals(2L, c.get("qos_granted"), c.toString());
                assertNotNull(sub.closeReason());
                assertTrue(sub.closeReason().contains(broker.uri().substring(6)), sub.closeReason());
                assertEquals("netty", sub.serverInfo().get("engine"));
            }
            assertEquals(List.of(1, 8, 4, 5, 5, 7), broker.seen.stream().map(Packet::type).toList(),
                    "CONNECT, SUBSCRIBE, PUBACK, PUBREC, PUBREC, PUBCOMP");
        }
    }

    /**
     * The publisher at QoS 2: PUBLISH, then PUBREL on the broker's PUBREC, and the PUBCOMP counts as
     * acknowledged; a PUBCOMP for an id never released counts as a publish error.
     */
    @Test
    void qos2PublisherReleasesAndCountsCompletions() throws Exception {
        try (FakeBroker broker = new FakeBroker((in, out, seen) -> {
            int[] ids = new int[3];
            for (int k = 0; k < 3; k++) {
                Packet p = awaitPacket(in, seen, 3);
                assertEquals(2, (p.flags >>> 1) & 3, "QoS bits");
                ids[k] = (p.body[3] & 0xff) << 8 | p.body[4] & 0xff; // after topic "t"
            }
            for (int id : ids) {
                out.write(new byte[] {0x50, 0x02, (byte) (id >>> 8), (byte) id}); // PUBREC
                out.flush();
                assertEquals(id, awaitPacket(in, seen, 6).id(), "PUBREL");
                out.write(new byte[] {0x70, 0x02, (byte) (id >>> 8), (byte) id}); // PUBCOMP
                out.flush();
            }
            out.write(new byte[] {0x70, 0x02, 0x01, 0x00}); // PUBCOMP for id 256, never sent
            out.flush();
            in.read();
        })) {
            var pub = Drivers.load().get("mqtt").openPublisher(new DriverSpec("", 0, broker.uri(), 64, 0,
                    Map.of("engine", "netty", "version", "3", "qos", "2"), "t"));
            try (pub) {
                for (long seq = -1; seq < 2; seq++) {
                    pub.send(ByteBuffer.wrap(message(seq)).order(ByteOrder.LITTLE_ENDIAN), 0, 64);
                }
                pub.drain(10_000);
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (pub.counters().get("publish_errors") == 0 && System.nanoTime() < deadline) {
                    sleep(10);
                }
                Map<String, Long> c = pub.counters();
                assertEquals(2L, c.get("messages_acked"), c.toString());
                assertEquals(1L, c.get("warmup_acked"), c.toString());
                assertEquals(1L, c.get("publish_errors"), c.toString());
                assertTrue(pub.firstError().contains("PUBCOMP for packet id 256"), pub.firstError());
            }
        }
    }

    /**
     * QoS 1 with {@code max_inflight=2}: never more than 2 PUBLISHes on the wire without their PUBACK;
     * the sender waits in {@code send} until PUBACKs free room.
     */
    @Test
    void qos1KeepsAtMostMaxInflightOnTheWire() throws Exception {
        try (FakeBroker broker = new FakeBroker((in, out, seen) -> {
            for (int round = 0; round < 3; round++) {
                Packet a = awaitPacket(in, seen, 3);
                Packet b = awaitPacket(in, seen, 3);
                sleep(300);
                assertEquals(0, in.available(), "a third PUBLISH went out before a PUBACK, round " + round);
                for (Packet p : new Packet[] {a, b}) {
                    int id = (p.body[3] & 0xff) << 8 | p.body[4] & 0xff;
                    out.write(new byte[] {0x40, 0x02, (byte) (id >>> 8), (byte) id});
                }
                out.flush();
            }
            in.read();
        })) {
            var pub = Drivers.load().get("mqtt").openPublisher(new DriverSpec("", 0, broker.uri(), 64, 0,
                    Map.of("engine", "netty", "version", "3", "qos", "1", "max_inflight", "2"), "t"));
            try (pub) {
                for (long seq = 0; seq < 6; seq++) {
                    pub.send(ByteBuffer.wrap(message(seq)).order(ByteOrder.LITTLE_ENDIAN), 0, 64);
                }
                pub.drain(10_000);
                assertEquals(6L, pub.counters().get("messages_acked"), pub.counters().toString());
                assertEquals(0L, pub.counters().get("publish_errors"), pub.counters().toString());
            }
        }
    }

    // ------------------------------------------------------------------ MQTT 5

    /** MQTT 5 CONNACK, success, no properties. */
    static final byte[] CONNACK5 = {0x20, 0x03, 0x00, 0x00, 0x00};

    static Subscriber subscriber5(FakeBroker broker, int qos) throws IOException {
        return Drivers.load().get("mqtt").openSubscriber(new DriverSpec("", 0, broker.uri(), 64, 0,
                Map.of("qos", "" + qos, "topic", "t"), ""));
    }

    /** A SUBACK of 0x87 with a reason string: REFUSED, the code and the string named. */
    @Test
    void mqtt5SubackRefusalNamesItsReasonCode() throws Exception {
        try (FakeBroker broker = new FakeBroker(CONNACK5, (in, out, seen) -> {
            Packet sub = subscribe(in, seen);
            assertEquals(1, sub.body[sub.body.length - 1] & 3, "the requested QoS in the subscription options");
            out.write(NettyEngineCodecTest.packet(0x90, new byte[] {0, 1}, NettyEngineCodecTest.props(
                    NettyEngineCodecTest.concat(new byte[] {0x1F}, NettyEngineCodecTest.str("acl"))), new byte[] {(byte) 0x87}));
            in.read();
        })) {
            IOException e = assertThrows(IOException.class, () -> subscriber5(broker, 1));
            assertEquals(Fault.Kind.REFUSED, Fault.kindOf(e));
            assertEquals("MQTT broker at " + broker.uri().substring(6) + " refused the subscription to 't': SUBACK "
                    + "reason code 0x87 NOT_AUTHORIZED (acl)", e.getMessage());
        }
    }

    /**
     * The broker's DISCONNECT (0x8B) mid-stream: the messages before it delivered, then poll reports the end
     * and the reason names the code; the connection is closed.
     */
    @Test
    void mqtt5DisconnectFromTheBrokerEndsTheSubscription() throws Exception {
        try (FakeBroker broker = new FakeBroker(CONNACK5, (in, out, seen) -> {
            subscribe(in, seen);
            out.write(NettyEngineCodecTest.suback(5, 1));
            out.write(NettyEngineCodecTest.publish(5, 1, 3, NettyEngineCodecTest.props(), message(0)));
            out.flush();
            assertEquals(3, awaitPacket(in, seen, 4).id(), "PUBACK");
            out.write(NettyEngineCodecTest.packet(0xE0, new byte[] {(byte) 0x8B}, NettyEngineCodecTest.props()));
            out.flush();
            assertEquals(-1, in.read(), "the client closed the connection");
        })) {
            List<Long> seqs = new ArrayList<>();
            try (Subscriber sub = subscriber5(broker, 1)) {
                long deadline = System.nanoTime() + 10_000_000_000L;
                int n;
                while ((n = sub.poll((b, off) -> seqs.add(WireHeader.sequence(b, off)), 50)) >= 0
                        && System.nanoTime() < deadline) {
                    assertTrue(n >= 0);
                }
                assertEquals(-1, n);
                assertEquals(List.of(0L), seqs);
                assertEquals("connection to MQTT broker at " + broker.uri().substring(6) + " lost (the broker sent "
                        + "DISCONNECT with reason code 0x8B SERVER_SHUTTING_DOWN)", sub.closeReason());
            }
        }
    }

    /**
     * The publisher at MQTT 5 QoS 1: PUBACK 0x87 refuses (counted, named with its reason string), 0x10 (no
     * matching subscribers) succeeds; the CONNACK's Receive Maximum of 2 keeps at most 2 publishes on the wire
     * although max_inflight allows 100.
     */
    @Test
    void mqtt5PubackReasonCodesAndReceiveMaximum() throws Exception {
        byte[] connack = NettyEngineCodecTest.connack(5, 0, NettyEngineCodecTest.props(new byte[] {0x21, 0, 2}));
        try (FakeBroker broker = new FakeBroker(connack, (in, out, seen) -> {
            int[] codes = {0x87, 0x10, 0x00, 0x00, 0x00, 0x87};
            for (int round = 0; round < 3; round++) {
                Packet a = awaitPacket(in, seen, 3);
                Packet b = awaitPacket(in, seen, 3);
                sleep(200);
                assertEquals(0, in.available(), "a third PUBLISH went out beyond the Receive Maximum, round " + round);
                int k = 0;
                for (Packet p : new Packet[] {a, b}) {
                    int id = (p.body[3] & 0xff) << 8 | p.body[4] & 0xff;
                    int code = codes[2 * round + k++];
                    out.write(code == 0 ? NettyEngineCodecTest.ack(4, id) : NettyEngineCodecTest.packet(0x40,
                            new byte[] {(byte) (id >>> 8), (byte) id, (byte) code}, NettyEngineCodecTest.props(
                                    NettyEngineCodecTest.concat(new byte[] {0x1F}, NettyEngineCodecTest.str("no")))));
                }
                out.flush();
            }
            in.read();
        })) {
            var pub = Drivers.load().get("mqtt").openPublisher(new DriverSpec("", 0, broker.uri(), 64, 0,
                    Map.of("qos", "1", "max_inflight", "100"), "t"));
            try (pub) {
                for (long seq = 0; seq < 6; seq++) {
                    pub.send(ByteBuffer.wrap(message(seq)).order(ByteOrder.LITTLE_ENDIAN), 0, 64);
                }
                pub.drain(10_000);
                Map<String, Long> c = pub.counters();
                assertEquals(4L, c.get("messages_acked"), c.toString());
                assertEquals(2L, c.get("publish_refused"), c.toString());
                assertEquals(2L, c.get("publish_errors"), c.toString());
                assertEquals("MQTT broker at " + broker.uri().substring(6) + " refused a QoS 1 publish: PUBACK reason "
                        + "code 0x87 NOT_AUTHORIZED (no)", pub.firstError());
            }
        }
    }

    /** Reads packets until one of {@code type} arrives; returns it. */
    static Packet awaitPacket(DataInputStream in, List<Packet> seen, int type) throws IOException {
        while (true) {
            Packet p = read(in);
            seen.add(p);
            if (p.type == type) {
                return p;
            }
        }
    }

    /** Reads the client's SUBSCRIBE (flags 0x2, §3.8.1). */
    static Packet subscribe(DataInputStream in, List<Packet> seen) throws IOException {
        Packet p = read(in);
        seen.add(p);
        assertEquals(8, p.type, "SUBSCRIBE");
        assertEquals(2, p.flags, "SUBSCRIBE flags");
        return p;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
