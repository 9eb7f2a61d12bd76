package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.msgscope.driver.mqtt.MqttSettings;
import io.msgscope.driver.mqtt.netty.NettyEngineFakeBrokerTest.Packet;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lean engine's packets byte by byte on Netty's {@code EmbeddedChannel}, MQTT 5 and 3.1.1: what it writes
 * (CONNECT, SUBSCRIBE, PUBLISH, the acknowledgements, PINGREQ, DISCONNECT), every packet type it reads — fed
 * whole, split at every byte and one byte at a time — the CONNACK/SUBACK/PUBACK/PUBREC/PUBCOMP reason codes,
 * the publisher's window (max_inflight, Receive Maximum, {@code offer} never waiting), push delivery, and every
 * kind of malformed or oversized packet: each closes the connection with one line naming the broker and what it
 * sent, and ends the run (the subscriber's {@code ended}, the publisher's next send).
 */
class NettyEngineCodecTest {
    private static final String URI = "tcp://127.0.0.1:1883";
    private static final String ADDR = "127.0.0.1:1883";

    // ------------------------------------------------------------------ packets

    static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    static byte[] varInt(int v) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        do {
            int d = v & 0x7f;
            v >>>= 7;
            o.write(v > 0 ? d | 0x80 : d);
        } while (v > 0);
        return o.toByteArray();
    }

    static byte[] str(String s) {
        byte[] u = s.getBytes(StandardCharsets.UTF_8);
        return concat(bytes(u.length >>> 8, u.length & 0xff), u);
    }

    /** An MQTT 5 property list: its length, then the properties. */
    static byte[] props(byte[]... p) {
        byte[] all = concat(p);
        return concat(varInt(all.length), all);
    }

    /** A packet: fixed header byte, remaining length, body. */
    static byte[] packet(int first, byte[]... body) {
        byte[] b = concat(body);
        return concat(bytes(first), varInt(b.length), b);
    }

    static byte[] message(long seq) {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        WireHeader.writeSendTime(b, 0, 1);
        WireHeader.writeSequence(b, 0, seq);
        return b.array();
    }

    static byte[] publish(int version, int qos, int id, byte[] props, byte[] payload) {
        return packet(0x30 | qos << 1, str("t"), qos > 0 ? bytes(id >>> 8, id & 0xff) : new byte[0],
                version == 5 ? props : new byte[0], payload);
    }

    static byte[] connack(int version, int code, byte[] props) {
        return version == 5 ? packet(0x20, bytes(0, code), props) : packet(0x20, bytes(0, code));
    }

    static byte[] suback(int version, int code) {
        return version == 5 ? packet(0x90, bytes(0, 1), props(), bytes(code)) : packet(0x90, bytes(0, 1, code));
    }

    static byte[] ack(int type, int id) {
        return packet(type << 4 | (type == 6 ? 2 : 0), bytes(id >>> 8, id & 0xff));
    }

    static List<Packet> parse(byte[] b) throws IOException {
        List<Packet> l = new ArrayList<>();
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(b));
        while (in.available() > 0) {
            l.add(NettyEngineFakeBrokerTest.read(in));
        }
        return l;
    }

    /** Everything written so far (pending event-loop tasks run first). */
    static byte[] outbound(EmbeddedChannel ch) {
        ch.runPendingTasks();
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            byte[] a = new byte[b.readableBytes()];
            b.readBytes(a);
            b.release();
            o.writeBytes(a);
        }
        return o.toByteArray();
    }

    static void feed(EmbeddedChannel ch, byte[] b) {
        feed(ch, b, 0, b.length);
    }

    static void feed(EmbeddedChannel ch, byte[] b, int from, int to) {
        if (to > from) {
            ch.writeInbound(Unpooled.copiedBuffer(b, from, to - from));
        }
        ch.runPendingTasks();
    }

    static Map<String, String> opts(int version, int qos, String... kv) {
        Map<String, String> m = new HashMap<>(Map.of("engine", "netty", "version", "" + version, "qos", "" + qos,
                "topic", "t"));
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    static MqttSettings settings(boolean publisher, Map<String, String> opts) {
        return MqttSettings.of(new DriverSpec("", 0, URI, 64, 0, opts, publisher ? "t" : ""), publisher);
    }

    // ------------------------------------------------------------------ connected subscriber and publisher

    /** A subscriber on an embedded channel, CONNACK and SUBACK in; push delivery into {@link #seqs}. */
    static final class Sub {
        final NettyMqttSubscriber sub;
        final EmbeddedChannel ch = frozen();
        final List<Long> seqs = new ArrayList<>();
        final List<String> ended = new ArrayList<>();
        final int version;

        Sub(int version, int qos, boolean start, String... kv) throws IOException {
            this.version = version;
            sub = new NettyMqttSubscriber(settings(false, opts(version, qos, kv)), 64);
            sub.session.attach(ch);
            sub.session.sendConnect();
            outbound(ch);
            feed(ch, connack(version, 0, props()));
            sub.session.checkConnack();
            CompletableFuture<MqttSubAckMessage> f = sub.subscribe();
            outbound(ch);
            feed(ch, suback(version, qos));
            sub.checkSubAck(f.getNow(null));
            if (start) {
                start();
            }
        }

        void start() {
            sub.start((b, off) -> seqs.add(WireHeader.sequence(b, off)), ended::add);
        }
    }

    /** An embedded channel whose clock moves only by {@code advanceTimeBy}. */
    static EmbeddedChannel frozen() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        return ch;
    }

    /** A publisher on an embedded channel, CONNACK in (with these MQTT 5 properties) and its limits taken. */
    static final class Pub {
        final NettyMqttPublisher pub;
        final EmbeddedChannel ch = new EmbeddedChannel();

        Pub(int version, int qos, byte[] connackProps, String... kv) throws IOException {
            pub = new NettyMqttPublisher(settings(true, opts(version, qos, kv)), 64);
            pub.session.attach(ch);
            pub.session.sendConnect();
            outbound(ch);
            feed(ch, connack(version, 0, connackProps));
            pub.session.checkConnack();
            pub.connected();
        }

        boolean offer(long seq) throws IOException {
            return pub.offer(ByteBuffer.wrap(message(seq)).order(ByteOrder.LITTLE_ENDIAN), 0, 64);
        }
    }

    // ------------------------------------------------------------------ CONNECT and CONNACK

    /** CONNECT through Netty's codec: protocol level, flags, keep-alive, MQTT 5 properties, client id, credentials. */
    @ParameterizedTest(name = "MQTT {0}, clean_session {1}")
    @CsvSource({"5,true", "5,false", "3,true", "3,false"})
    void connectCarriesTheSettings(int version, boolean clean) throws IOException {
        NettyMqttSubscriber sub = new NettyMqttSubscriber(settings(false, opts(version, 1, "username", "u",
                "password", "p", "keep_alive", "30", "clean_session", "" + clean)), 64);
        EmbeddedChannel ch = new EmbeddedChannel();
        sub.session.attach(ch);
        sub.session.sendConnect();
        List<Packet> out = parse(outbound(ch));
        assertEquals(1, out.size());
        assertEquals(1, out.get(0).type(), "CONNECT");
        ByteBuffer b = ByteBuffer.wrap(out.get(0).body());
        assertEquals("MQTT", readString(b));
        assertEquals(version == 5 ? 5 : 4, b.get(), "protocol level");
        assertEquals(0xC0 | (clean ? 0x02 : 0), b.get() & 0xff, "flags: user name, password, clean");
        assertEquals(30, b.getShort(), "keep alive");
        if (version == 5) {
            int len = b.get(); // < 128 here
            Map<Integer, Integer> p = new HashMap<>();
            int end = b.position() + len;
            while (b.position() < end) {
                int id = b.get();
                p.put(id, id == 0x21 ? b.getShort() & 0xffff : b.getInt());
            }
            Map<Integer, Integer> want = new HashMap<>(Map.of(0x21, 65_535, 0x27, 64 + NettyMqttSession.PACKET_ROOM));
            if (!clean) {
                want.put(0x11, NettyMqttSession.SESSION_EXPIRY_S);
            }
            assertEquals(want, p, "Receive Maximum, Maximum Packet Size, Session Expiry Interval");
        }
        assertTrue(readString(b).startsWith("msgscope-sub-"));
        assertEquals("u", readString(b));
        assertEquals("p", readString(b));
        assertFalse(b.hasRemaining());
        assertFalse(sub.session.connack().isDone());
    }

    private static String readString(ByteBuffer b) {
        byte[] s = new byte[b.getShort() & 0xffff];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    /**
     * A CONNACK with every limit the engine reads, split at every byte: complete only once whole; the window is
     * min(max_inflight, Receive Maximum) at QoS 1; the results carry what it announced.
     */
    @Test
    void connackPropertiesSplitAtEveryByte() throws IOException {
        byte[] connack = connack(5, 0, props(bytes(0x21, 0, 7), bytes(0x24, 1), bytes(0x27, 0, 0, 0x03, 0xE8),
                concat(bytes(0x12), str("assigned-1")), bytes(0x13, 0, 5), bytes(0x2A, 0), bytes(0x25, 0),
                concat(bytes(0x26), str("k"), str("v"))));
        for (int k = 0; k <= connack.length; k++) {
            NettyMqttPublisher p = new NettyMqttPublisher(settings(true, opts(5, 1, "max_inflight", "10")), 64);
            EmbeddedChannel ch = new EmbeddedChannel();
            p.session.attach(ch);
            p.session.sendConnect();
            outbound(ch);
            feed(ch, connack, 0, k);
            assertEquals(k == connack.length, p.session.connack().isDone(), "split at " + k);
            feed(ch, connack, k, connack.length);
            p.session.checkConnack();
            p.connected();
            assertEquals(7, p.windowSize(), "Receive Maximum bounds max_inflight");
            assertTrue(ch.isActive());
            Map<String, String> info = p.session.serverInfo();
            assertEquals("7", info.get("receive_maximum"));
            assertEquals("1", info.get("maximum_qos"));
            assertEquals("1000", info.get("maximum_packet_size"));
            assertEquals("assigned-1", info.get("assigned_client_identifier"));
            assertEquals("5", info.get("server_keep_alive"));
            assertEquals("false", info.get("shared_subscription_available"));
            assertEquals("false", info.get("retain_available"));
            assertEquals("MQTT 5", info.get("protocol"));
            assertEquals("netty", info.get("engine"));
        }
    }

    @ParameterizedTest(name = "MQTT {0}")
    @CsvSource({
            "3, 5, 'refused the connection: CONNACK return code 0x05 NOT_AUTHORIZED'",
            "3, 4, 'refused the connection: CONNACK return code 0x04 BAD_USER_NAME_OR_PASSWORD'",
            "5, 135, 'refused the connection: CONNACK reason code 0x87 NOT_AUTHORIZED (go away)'",
            "5, 132, 'refused the connection: CONNACK reason code 0x84 UNSUPPORTED_PROTOCOL_VERSION (go away)'"})
    void aRefusingConnackIsARefusedFaultNamingItsCode(int version, int code, String want) {
        NettyMqttSubscriber sub = new NettyMqttSubscriber(settings(false, opts(version, 1)), 64);
        EmbeddedChannel ch = new EmbeddedChannel();
        sub.session.attach(ch);
        sub.session.sendConnect();
        feed(ch, connack(version, code, props(concat(bytes(0x1F), str("go away")))));
        Fault f = assertThrows(Fault.class, () -> sub.session.checkConnack());
        assertEquals(Fault.Kind.REFUSED, f.kind());
        assertEquals("MQTT broker at " + ADDR + " " + want, f.getMessage());
    }

    // ------------------------------------------------------------------ SUBSCRIBE and SUBACK

    @ParameterizedTest(name = "MQTT {0} QoS {1} group ''{2}''")
    @CsvSource({"5,2,''", "5,1,g1", "3,0,''", "3,2,''"})
    void subscribeAsksForTheFilterAndQos(int version, int qos, String group) throws IOException {
        String[] kv = group.isEmpty() ? new String[0] : new String[] {"group", group};
        NettyMqttSubscriber sub = new NettyMqttSubscriber(settings(false, opts(version, qos, kv)), 64);
        EmbeddedChannel ch = new EmbeddedChannel();
        sub.session.attach(ch);
        sub.session.sendConnect();
        outbound(ch);
        feed(ch, connack(version, 0, props()));
        sub.subscribe();
        List<Packet> out = parse(outbound(ch));
        assertEquals(1, out.size());
        assertEquals(8, out.get(0).type(), "SUBSCRIBE");
        assertEquals(2, out.get(0).flags());
        String filter = group.isEmpty() ? "t" : "$share/" + group + "/t";
        byte[] want = concat(bytes(0, 1), version == 5 ? props() : new byte[0], str(filter), bytes(qos));
        assertArrayEquals(want, out.get(0).body());
    }

    @ParameterizedTest(name = "MQTT {0}, asked QoS {1}, SUBACK {2}")
    @CsvSource({
            "5, 1, 135, REFUSED, 'MQTT broker at 127.0.0.1:1883 refused the subscription to ''t'': SUBACK reason code 0x87 NOT_AUTHORIZED'",
            "5, 1, 128, REFUSED, 'MQTT broker at 127.0.0.1:1883 refused the subscription to ''t'': SUBACK reason code 0x80 UNSPECIFIED_ERROR'",
            "3, 1, 128, REFUSED, 'MQTT broker at 127.0.0.1:1883 refused the subscription to ''t'': SUBACK return code 0x80 FAILURE'",
            "5, 2, 1, REFUSED, 'MQTT broker at 127.0.0.1:1883 lowered the subscription to ''t'' to QoS 1 (SUBACK granted QoS 0x01), asked --opt qos=2'",
            "3, 1, 0, REFUSED, 'MQTT broker at 127.0.0.1:1883 lowered the subscription to ''t'' to QoS 0 (SUBACK granted QoS 0x00), asked --opt qos=1'",
            "5, 1, 143, --opt topic, 'the MQTT broker at 127.0.0.1:1883 rejects the topic filter ''t'': SUBACK reason code 0x8F TOPIC_FILTER_INVALID'",
            "5, 1, 158, --opt group, 'the MQTT broker at 127.0.0.1:1883 has no shared subscriptions ($share/...), needed for round-robin: SUBACK reason code 0x9E SHARED_SUBSCRIPTIONS_NOT_SUPPORTED'",
            "5, 1, 85, REFUSED, 'MQTT broker at 127.0.0.1:1883 answered the subscription to ''t'' with a SUBACK without a valid reason code'"})
    void subackCodes(int version, int qos, int code, String kind, String message) {
        NettyMqttSubscriber sub = new NettyMqttSubscriber(settings(false, opts(version, qos)), 64);
        EmbeddedChannel ch = new EmbeddedChannel();
        sub.session.attach(ch);
        sub.session.sendConnect();
        feed(ch, connack(version, 0, props()));
        CompletableFuture<MqttSubAckMessage> f = sub.subscribe();
        feed(ch, suback(version, code));
        if (kind.startsWith("--")) {
            SpecException e = assertThrows(SpecException.class, () -> sub.checkSubAck(f.getNow(null)));
            assertEquals(kind, e.option());
            assertTrue(e.getMessage().endsWith(message), e.getMessage());
        } else {
            Fault e = assertThrows(Fault.class, () -> sub.checkSubAck(f.getNow(null)));
            assertEquals(Fault.Kind.valueOf(kind), e.kind());
            assertEquals(message, e.getMessage());
        }
    }

    @Test
    void aGroupOnABrokerWithoutSharedSubscriptionsIsAUsageError() {
        NettyMqttSubscriber sub = new NettyMqttSubscriber(settings(false, opts(5, 1, "group", "g")), 64);
        EmbeddedChannel ch = new EmbeddedChannel();
        sub.session.attach(ch);
        sub.session.sendConnect();
        feed(ch, connack(5, 0, props(bytes(0x2A, 0))));
        assertEquals("--opt group", assertThrows(SpecException.class, sub::checkShared).option());
    }

    // ------------------------------------------------------------------ the subscriber's per-message path

    /**
     * QoS 0, 1 and 2 publishes (at MQTT 5 with properties to skip), a short payload, a QoS 2 redelivery, the
     * broker's PUBREL and a PINGRESP, fed whole, split at every byte and one byte at a time: each message
     * delivered once in order, PUBACK, PUBREC twice and PUBCOMP written, the counts exact.
     */
    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(ints = {5, 3})
    void publishStreamSplitAtEveryByte(int version) throws IOException {
        byte[] pubrel = version == 5 ? packet(0x62, bytes(0, 7, 0), props()) : ack(6, 7);
        byte[] stream = concat(
                publish(version, 0, 0, props(), message(0)),
                publish(version, 1, 9, props(bytes(0x02, 0, 0, 0, 60), concat(bytes(0x26), str("k"), str("v"))),
                        message(1)),
                publish(version, 0, 0, props(bytes(0x01, 1)), new byte[10]),
                publish(version, 2, 7, props(concat(bytes(0x0B), varInt(300))), message(2)),
                publish(version, 2, 7, props(), message(2)),
                pubrel,
                bytes(0xD0, 0));
        List<Packet> wantAcks = parse(concat(ack(4, 9), ack(5, 7), ack(5, 7), ack(7, 7)));
        for (int k = -1; k <= stream.length; k++) {
            Sub s = new Sub(version, 2, true);
            if (k < 0) {
                for (int i = 0; i < stream.length; i++) {
                    feed(s.ch, stream, i, i + 1);
                }
            } else {
                feed(s.ch, stream, 0, k);
                feed(s.ch, stream, k, stream.length);
            }
            String at = k < 0 ? "byte by byte" : "split at " + k;
            assertEquals(List.of(0L, 1L, 2L), s.seqs, at);
            List<Packet> acks = parse(outbound(s.ch));
            assertEquals(wantAcks.size(), acks.size(), at);
            for (int i = 0; i < acks.size(); i++) {
                assertEquals(wantAcks.get(i).type(), acks.get(i).type(), at);
                assertEquals(wantAcks.get(i).flags(), acks.get(i).flags(), at);
                assertArrayEquals(wantAcks.get(i).body(), acks.get(i).body(), at);
            }
            Map<String, Long> c = s.sub.counters();
            assertEquals(1L, c.get("qos2_redelivered"), at);
            assertEquals(1L, c.get("short_payloads"), at);
            assertEquals(0L, c.get("protocol_errors"), at);
            assertTrue(s.ch.isActive(), at);
            assertEquals(List.of(), s.ended, at);
        }
    }

    /** Messages that arrive before {@code start} are handed over first, in order; then each on the I/O thread. */
    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(ints = {5, 3})
    void startHandsOverWhatArrivedBeforeFirst(int version) throws IOException {
        Sub s = new Sub(version, 1, false);
        feed(s.ch, concat(publish(version, 1, 1, props(), message(0)), publish(version, 1, 2, props(), message(1))));
        assertEquals(List.of(), s.seqs);
        s.start();
        assertEquals(List.of(0L, 1L), s.seqs);
        feed(s.ch, publish(version, 1, 3, props(), message(2)));
        assertEquals(List.of(0L, 1L, 2L), s.seqs);
        assertEquals(3, parse(outbound(s.ch)).size(), "a PUBACK each");
        assertThrows(IllegalStateException.class, () -> s.sub.poll((b, o) -> { }, 0));
    }

    /** Poll mode (trace runs): what arrived is counted and delivered by poll; -1 once the broker closed. */
    @Test
    void pollDeliversAndReportsTheEnd() throws IOException {
        Sub s = new Sub(5, 0, false);
        feed(s.ch, concat(publish(5, 0, 0, props(), message(0)), publish(5, 0, 0, props(), message(1))));
        List<Long> got = new ArrayList<>();
        assertEquals(2, s.sub.poll((b, o) -> got.add(WireHeader.sequence(b, o)), 0));
        assertEquals(List.of(0L, 1L), got);
        s.ch.close();
        assertEquals(-1, s.sub.poll((b, o) -> got.add(WireHeader.sequence(b, o)), 0));
        assertEquals("connection to MQTT broker at " + ADDR + " lost (the broker closed it)", s.sub.closeReason());
    }

    /** {@code ended} hears a lost connection once; a subscriber its owner closes ends silently. */
    @Test
    void endedIsCalledOnceAndNotForOurOwnClose() throws IOException {
        Sub s = new Sub(5, 1, true);
        s.ch.close();
        s.sub.close();
        assertEquals(List.of("connection to MQTT broker at " + ADDR + " lost (the broker closed it)"), s.ended);
        Sub quiet = new Sub(3, 1, true);
        quiet.sub.close();
        assertEquals(List.of(), quiet.ended);
        Sub closing = new Sub(5, 1, true);
        closing.sub.close();
        List<Packet> out = parse(outbound(closing.ch));
        assertEquals(1, out.size());
        assertEquals(14, out.get(0).type(), "DISCONNECT");
        assertEquals(0, out.get(0).body().length, "normal disconnection, no reason code");
    }

    /**
     * Keep-alive: PINGREQ once nothing was written for half an interval at a check, so never more than one
     * interval between packets; a write in between puts it off; at MQTT 5 the broker's Server Keep Alive
     * replaces ours. Time advanced in 100 ms steps on the embedded event loop.
     */
    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(ints = {5, 3})
    void keepAliveSendsPingreq(int version) throws IOException {
        Sub s = new Sub(version, 1, true, "keep_alive", "10");
        assertEquals(List.of(10_000L, 20_000L), pingTimes(s.ch, 20_000), "CONNECT/SUBSCRIBE count as the first writes");
        feed(s.ch, bytes(0xD0, 0));
        assertTrue(s.ch.isActive(), "PINGRESP taken");
        feed(s.ch, publish(version, 1, 5, props(), message(0))); // answered with a PUBACK: a write
        outbound(s.ch);
        assertEquals(List.of(10_000L), pingTimes(s.ch, 10_000), "the PUBACK put the PINGREQ off");

        if (version == 5) {
            NettyMqttSubscriber sub = new NettyMqttSubscriber(settings(false, opts(5, 1, "keep_alive", "60")), 64);
            EmbeddedChannel ch = frozen();
            sub.session.attach(ch);
            sub.session.sendConnect();
            outbound(ch);
            feed(ch, connack(5, 0, props(bytes(0x13, 0, 4))));
            assertEquals(List.of(4_000L, 8_000L), pingTimes(ch, 8_000), "every 4 s (the Server Keep Alive)");
        }
        Sub off = new Sub(version, 1, true, "keep_alive", "0");
        assertEquals(List.of(), pingTimes(off.ch, 120_000), "keep_alive=0: none");
    }

    /** Advances the embedded clock in 100 ms steps up to {@code ms}; when (ms after the start) each PINGREQ went out. */
    private static List<Long> pingTimes(EmbeddedChannel ch, long ms) throws IOException {
        List<Long> at = new ArrayList<>();
        for (long t = 100; t <= ms; t += 100) {
            ch.advanceTimeBy(100, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            for (Packet p : parse(outbound(ch))) {
                assertEquals(12, p.type(), "PINGREQ");
                at.add(t);
            }
        }
        return at;
    }

    // ------------------------------------------------------------------ malformed, oversized, unexpected

    /**
     * Each broken packet closes the connection: one line naming the broker and what it sent, heard once through
     * {@code ended}; at MQTT 5 a DISCONNECT with the matching reason code goes out first.
     */
    @ParameterizedTest(name = "MQTT {0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "5|remaining length of 5 bytes|30 FF FF FF FF 01|129|whose remaining length takes more than 4 bytes",
            "3|remaining length of 5 bytes|30 FF FF FF FF 01|0|whose remaining length takes more than 4 bytes",
            "5|oversized, refused at its header|30 E4 80 08|149|sent a PUBLISH of 131176 bytes, more than the 131136 this client accepts",
            "3|oversized, refused at its header|30 E4 80 08|0|sent a PUBLISH of 131176 bytes, more than the 131136 this client accepts",
            "5|QoS bits 3|36 04 00 01 74 00|129|sent a malformed PUBLISH (QoS bits 3)",
            "3|PUBREL flags 0|60 02 00 07|0|sent a malformed PUBREL (fixed-header flags 0)",
            "5|PUBACK flags 2|42 02 00 07|129|sent a malformed PUBACK (fixed-header flags 2)",
            "3|topic past the end|30 03 00 05 61|0|sent a malformed PUBLISH (its topic and packet id run past its 3 bytes)",
            "5|QoS 1 with packet id 0|32 06 00 01 74 00 00 00|129|sent a malformed PUBLISH (QoS 1 with packet id 0)",
            "5|properties past the end|30 05 00 01 74 09 01|129|sent a malformed PUBLISH (its properties run past its 5 bytes)",
            "5|a PUBLISH of 1 byte|30 01 00|129|sent a malformed PUBLISH (1 bytes after the fixed header)",
            "3|PUBREL of 3 bytes|62 03 00 07 00|0|sent a malformed PUBREL (3 bytes after the fixed header)",
            "5|a PUBACK to a subscriber|40 02 00 01|130|sent a PUBACK to a subscriber, which publishes nothing",
            "3|reserved packet type 0|00 00|0|sent a malformed packet: unknown message type: 0",
            "5|a second CONNACK|20 03 00 00 00|130|sent a second CONNACK",
            "5|a SUBACK shorter than its contents|90 02 00 01|129|sent a malformed SUBACK (shorter than its contents)",
            "5|AUTH|F0 00|130|sent an unexpected AUTH packet",
            "3|DISCONNECT at 3.1.1|E0 00|0|sent a DISCONNECT, which an MQTT 3.1.1 server never sends",
            "5|a CONNECT|10 00|129|sent a malformed CONNECT"})
    void brokenPacketsCloseTheConnectionNamingWhatCame(int version, String name, String hex, int reasonCode,
                                                       String why) throws IOException {
        Sub s = new Sub(version, 1, true);
        byte[] b = hex(hex);
        feed(s.ch, b);
        assertFalse(s.ch.isActive(), "closed");
        assertEquals(1, s.ended.size(), s.ended.toString());
        String reason = s.ended.get(0);
        assertTrue(reason.startsWith("connection to MQTT broker at " + ADDR + " lost (the broker "), reason);
        assertTrue(reason.contains(why), reason);
        assertFalse(reason.contains("\n"), reason);
        assertEquals(reason, s.sub.closeReason());
        assertEquals(List.of(), s.seqs);
        List<Packet> out = parse(outbound(s.ch));
        if (version == 5) {
            assertEquals(1, out.size(), out.toString());
            assertEquals(14, out.get(0).type(), "DISCONNECT");
            assertEquals(reasonCode, out.get(0).body()[0] & 0xff, "its reason code");
        } else {
            assertEquals(List.of(), out, "MQTT 3.1.1 just closes");
        }
    }

    /** An oversized packet is refused at its header, before its bytes arrive (nothing is buffered for it). */
    @Test
    void anOversizedPacketIsRefusedBeforeItsBody() throws IOException {
        Sub s = new Sub(5, 0, true);
        int max = 64 + NettyMqttSession.PACKET_ROOM;
        byte[] header = concat(bytes(0x30), varInt(max));
        feed(s.ch, header);
        assertFalse(s.ch.isActive());
        assertTrue(s.ended.get(0).contains("sent a PUBLISH of " + (max + 1 + header.length - 1) + " bytes"), s.ended.get(0));
        Sub fits = new Sub(5, 0, true);
        feed(fits.ch, concat(bytes(0x30), varInt(max - 1 - 3)));
        assertTrue(fits.ch.isActive(), "a packet of exactly the maximum is waited for");
    }

    /** MQTT 5 DISCONNECT from the broker: its reason code and reason string in the lost reason. */
    @Test
    void aDisconnectFromTheBrokerNamesItsReasonCode() throws IOException {
        Sub s = new Sub(5, 1, true);
        feed(s.ch, packet(0xE0, bytes(0x8B), props(concat(bytes(0x1F), str("maintenance")))));
        assertFalse(s.ch.isActive());
        assertEquals(List.of("connection to MQTT broker at " + ADDR + " lost (the broker sent DISCONNECT with reason "
                + "code 0x8B SERVER_SHUTTING_DOWN (maintenance))"), s.ended);
    }

    static byte[] hex(String hex) {
        String[] p = hex.trim().split("\\s+");
        byte[] b = new byte[p.length];
        for (int i = 0; i < p.length; i++) {
            b[i] = (byte) Integer.parseInt(p[i], 16);
        }
        return b;
    }

    // ------------------------------------------------------------------ the publisher

    /** PUBLISH framed by hand: fixed header, topic, packet id at QoS 1/2, an empty property list at MQTT 5, payload. */
    @ParameterizedTest(name = "MQTT {0} QoS {1}")
    @CsvSource({"5,0", "5,1", "5,2", "3,0", "3,1", "3,2"})
    void publishPacketsAreExact(int version, int qos) throws IOException {
        Pub p = new Pub(version, qos, props());
        assertTrue(p.offer(-1));
        assertTrue(p.offer(0));
        List<Packet> out = parse(outbound(p.ch));
        assertEquals(2, out.size());
        for (int i = 0; i < 2; i++) {
            assertEquals(3, out.get(i).type());
            assertEquals(qos << 1, out.get(i).flags());
            byte[] want = concat(str("t"), qos > 0 ? bytes(0, i + 1) : new byte[0],
                    version == 5 ? bytes(0) : new byte[0], message(i - 1));
            assertArrayEquals(want, out.get(i).body(), "publish " + i);
        }
    }

    /** {@code offer} says no on a full window, never waits, and takes messages again once acks free room. */
    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(ints = {5, 3})
    void offerNeverWaitsOnAFullWindow(int version) throws IOException {
        Pub p = new Pub(version, 1, props(), "max_inflight", "2");
        assertTrue(p.offer(0));
        assertTrue(p.offer(1));
        assertFalse(p.offer(2));
        assertFalse(p.offer(2));
        assertEquals(2, parse(outbound(p.ch)).size());
        feed(p.ch, ack(4, 1));
        assertTrue(p.offer(2));
        assertFalse(p.offer(3));
        assertEquals(1L, p.pub.counters().get("messages_acked"));

        Pub q0 = new Pub(version, 0, props(), "max_inflight", "2");
        assertTrue(q0.offer(0));
        assertTrue(q0.offer(1));
        assertFalse(q0.offer(2), "QoS 0: complete once the socket took them");
        outbound(q0.ch);
        assertTrue(q0.offer(2));
    }

    /** The broker's Receive Maximum bounds the window below max_inflight (MQTT 5); QoS 0 is not bounded by it. */
    @Test
    void receiveMaximumBoundsTheWindow() throws IOException {
        Pub p = new Pub(5, 2, props(bytes(0x21, 0, 1)), "max_inflight", "5");
        assertEquals(1, p.pub.windowSize());
        assertTrue(p.offer(0));
        assertFalse(p.offer(1));
        assertEquals(5, new Pub(5, 0, props(bytes(0x21, 0, 1)), "max_inflight", "5").pub.windowSize());
    }

    /**
     * MQTT 5 reason codes in the acknowledgements: PUBACK/PUBREC of 0x80 and above refuse the publish (counted,
     * the first named with its code and reason string), 0x10 is a success, a refused PUBREC gets no PUBREL, and a
     * PUBCOMP of 0x92 is a failed publish.
     */
    @Test
    void ackReasonCodes() throws IOException {
        Pub q1 = new Pub(5, 1, props());
        for (int i = 0; i < 3; i++) {
            assertTrue(q1.offer(i));
        }
        outbound(q1.ch);
        feed(q1.ch, concat(packet(0x40, bytes(0, 1, 0x87), props(concat(bytes(0x1F), str("denied")))),
                packet(0x40, bytes(0, 2, 0x10)), ack(4, 3)));
        Map<String, Long> c = q1.pub.counters();
        assertEquals(2L, c.get("messages_acked"), c.toString());
        assertEquals(1L, c.get("publish_refused"), c.toString());
        assertEquals(1L, c.get("publish_errors"), c.toString());
        assertEquals("MQTT broker at " + ADDR + " refused a QoS 1 publish: PUBACK reason code 0x87 NOT_AUTHORIZED (denied)",
                q1.pub.firstError());
        q1.pub.drain(1000);

        Pub q2 = new Pub(5, 2, props());
        for (int i = 0; i < 3; i++) {
            assertTrue(q2.offer(i));
        }
        outbound(q2.ch);
        feed(q2.ch, concat(packet(0x50, bytes(0, 1, 0x97), props()), ack(5, 2), ack(5, 3)));
        List<Packet> rel = parse(outbound(q2.ch));
        assertEquals(List.of(6, 6), rel.stream().map(Packet::type).toList(), "PUBREL for 2 and 3 only");
        assertArrayEquals(bytes(0, 2), rel.get(0).body());
        feed(q2.ch, concat(ack(7, 2), packet(0x70, bytes(0, 3, 0x92))));
        c = q2.pub.counters();
        assertEquals(1L, c.get("messages_acked"), c.toString());
        assertEquals(1L, c.get("publish_refused"), c.toString());
        assertEquals(2L, c.get("publish_errors"), c.toString());
        assertEquals("MQTT broker at " + ADDR + " refused a QoS 2 publish: PUBREC reason code 0x97 QUOTA_EXCEEDED",
                q2.pub.firstError());
        q2.pub.drain(1000);
        assertTrue(q2.ch.isActive());
    }

    /** PUBACKs in every MQTT 5 form (short, reason code, reason code and properties) split at every byte. */
    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(ints = {5, 3})
    void acksSplitAtEveryByte(int version) throws IOException {
        byte[] acks = version == 5
                ? concat(ack(4, 1), packet(0x40, bytes(0, 2, 0)), packet(0x40, bytes(0, 3, 0x10),
                props(concat(bytes(0x1F), str("nobody")), concat(bytes(0x26), str("a"), str("b")))))
                : concat(ack(4, 1), ack(4, 2), ack(4, 3));
        for (int k = 0; k <= acks.length; k++) {
            Pub p = new Pub(version, 1, props(), "max_inflight", "3");
            for (int i = 0; i < 3; i++) {
                assertTrue(p.offer(i));
            }
            outbound(p.ch);
            feed(p.ch, acks, 0, k);
            feed(p.ch, acks, k, acks.length);
            assertEquals(3L, p.pub.counters().get("messages_acked"), "split at " + k);
            assertEquals(0L, p.pub.counters().get("publish_errors"), "split at " + k);
            assertTrue(p.offer(3), "the window is open again");
        }
    }

    /** A malformed acknowledgement closes the connection; the next send is a one-line fault naming it. */
    @ParameterizedTest(name = "MQTT {0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "3|a PUBACK of 3 bytes|40 03 00 01 00|sent a malformed PUBACK (3 bytes after the fixed header, 2 expected)",
            "5|a PUBACK of 1 byte|40 01 00|sent a malformed PUBACK (1 bytes after the fixed header, at least 2 expected)",
            "5|a property length past the end|40 05 00 01 00 05 1F|sent a malformed PUBACK (its property length does not match the packet)",
            "5|a PUBLISH to a publisher|30 04 00 01 74 00|sent a PUBLISH to a publisher, which subscribes to nothing",
            "3|a PUBREL to a publisher|62 02 00 01|sent a PUBREL to a publisher, which subscribes to nothing"})
    void aBrokenAckClosesAndFailsTheNextSend(int version, String name, String hex, String why) throws IOException {
        Pub p = new Pub(version, 1, props());
        assertTrue(p.offer(0));
        outbound(p.ch);
        feed(p.ch, hex(hex));
        assertFalse(p.ch.isActive());
        Fault f = assertThrows(Fault.class, () -> p.offer(1));
        assertEquals(Fault.Kind.CONNECTION_LOST, f.kind());
        assertEquals("connection to MQTT broker at " + ADDR + " lost after 1 publishes (the broker " + why + ")",
                f.getMessage());
        assertThrows(Fault.class, () -> p.pub.send(ByteBuffer.wrap(message(1)), 0, 64));
    }

    /** What the CONNACK says the broker cannot take is refused before the first publish. */
    @Test
    void maximumQosAndMaximumPacketSizeAreRefusedUpFront() {
        Fault q = assertThrows(Fault.class, () -> new Pub(5, 2, props(bytes(0x24, 1))));
        assertEquals(Fault.Kind.REFUSED, q.kind());
        assertEquals("MQTT broker at " + ADDR + " accepts QoS 1 at most (CONNACK Maximum QoS), asked --opt qos=2",
                q.getMessage());
        Fault size = assertThrows(Fault.class, () -> new Pub(5, 1, props(bytes(0x27, 0, 0, 0, 50))));
        assertEquals(Fault.Kind.REFUSED, size.kind());
        assertEquals("MQTT broker at " + ADDR + " accepts packets of at most 50 bytes (CONNACK Maximum Packet Size); "
                + "a PUBLISH of --size 64 takes 72", size.getMessage());
    }

    /** A DISCONNECT refusing what was sent (0x87, 0x9B, ...) is a refusal; others a lost connection. */
    @ParameterizedTest(name = "DISCONNECT {0}")
    @CsvSource({"135, REFUSED, 0x87 NOT_AUTHORIZED", "155, REFUSED, 0x9B QOS_NOT_SUPPORTED",
            "139, CONNECTION_LOST, 0x8B SERVER_SHUTTING_DOWN"})
    void aDisconnectEndsThePublisher(int code, String kind, String named) throws IOException {
        Pub p = new Pub(5, 1, props());
        assertTrue(p.offer(0));
        feed(p.ch, packet(0xE0, bytes(code), props()));
        Fault f = assertThrows(Fault.class, () -> p.offer(1));
        assertEquals(Fault.Kind.valueOf(kind), f.kind());
        assertTrue(f.getMessage().contains("the broker sent DISCONNECT with reason code " + named), f.getMessage());
        assertNull(p.pub.firstError());
    }
}
