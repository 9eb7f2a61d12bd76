package io.msgscope.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class SendRecorderTest {
    private static final long A = SendRecorder.ABSENT;

    @Test
    void slotsStartAbsent() {
        SendRecorder r = new SendRecorder(4, true);
        assertEquals(Long.MIN_VALUE, SendRecorder.ABSENT);
        assertArrayEquals(new long[] {A, A, A, A}, r.sendNs());
        assertArrayEquals(new long[] {A, A, A, A}, r.intendedNs());
        assertEquals(0, r.sent());
    }

    @Test
    void noIntendedArrayWithoutRate() {
        assertNull(new SendRecorder(3, false).intendedNs());
    }

    @Test
    void recordsBySequence() {
        SendRecorder r = new SendRecorder(4, true);
        r.recordSend(2, 200);
        r.recordSend(0, 100);
        r.recordIntended(2, 190);
        assertArrayEquals(new long[] {100, A, 200, A}, r.sendNs());
        assertArrayEquals(new long[] {A, A, 190, A}, r.intendedNs());
        assertEquals(2, r.sent());
    }
}
