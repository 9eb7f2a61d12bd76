package io.msgscope.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CappedVarint32FrameDecoderTest {
    private static final int CAP = 1000;

    private final EmbeddedChannel ch = new EmbeddedChannel(new CappedVarint32FrameDecoder(CAP));

    @AfterEach
    void release() {
        ch.finishAndReleaseAll();
    }

    private static byte[] body(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i);
        }
        return b;
    }

    @Test
    void frameFedByteByByteDecodesOnce() {
        byte[] payload = body(300, 1); // 300 needs a two-byte varint
        byte[] wire = Wire.concat(Wire.varint(300), payload);
        assertEquals(302, wire.length);
        for (int i = 0; i < wire.length - 1; i++) {
            assertFalse(ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {wire[i]})), "frame produced early at " + i);
        }
        assertTrue(ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {wire[wire.length - 1]})));
        assertArrayEquals(payload, Wire.bytes(ch.readInbound()));
        assertNull(ch.readInbound());
    }

    @Test
    void twoFramesInOneBuffer() {
        byte[] a = body(5, 10);
        byte[] b = body(130, 50);
        assertTrue(ch.writeInbound(Unpooled.wrappedBuffer(Wire.concat(Wire.varint(5), a, Wire.varint(130), b))));
        assertArrayEquals(a, Wire.bytes(ch.readInbound()));
        assertArrayEquals(b, Wire.bytes(ch.readInbound()));
        assertNull(ch.readInbound());
    }

    @Test
    void emptyFrameAndFrameAtTheCap() {
        byte[] full = body(CAP, 3);
        assertTrue(ch.writeInbound(Unpooled.wrappedBuffer(Wire.concat(Wire.varint(0), Wire.varint(CAP), full))));
        assertEquals(0, Wire.bytes(ch.readInbound()).length);
        assertArrayEquals(full, Wire.bytes(ch.readInbound()));
    }

    @Test
    void frameAboveTheCapIsRejectedFromItsLengthAlone() {
        // only the length prefix: rejected before any of the body is waited for or buffered
        ByteBuf prefix = Unpooled.wrappedBuffer(Wire.varint(CAP + 1));
        TooLongFrameException e = assertThrows(TooLongFrameException.class, () -> ch.writeInbound(prefix));
        assertTrue(e.getMessage().contains("1001") && e.getMessage().contains("cap of 1000"), e.getMessage());
        assertEquals(0, prefix.refCnt());
        assertNull(ch.readInbound());
    }

    @Test
    void oversizedFrameBytesAreDiscardedNotBuffered() {
        ByteBuf in = Unpooled.wrappedBuffer(Wire.concat(Wire.varint(CAP + 1), body(50, 0)));
        assertThrows(TooLongFrameException.class, () -> ch.writeInbound(in));
        assertNull(ch.readInbound());
        // nothing of the rejected frame is left in the decoder: the next frame decodes on its own
        byte[] next = body(4, 77);
        assertTrue(ch.writeInbound(Unpooled.wrappedBuffer(Wire.concat(Wire.varint(4), next))));
        assertArrayEquals(next, Wire.bytes(ch.readInbound()));
        assertNull(ch.readInbound());
    }

    @Test
    void negativeLengthIsRejected() {
        // 0xFFFFFFFF as a five-byte varint: an int length of -1
        byte[] minusOne = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F};
        TooLongFrameException e = assertThrows(TooLongFrameException.class,
                () -> ch.writeInbound(Unpooled.wrappedBuffer(minusOne)));
        assertTrue(e.getMessage().contains("4294967295"), e.getMessage());
    }

    @Test
    void sixByteVarintIsCorrupted() {
        byte[] six = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01};
        assertThrows(CorruptedFrameException.class, () -> ch.writeInbound(Unpooled.wrappedBuffer(six)));
        assertNull(ch.readInbound());
    }

    @Test
    void incompleteVarintWaits() {
        byte[] five = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80};
        assertFalse(ch.writeInbound(Unpooled.wrappedBuffer(five)));
        assertNull(ch.readInbound());
    }
}
