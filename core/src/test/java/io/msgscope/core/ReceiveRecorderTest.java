package io.msgscope.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ReceiveRecorderTest {
    private static final long A = ReceiveRecorder.ABSENT;

    @Test
    void freshRecorderIsEmpty() {
        ReceiveRecorder r = new ReceiveRecorder(3);
        assertEquals(SendRecorder.ABSENT, ReceiveRecorder.ABSENT);
        assertArrayEquals(new long[] {A, A, A}, r.recvNs());
        assertEquals(0, r.received());
        assertEquals(0, r.duplicates());
        assertEquals(0, r.reordered());
        assertEquals(0, r.outOfRange());
        assertEquals(A, r.firstNs());
        assertEquals(A, r.lastNs());
        assertFalse(r.complete());
    }

    @Test
    void handMadeSequence() {
        // arrivals: 0,1,3,2,2,5,4 with count 5; 5 is out of range
        ReceiveRecorder r = new ReceiveRecorder(5);
        long[] seqs = {0, 1, 3, 2, 2, 5, 4};
        long[] times = {1000, 1010, 1020, 1030, 1040, 1050, 1060};
        for (int i = 0; i < seqs.length; i++) {
            r.recordReceive(seqs[i], times[i]);
        }
        // the first arrival of 2 (1030) is kept, the duplicate (1040) ignored
        assertArrayEquals(new long[] {1000, 1010, 1030, 1020, 1060}, r.recvNs());
        assertEquals(5, r.received());
        assertEquals(1, r.duplicates());
        assertEquals(1, r.reordered(), "only 2 after 3 arrived below the highest seen");
        assertEquals(1, r.outOfRange());
        assertTrue(r.complete());
        assertEquals(1000, r.firstNs());
        assertEquals(1060, r.lastNs(), "last is the last recorded arrival, not the out-of-range one");
    }

    @Test
    void negativeAndTooLargeSequencesAreOutOfRange() {
        ReceiveRecorder r = new ReceiveRecorder(2);
        r.recordReceive(-1, 10);
        r.recordReceive(2, 20);
        r.recordReceive(Long.MAX_VALUE, 30);
        r.recordReceive(Long.MIN_VALUE, 40);
        assertEquals(4, r.outOfRange());
        assertEquals(0, r.received());
        assertEquals(A, r.firstNs());
        assertEquals(A, r.lastNs());
        assertArrayEquals(new long[] {A, A}, r.recvNs());
    }

    @Test
    void lossLeavesSlotsAbsentAndIsNotComplete() {
        ReceiveRecorder r = new ReceiveRecorder(4);
        r.recordReceive(3, 50);
        r.recordReceive(1, 60);
        assertArrayEquals(new long[] {A, 60, A, 50}, r.recvNs());
        assertEquals(2, r.received());
        assertEquals(1, r.reordered());
        assertFalse(r.complete());
        assertEquals(50, r.firstNs());
        assertEquals(60, r.lastNs());
    }

    @Test
    void reorderingCountsEveryLateArrival() {
        ReceiveRecorder r = new ReceiveRecorder(4);
        r.recordReceive(3, 1);
        r.recordReceive(0, 2);
        r.recordReceive(1, 3);
        r.recordReceive(2, 4);
        assertEquals(3, r.reordered());
        assertEquals(0, r.duplicates());
        assertTrue(r.complete());
    }

    @Test
    void aRunThatTurnsOutShorterCompletesOnItsOwnCountAndTheBacklogScanFindsTheFirstGap() {
        // sized for 10 (a drain's cap), the run held 6: 0-5, with 2 still missing after 0,1,3,4,5
        ReceiveRecorder r = new ReceiveRecorder(10);
        for (long seq : new long[] {0, 1, 3, 4, 5}) {
            r.recordReceive(seq, 100 + seq);
        }
        assertEquals(0, r.firstMissing(0, 0), "nothing below 0");
        assertEquals(2, r.firstMissing(0, 4));
        assertEquals(2, r.firstMissing(2, 4), "the scan resumes where it stopped");
        assertEquals(1, r.missing(0, 4));
        assertEquals(6, r.firstMissing(3, 6), "every one from 3 to 5 is here");
        assertEquals(10, r.expected());
        r.expect(6);
        assertEquals(6, r.expected());
        assertTrue(!r.complete());
        r.recordReceive(2, 110);
        assertTrue(r.complete(), "6 of the 6 the run held");
        assertEquals(4, r.firstMissing(0, 4));
        assertEquals(0, r.missing(0, 6));
        assertThrows(IllegalArgumentException.class, () -> r.expect(11));
        assertThrows(IllegalArgumentException.class, () -> r.expect(0));
    }
}
