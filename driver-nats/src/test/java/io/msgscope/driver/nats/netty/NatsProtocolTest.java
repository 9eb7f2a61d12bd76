package io.msgscope.driver.nats.netty;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.msgscope.driver.nats.NatsSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lean engine's protocol handling ({@link NatsFramer} with {@link NettyNatsConnection} as its listener) on an
 * EmbeddedChannel, where every byte is known: each server operation, a stream split at every byte, and malformed or
 * oversized input, which must end in one clear line and a closed connection (NATS client protocol).
 */
class NatsProtocolTest {
    private static final String INFO = "INFO {\"server_id\":\"NID\",\"server_name\":\"nats-a\",\"version\":\"2.9.10\","
            + "\"proto\":1,\"go\":\"go1.19\",\"host\":\"0.0.0.0\",\"port\":4222,\"headers\":true,\"max_payload\":1024,"
            + "\"jetstream\":true,\"connect_urls\":[\"10.0.0.1:4222\",\"[::1]:4222\"],\"nested\":{\"a\":[1,2.5e3,null,"
            + "false]},\"escaped\":\"a\\\"b\\\\c\\u00e9\\n\",\"client_id\":5} \r\n";

    /** What reached the owner, in order. */
    static final class Recorder implements NettyNatsConnection.Owner {
        final List<String> events = new ArrayList<>();
        int slow;
        int lost;

        @Override
        public void onMsg(NettyNatsConnection c, ByteBuf in, long sid, int at, int length) {
            byte[] b = new byte[length];
            in.getBytes(at, b);
            events.add("MSG " + sid + " " + new String(b, StandardCharsets.ISO_8859_1));
        }

        @Override
        public void onSlowConsumer() {
            slow++;
        }

        @Override
        public void onLost() {
            lost++;
        }
    }

    static NatsSettings settings() {
        return NatsSettings.of(new DriverSpec("", 0, "nats://127.0.0.1:4222", 64, 0, Map.of("subject", "t"), ""), false);
    }

    record Wire(EmbeddedChannel ch, NettyNatsConnection conn, Recorder owner) {
        void feed(String s) {
            feed(s.getBytes(StandardCharsets.ISO_8859_1));
        }

        void feed(byte[] b) {
            ch.writeInbound(Unpooled.wrappedBuffer(b));
        }

        String written() {
            StringBuilder b = new StringBuilder();
            ByteBuf out;
            while ((out = ch.readOutbound()) != null) {
                b.append(out.toString(StandardCharsets.ISO_8859_1));
                out.release();
            }
            return b.toString();
        }
    }

    static Wire wire() {
        EmbeddedChannel ch = new EmbeddedChannel();
        Recorder r = new Recorder();
        NettyNatsConnection c = NettyNatsConnection.attach(settings(), r, ch);
        return new Wire(ch, c, r);
    }

    /** Every server operation once, some in lower case, tabs as separators, a payload holding CRLF. */
    static final String STREAM = INFO
            + "+OK\r\n"
            + "PING\r\n"
            + "PONG\r\n"
            + "MSG t 1 5\r\nhello\r\n"
            + "MSG t 1 reply.to 4\r\na\r\nb\r\n"
            + "msg\tt\t1\t3\r\nxyz\r\n"
            + "HMSG t 1 18 23\r\nNATS/1.0\r\nA: b\r\n\r\nworld\r\n"
            + "HMSG t 1 inbox 12 12\r\nNATS/1.0\r\n\r\n\r\n"
            + "MSG t 1 0\r\n\r\n"
            + "-ERR 'Slow Consumer'\r\n"
            + "ping\r\n"
            + "pong\r\n";

    static final List<String> EVENTS = List.of("MSG 1 hello", "MSG 1 a\r\nb", "MSG 1 xyz", "MSG 1 world", "MSG 1 ",
            "MSG 1 ");

    private static void assertStream(Wire w) {
        assertEquals(EVENTS, w.owner.events);
        NatsInfo i = w.conn.info();
        assertEquals("NID", i.serverId());
        assertEquals("nats-a", i.serverName());
        assertEquals("2.9.10", i.version());
        assertEquals(1024, i.maxPayload());
        assertEquals(1, i.proto());
        assertTrue(i.headers() && i.jetStream() && !i.tlsRequired() && !i.authRequired());
        assertEquals(2, w.conn.pongs());
        assertEquals(2, w.conn.pingsAnswered());
        assertEquals(1, w.owner.slow, "-ERR 'Slow Consumer' counted");
        assertEquals("PONG\r\nPONG\r\n", w.written(), "each PING answered");
        assertNull(w.conn.lostWhy());
        assertTrue(w.ch.isOpen(), "a slow-consumer notice does not end the connection");
    }

    @Test
    void everyServerOperation() {
        Wire w = wire();
        w.feed(STREAM);
        assertStream(w);
    }

    @Test
    void splitAtEveryByte() {
        byte[] all = STREAM.getBytes(StandardCharsets.ISO_8859_1);
        for (int cut = 1; cut < all.length; cut++) {
            Wire w = wire();
            w.feed(Arrays.copyOfRange(all, 0, cut));
            w.feed(Arrays.copyOfRange(all, cut, all.length));
            assertStream(w);
        }
    }

    @Test
    void oneByteAtATime() {
        Wire w = wire();
        for (byte b : STREAM.getBytes(StandardCharsets.ISO_8859_1)) {
            w.feed(new byte[] {b});
        }
        assertStream(w);
    }

    @Test
    void aLargePayloadInManyReads() {
        Wire w = wire();
        w.feed(INFO.replace("\"max_payload\":1024", "\"max_payload\":1048576"));
        byte[] payload = new byte[700_000];
        Arrays.fill(payload, (byte) 'p');
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("MSG t 1 " + payload.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        b.writeBytes(payload);
        b.writeBytes("\r\nMSG t 1 2\r\nok\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] all = b.toByteArray();
        for (int at = 0; at < all.length; at += 8192) {
            w.feed(Arrays.copyOfRange(all, at, Math.min(all.length, at + 8192)));
        }
        assertEquals(2, w.owner.events.size());
        assertEquals("MSG 1 " + new String(payload, StandardCharsets.ISO_8859_1), w.owner.events.get(0));
        assertEquals("MSG 1 ok", w.owner.events.get(1));
        assertNull(w.conn.lostWhy());
    }

    /** Malformed input: one line naming what the server sent, nothing after it delivered, the connection closed. */
    private static void assertRefused(String input, String expected) {
        Wire w = wire();
        w.feed(INFO + input + "MSG t 1 5\r\nafter\r\n");
        String why = w.conn.lostWhy();
        assertTrue(why != null && why.contains(expected), "for " + input.replace("\r\n", "<CRLF>") + ": " + why);
        assertFalse(why.contains("\n") || why.contains("\r"), why);
        assertFalse(w.ch.isOpen(), "connection closed");
        assertFalse(w.owner.events.contains("MSG 1 after"), "nothing after the error delivered");
        assertEquals(1, w.owner.lost);
        assertEquals(Fault.Kind.CONNECTION_LOST, w.conn.lostKind());
        assertTrue(w.conn.lostReason().startsWith("connection to NATS at 127.0.0.1:4222 lost (the server sent "),
                w.conn.lostReason());
    }

    @Test
    void malformedInputEndsTheConnectionInOneLine() {
        assertRefused("FOO bar\r\n", "sent an unknown protocol line 'FOO bar'");
        assertRefused("MSGX t 1 5\r\n", "unknown protocol line 'MSGX t 1 5'");
        assertRefused("PINGPONG\r\n", "unknown protocol line 'PINGPONG'");
        assertRefused("\u0001\u0002\r\n", "unknown protocol line '\\x01\\x02'");
        assertRefused("MSG t 1\r\n", "sent a malformed MSG line 'MSG t 1'");
        assertRefused("MSG t 1 a b c\r\n", "malformed MSG line");
        assertRefused("MSG t 1 5x\r\n", "malformed MSG line 'MSG t 1 5x'");
        assertRefused("MSG t x 5\r\n", "malformed MSG line");
        assertRefused("MSG t 1 -5\r\n", "malformed MSG line");
        assertRefused("MSG t 1 12345678901234567890\r\n", "malformed MSG line");
        assertRefused("HMSG t 1 5\r\n", "sent a malformed HMSG line");
        assertRefused("HMSG t 1 6 5\r\nhello\r\n", "malformed HMSG line");
        assertRefused("MSG t 1 5\r\nhelloXY", "whose 5-byte payload is not followed by CRLF");
        assertRefused("MSG t 1 5\r\nhello\n\n", "not followed by CRLF");
        assertRefused("INFO {\"a\":}\r\n", "sent an INFO that is not a JSON object (malformed JSON at character 5");
        assertRefused("INFO [1]\r\n", "INFO that is not a JSON object");
        assertRefused("INFO {\"a\":1} x\r\n", "INFO that is not a JSON object");
    }

    @Test
    void aMessageAboveTheAnnouncedMaxPayloadIsRefusedBeforeItsBytesArrive() {
        Wire w = wire();
        w.feed(INFO + "MSG t 1 1025\r\n");
        assertEquals("the server sent a message of 1025 bytes, above the max_payload of 1024 bytes", w.conn.lostWhy());
        assertFalse(w.ch.isOpen());
    }

    @Test
    void aLineWithoutEndIsCutOffAtTheLimit() {
        Wire w = wire();
        byte[] junk = new byte[NatsFramer.MAX_LINE + 10];
        Arrays.fill(junk, (byte) 'x');
        w.feed(junk);
        assertEquals("the server sent a protocol line of more than 65536 bytes without a line end", w.conn.lostWhy());
        assertFalse(w.ch.isOpen());
    }

    @Test
    void aLongLineInPiecesIsCutOffToo() {
        Wire w = wire();
        byte[] junk = new byte[4096];
        Arrays.fill(junk, (byte) 'x');
        for (int k = 0; k < 17 && w.ch.isOpen(); k++) {
            w.feed(junk);
        }
        assertTrue(String.valueOf(w.conn.lostWhy()).contains("without a line end"), w.conn.lostWhy());
        assertFalse(w.ch.isOpen());
    }

    @Test
    void anAuthorizationViolationIsARefusal() {
        Wire w = wire();
        w.feed(INFO + "-ERR 'Authorization Violation'\r\n");
        assertEquals("the server sent -ERR 'Authorization Violation'", w.conn.lostWhy());
        assertEquals(Fault.Kind.REFUSED, w.conn.lostKind());
        assertFalse(w.ch.isOpen());
    }

    @Test
    void anyOtherErrEndsTheConnection() {
        Wire w = wire();
        w.feed(INFO + "-ERR 'Unknown Protocol Operation'\r\nMSG t 1 5\r\nafter\r\n");
        assertEquals("the server sent -ERR 'Unknown Protocol Operation'", w.conn.lostWhy());
        assertEquals(Fault.Kind.CONNECTION_LOST, w.conn.lostKind());
        assertFalse(w.ch.isOpen());
        assertEquals(List.of(), w.owner.events);
        assertEquals(1, w.owner.lost);
    }

    @Test
    void aPermissionsViolationIsARefusal() {
        Wire w = wire();
        w.feed(INFO + "-ERR 'Permissions Violation for Publish to \"t\"'\r\n");
        assertEquals(Fault.Kind.REFUSED, w.conn.lostKind());
        assertEquals("the server sent -ERR 'Permissions Violation for Publish to \"t\"'", w.conn.lostWhy());
    }

    @Test
    void aMsgToAPublisherIsAProtocolError() {
        EmbeddedChannel ch = new EmbeddedChannel();
        NettyNatsConnection c = NettyNatsConnection.attach(settings(), new NettyNatsConnection.Owner() { }, ch);
        ch.writeInbound(Unpooled.wrappedBuffer((INFO + "MSG t 7 2\r\nhi\r\n").getBytes(StandardCharsets.US_ASCII)));
        assertEquals("the server sent a MSG (subscription id 7) to a connection that subscribed to nothing", c.lostWhy());
        assertFalse(ch.isOpen());
    }

    @Test
    void theConnectionEndingIsReportedOnce() {
        Wire w = wire();
        w.feed(INFO);
        w.ch.close();
        assertEquals("the server closed it", w.conn.lostWhy());
        assertEquals(1, w.owner.lost);
    }

    @Test
    void jsonStringsAreQuoted() {
        assertEquals("\"a\\\"b\\\\c\\n\\u0001\"", NatsHandshake.quote("a\"b\\c\n\u0001"));
        assertEquals("a\"b\\c\u00e9\n", new NatsInfo.Json("{\"x\":\"a\\\"b\\\\c\\u00e9\\n\"}").object().get("x"));
    }
}
