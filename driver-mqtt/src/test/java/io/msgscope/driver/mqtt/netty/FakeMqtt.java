package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Publisher;
import io.msgscope.driver.mqtt.netty.NettyEngineFakeBrokerTest.Packet;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static io.msgscope.driver.mqtt.netty.NettyEngineFakeBrokerTest.read;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A simulated MQTT 5 broker on a local socket (issue 32 item 3), for both engines' reconnect tests: every connection in
 * turn, what it was sent, and what it must do to which sequence. It acknowledges each publish unless told to drop that
 * acknowledgement or to close the connection when a given sequence arrives (a killed broker), and answers a returning
 * client's CONNECT with Session Present. Publishes carry 64-byte messages on topic "t".
 */
public final class FakeMqtt implements AutoCloseable {
    /** The message size every publish carries. */
    public static final int SIZE = 64;
    public final ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    /** Sequences whose PUBACK (QoS 1) or PUBREC (QoS 2) is never sent. */
    public final Set<Long> neverAck = ConcurrentHashMap.newKeySet();
    /** Sequences whose PUBACK (QoS 1) or PUBCOMP (QoS 2) is dropped the first time (a lost acknowledgement). */
    public final Set<Long> dropAckOnce = ConcurrentHashMap.newKeySet();
    /** A sequence on whose first arrival the broker closes the connection without an answer. */
    public volatile long closeOn = -1;
    public final AtomicInteger connections = new AtomicInteger();
    /** The CONNECT's client id and clean-start flag, per connection. */
    public final List<String> connects = new CopyOnWriteArrayList<>();
    /** Each measured PUBLISH as it arrived: "connection:sequence", with "dup" when the DUP flag was set. */
    public final List<String> received = new CopyOnWriteArrayList<>();
    /** Each PUBREL: "connection:packet id". */
    public final List<String> releases = new CopyOnWriteArrayList<>();
    /** For a subscriber: what to send on each connection after the CONNACK (before its SUBSCRIBE). */
    public volatile java.util.function.IntFunction<List<byte[]>> toSubscriber = n -> List.of();
    /** For a subscriber: what to send on each connection after its SUBACK, and whether to close then. */
    public volatile java.util.function.IntFunction<List<byte[]>> afterSubscribe = n -> List.of();
    public volatile java.util.function.IntPredicate closeAfterSubscribe = n -> false;
    private final Thread acceptor;

    public FakeMqtt() throws IOException {
        acceptor = new Thread(this::accept, "fake-mqtt");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String uri() {
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

    /** A QoS 1 PUBLISH of message {@code seq} on topic "t" (MQTT 5: an empty property list), packet id seq + 1. */
    public static byte[] publish(long seq, boolean dup) {
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

    /** Message {@code seq}: 64 bytes with a wire header. */
    public static byte[] message(long seq) {
        return NettyEngineFakeBrokerTest.message(seq);
    }

    /** Sends messages {@code from} to {@code to} (exclusive), one per call. */
    public static void send(Publisher p, long from, long to) throws IOException {
        for (long s = from; s < to; s++) {
            p.send(ByteBuffer.wrap(message(s)).order(ByteOrder.LITTLE_ENDIAN), 0, SIZE);
        }
    }

    /** Waits for a condition, never for a time; fails after 60 s (generous: a loaded box). */
    public static void await(BooleanSupplier c, String what) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "waited 60 s for " + what);
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L);
        }
    }
}
