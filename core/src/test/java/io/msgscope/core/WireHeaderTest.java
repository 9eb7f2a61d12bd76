package io.msgscope.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class WireHeaderTest {

    @Test
    void layoutConstants() {
        assertEquals(0, WireHeader.EPOCH_NS_OFFSET);
        assertEquals(8, WireHeader.SEQUENCE_OFFSET);
        assertEquals(16, WireHeader.PROBE_CPU_OFFSET);
        assertEquals(24, WireHeader.PROBE_TIME_OFFSET);
        assertEquals(32, WireHeader.SIZE);
    }

    /** Scenario mode's intended send time lives in the probe's CPU slot, read and written by its own name. */
    @Test
    void intendedTimeIsTheProbeCpuSlotOfItsMessage() {
        ByteBuffer buf = WireHeader.allocate(96);
        WireHeader.writeIntendedTime(buf, 48, 1_234_567_890_123L);
        assertEquals(16, WireHeader.INTENDED_NS_OFFSET);
        assertEquals(1_234_567_890_123L, WireHeader.intendedTime(buf, 48));
        assertEquals(1_234_567_890_123L, buf.getLong(48 + 16));
        assertEquals(0, WireHeader.intendedTime(buf, 0), "the first message's slot untouched");
    }

    @Test
    void allocateIsLittleEndian() {
        ByteBuffer buf = WireHeader.allocate(64);
        assertEquals(ByteOrder.LITTLE_ENDIAN, buf.order());
        assertEquals(64, buf.capacity());
    }

    @Test
    void fieldsAreLittleEndianAtTheirOffsets() {
        ByteBuffer buf = WireHeader.allocate(WireHeader.SIZE);
        WireHeader.writeSendTime(buf, 0, 0x0102030405060708L);
        WireHeader.writeSequence(buf, 0, 0x1112131415161718L);
        WireHeader.writeProbe(buf, 0, 0x2122232425262728L, 0x3132333435363738L);

        byte[] raw = new byte[WireHeader.SIZE];
        buf.duplicate().position(0).get(raw);
        assertLittleEndian(raw, 0, 0x0102030405060708L);
        assertLittleEndian(raw, 8, 0x1112131415161718L);
        assertLittleEndian(raw, 16, 0x2122232425262728L);
        assertLittleEndian(raw, 24, 0x3132333435363738L);
        assertEquals(0, buf.position(), "accessors must not move the position");

        assertEquals(0x0102030405060708L, WireHeader.sendTime(buf, 0));
        assertEquals(0x1112131415161718L, WireHeader.sequence(buf, 0));
        assertEquals(0x2122232425262728L, WireHeader.probeCpu(buf, 0));
        assertEquals(0x3132333435363738L, WireHeader.probeTime(buf, 0));
    }

    @Test
    void negativeSequenceRoundTrips() {
        ByteBuffer buf = WireHeader.allocate(WireHeader.SIZE);
        WireHeader.writeSequence(buf, 0, -7);
        assertEquals(-7, WireHeader.sequence(buf, 0));
    }

    @Test
    void inPlaceWritesAtAnOffsetLeaveNeighboursAlone() {
        int size = 40;
        ByteBuffer buf = WireHeader.allocate(3 * size);
        for (int i = 0; i < buf.capacity(); i++) {
            buf.put(i, (byte) 0x5A);
        }
        int msg = size; // the middle message
        WireHeader.writeSendTime(buf, msg, 123_456_789_012L);
        WireHeader.writeSequence(buf, msg, 42);
        WireHeader.writeProbe(buf, msg, 7, 99);

        assertEquals(123_456_789_012L, WireHeader.sendTime(buf, msg));
        assertEquals(42, WireHeader.sequence(buf, msg));
        assertEquals(7, WireHeader.probeCpu(buf, msg));
        assertEquals(99, WireHeader.probeTime(buf, msg));
        for (int i = 0; i < buf.capacity(); i++) {
            boolean header = i >= msg && i < msg + WireHeader.SIZE;
            if (!header) {
                assertEquals((byte) 0x5A, buf.get(i), "byte " + i + " outside the header changed");
            }
        }
        assertEquals(0, buf.position());

        // rewriting in place replaces the values, nothing else
        WireHeader.writeSequence(buf, msg, 43);
        assertEquals(43, WireHeader.sequence(buf, msg));
        assertEquals(123_456_789_012L, WireHeader.sendTime(buf, msg));
        assertEquals(7, WireHeader.probeCpu(buf, msg));
    }

    private static void assertLittleEndian(byte[] raw, int at, long expected) {
        for (int i = 0; i < 8; i++) {
            assertEquals((byte) (expected >>> (8 * i)), raw[at + i], "byte " + (at + i));
        }
    }
}
