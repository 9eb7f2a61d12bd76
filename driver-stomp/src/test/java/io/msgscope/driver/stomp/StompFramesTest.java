package io.msgscope.driver.stomp;

import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.DriverSpec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.stomp.StompCommand;
import io.netty.handler.codec.stomp.StompFrame;
import io.netty.handler.codec.stomp.StompHeaders;
import io.netty.handler.codec.stomp.StompSubframeAggregator;
import io.netty.handler.codec.stomp.StompSubframeDecoder;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * STOMP frames as the driver writes and reads them (issue 35 item 3): the hand-framed SEND byte for byte, read back by
 * Netty's codec with the NUL bytes of msgscope's binary header in the body; MESSAGE, RECEIPT and ERROR through the
 * connection's pipeline, fed in two-byte reads; and receipts counted as confirms, by hand.
 */
class StompFramesTest {
    /** 8 bytes with NULs where a binary header has them: the frame must not end at the first one. */
    private static final byte[] BODY = {0, 1, 0, 0, 'x', 0, (byte) 0xff, 0};

    private static StompSettings publisher(String... opts) {
        Map<String, String> o = new java.util.HashMap<>();
        for (String s : opts) {
            o.put(s.substring(0, s.indexOf('=')), s.substring(s.indexOf('=') + 1));
        }
        return StompSettings.of(new DriverSpec("", 0, "", BODY.length, 0, o, "/queue/q"), true);
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] a = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), a);
        return a;
    }

    @Test
    void aSendIsFramedByHandWithItsContentLengthAndReceipt() {
        StompSend send = new StompSend(publisher("receipts=1"), BODY.length);
        ByteBuffer payload = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
        payload.put(4, BODY);
        payload.position(3).limit(17);
        ByteBuf out = Unpooled.buffer();
        send.write(out, payload, 4, 42);
        byte[] head = "SEND\ndestination:/amq/queue/q\ncontent-length:8\nreceipt:42\n\n".getBytes(StandardCharsets.UTF_8);
        byte[] expected = new byte[head.length + BODY.length + 1];
        System.arraycopy(head, 0, expected, 0, head.length);
        System.arraycopy(BODY, 0, expected, head.length, BODY.length);
        assertArrayEquals(expected, bytes(out), new String(bytes(out), StandardCharsets.ISO_8859_1));
        assertEquals(3, payload.position(), "the payload's position is left as it was");
        assertEquals(17, payload.limit());
        assertTrue(out.readableBytes() <= send.maxFrameSize(), out.readableBytes() + " > " + send.maxFrameSize());

        ByteBuf noReceipt = Unpooled.buffer();
        new StompSend(publisher("persistent=true"), BODY.length).write(noReceipt, payload, 4, -1);
        String text = new String(bytes(noReceipt), StandardCharsets.ISO_8859_1);
        assertTrue(text.startsWith("SEND\ndestination:/amq/queue/q\ncontent-length:8\npersistent:true\n\n"), text);
        assertFalse(text.contains("receipt"), text);
    }

    @Test
    void nettysCodecReadsTheSendBackWithItsNulBytes() {
        ByteBuf out = Unpooled.buffer();
        new StompSend(publisher(), BODY.length).write(out, ByteBuffer.wrap(BODY), 0, 7);
        EmbeddedChannel ch = new EmbeddedChannel(new StompSubframeDecoder(), new StompSubframeAggregator(1024));
        while (out.isReadable()) {
            ch.writeInbound(out.readRetainedSlice(Math.min(2, out.readableBytes()))); // TCP may cut anywhere
        }
        StompFrame f = ch.readInbound();
        assertEquals(StompCommand.SEND, f.command());
        assertArrayEquals(BODY, bytes(f.content()));
        assertEquals("7", f.headers().getAsString(StompHeaders.RECEIPT));
        assertEquals("8", f.headers().getAsString(StompHeaders.CONTENT_LENGTH));
        f.release();
        assertNull(ch.readInbound());
    }

    @Test
    void decimalsAreWrittenWithoutAllocating() {
        for (long v : new long[] {0, 7, 10, 99, 100, 1_234_567_890_123L, Long.MAX_VALUE}) {
            ByteBuf b = Unpooled.buffer();
            StompSend.writeDecimal(b, v);
            assertEquals(Long.toString(v), b.toString(StandardCharsets.US_ASCII));
        }
    }

    /** What the connection hands its owner. */
    private static final class Recorder implements StompConnection.Frames {
        final List<byte[]> bodies = new ArrayList<>();
        final List<String> ackIds = new ArrayList<>();
        final List<String> receipts = new ArrayList<>();
        int readsComplete;
        int lost;

        @Override
        public void onMessage(ChannelHandlerContext ctx, StompFrame frame) {
            bodies.add(bytes(frame.content()));
            ackIds.add(StompConnection.header(frame, StompHeaders.ACK));
        }

        @Override
        public void onReceipt(String receiptId) {
            receipts.add(receiptId);
        }

        @Override
        public void onReadComplete(ChannelHandlerContext ctx) {
            readsComplete++;
        }

        @Override
        public void onLost() {
            lost++;
        }
    }

    private static EmbeddedChannel pipeline(StompConnection c) {
        EmbeddedChannel ch = new EmbeddedChannel();
        c.install(ch.pipeline(), 64);
        c.attach(ch);
        return ch;
    }

    /**
     * Feeds {@code wire} two bytes per read: TCP may cut a frame anywhere. Not one byte per read: Netty 4.2.18's
     * StompSubframeDecoder then ends a MESSAGE's headers early once some 40 reads of one byte each fall inside them
     * (checked here: any 8 cuts at random, 2-39 bytes per read, and 1 MB bodies in 7-byte reads all decode whole), a
     * case no socket read produces.
     */
    private static void feedInFragments(EmbeddedChannel ch, byte[] wire) {
        for (int i = 0; i < wire.length; i += 2) {
            ch.writeInbound(Unpooled.wrappedBuffer(wire, i, Math.min(2, wire.length - i)));
        }
    }

    private static byte[] message(String ackId, byte[] body) {
        byte[] head = ("MESSAGE\nsubscription:0\ndestination:/queue/q\nmessage-id:T_0@@1\nack:" + ackId
                + "\ncontent-length:" + body.length + "\n\n").getBytes(StandardCharsets.UTF_8);
        byte[] m = new byte[head.length + body.length + 2];
        System.arraycopy(head, 0, m, 0, head.length);
        System.arraycopy(body, 0, m, head.length, body.length);
        m[m.length - 1] = '\n'; // an optional EOL after the NUL, as STOMP allows
        return m;
    }

    @Test
    void messagesAndReceiptsReachTheOwnerWholeWhateverTheFragments() {
        Recorder r = new Recorder();
        StompConnection c = new StompConnection(publisher(), r);
        EmbeddedChannel ch = pipeline(c);
        feedInFragments(ch, message("a1", BODY));
        feedInFragments(ch, message("a2", new byte[0]));
        feedInFragments(ch, "RECEIPT\nreceipt-id:41\n\n\0".getBytes(StandardCharsets.UTF_8));
        assertEquals(2, r.bodies.size());
        assertArrayEquals(BODY, r.bodies.get(0));
        assertEquals(0, r.bodies.get(1).length);
        assertEquals(List.of("a1", "a2"), r.ackIds);
        assertEquals(List.of("41"), r.receipts);
        assertTrue(r.readsComplete > 0);
        assertEquals(0, r.lost);
        assertNull(c.lostReason());
    }

    @Test
    void anErrorFrameEndsTheConnectionWithItsMessage() {
        Recorder r = new Recorder();
        StompConnection c = new StompConnection(publisher(), r);
        EmbeddedChannel ch = pipeline(c);
        feedInFragments(ch, "ERROR\nmessage:not_found\ncontent-length:13\n\nNO_ROUTE\nq/x.\0".getBytes(StandardCharsets.UTF_8));
        assertEquals("the STOMP broker at stomp://127.0.0.1:61613 sent ERROR 'not_found': NO_ROUTE q/x.",
                c.lostReason());
        assertEquals(1, r.lost, "told once, though the channel's close follows");
        assertFalse(ch.isOpen());
    }

    @Test
    void receiptsConfirmEveryEarlierSendAndTheUnreceiptedTailStaysUnconfirmed() throws Exception {
        AckCounts counts = new AckCounts();
        ReceiptWindow w = new ReceiptWindow(3, 10, counts);
        long[] receiptIds = new long[10];
        for (int n = 0; n < 10; n++) { // sequences -2, -1 (warm-up), then 0..7
            assertTrue(w.tryAcquire());
            receiptIds[n] = w.sent(n - 2);
        }
        assertFalse(w.tryAcquire(), "10 SENDs wait: the window is full");
        // SENDs numbered 2, 5 and 8 carry a receipt (every 3rd); 9 is the unreceipted tail
        assertArrayEquals(new long[] {-1, -1, 2, -1, -1, 5, -1, -1, 8, -1}, receiptIds);
        w.receipt(StompSubscriber.SUBSCRIBED); // not a SEND's number: ignored
        w.receipt("5"); // SENDs 0..5: sequences -2, -1, 0, 1, 2, 3
        assertEquals(4, counts.measuredAcked());
        assertEquals(6, counts.totalAcked());
        assertEquals(4, w.confirmations().confirmed());
        assertEquals(4, w.waiting());
        w.receipt("2"); // an older receipt changes nothing
        assertEquals(4, w.waiting());
        w.receipt("8"); // SENDs 6..8: sequences 4, 5, 6
        assertEquals(7, w.confirmations().confirmed());
        assertEquals(1, w.waiting());
        assertEquals(1, w.unreceipted(), "10 SENDs, a receipt every 3: the last one is never confirmed");
        assertArrayEquals(new long[] {7, 8}, w.confirmations().unconfirmedRanges());
        assertTrue(w.acquire(10));
    }
}
