package io.msgscope.agent.probe;

import io.msgscope.core.CpuClock;
import io.msgscope.core.WireHeader;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The relay's CPU stamps (D4, M3): every Nth measured message (sequence k·N) and the last one get the
 * relay thread's CPU time and clock in the probe slot, in place, whether the tap sees one message at a
 * time or a read's whole batch (index arithmetic); the warm-up and every other message stay untouched.
 */
class CpuStampTapTest {
    private static final int SIZE = 32;
    private static final int WARMUP = 37;
    private static final int COUNT = 1_003;
    private static final int EVERY = 100;

    /** The relay's stream of a trace run: warm-up sequences -1, -2, ..., then 0 .. count-1. */
    static ByteBuffer run() {
        ByteBuffer b = WireHeader.allocate((WARMUP + COUNT) * SIZE);
        for (int i = 0; i < WARMUP + COUNT; i++) {
            long seq = i < WARMUP ? -1 - i : i - WARMUP;
            WireHeader.writeSequence(b, i * SIZE, seq);
            WireHeader.writeProbe(b, i * SIZE, 0, 0);
        }
        return b;
    }

    /** Relay indices of the stamped messages (a stamp's clock is never 0). */
    static List<Integer> stamped(ByteBuffer b) {
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < WARMUP + COUNT; i++) {
            if (WireHeader.probeTime(b, i * SIZE) != 0) {
                assertTrue(WireHeader.probeCpu(b, i * SIZE) > 0, "message " + i + " has no CPU time");
                at.add(i);
            }
        }
        return at;
    }

    /** What the stamps must be: relay index warm-up + k·N for the multiples of N, and the last message. */
    static List<Integer> expected() {
        TreeSet<Integer> at = new TreeSet<>();
        for (int s = 0; s < COUNT; s += EVERY) {
            at.add(WARMUP + s);
        }
        at.add(WARMUP + COUNT - 1);
        return new ArrayList<>(at);
    }

    @Test
    void messageByMessageStampsEveryNthAndTheLast() {
        ByteBuffer b = run();
        CpuStampTap tap = new CpuStampTap(EVERY, COUNT, 0);
        for (int i = 0; i < WARMUP + COUNT; i++) {
            tap.onMessage(b, i * SIZE, i);
        }
        assertEquals(expected(), stamped(b));
    }

    @Test
    void batchesOfEverySizeStampTheSameMessagesByArithmetic() {
        for (int batch : new int[] {1, 2, 3, 7, 36, 37, 38, 99, 100, 101, 250, WARMUP + COUNT}) {
            ByteBuffer b = run();
            CpuStampTap tap = new CpuStampTap(EVERY, COUNT, 0);
            for (int i = 0; i < WARMUP + COUNT; i += batch) {
                int k = Math.min(batch, WARMUP + COUNT - i);
                tap.onMessages(b, i * SIZE, k, SIZE, i);
            }
            assertEquals(expected(), stamped(b), "batches of " + batch);
        }
    }

    @Test
    void aBatchReadsOnlyItsEndsAndTheStampedMessages() {
        // a batch inside the measurement whose interior sequences are garbage: the arithmetic never looks
        // at them, so only the two ends and the due messages decide
        ByteBuffer b = run();
        int first = WARMUP + 150; // sequences 150 .. 349
        for (int i = first + 1; i < first + 199; i++) {
            if ((i - WARMUP) % EVERY != 0) {
                WireHeader.writeSequence(b, i * SIZE, 999_999);
            }
        }
        new CpuStampTap(EVERY, COUNT, 0).onMessages(b, first * SIZE, 200, SIZE, first);
        assertEquals(List.of(WARMUP + 200, WARMUP + 300), stamped(b));
    }

    @Test
    void aBatchWhoseMessagesAreNotWhereTheArithmeticSaysIsCheckedOneByOne() {
        // the ends look like one run 0..9 but the messages in between are shuffled: no wrong stamp
        ByteBuffer b = WireHeader.allocate(10 * SIZE);
        long[] seqs = {0, 5, 2, 3, 4, 1, 6, 7, 8, 9};
        for (int i = 0; i < 10; i++) {
            WireHeader.writeSequence(b, i * SIZE, seqs[i]);
        }
        new CpuStampTap(5, 10, 0).onMessages(b, 0, 10, SIZE, 0);
        for (int i = 0; i < 10; i++) {
            boolean due = seqs[i] == 0 || seqs[i] == 5 || seqs[i] == 9;
            assertEquals(due, WireHeader.probeTime(b, i * SIZE) != 0, "sequence " + seqs[i]);
        }
    }

    @Test
    void theBurnerBurnsItsCpuTimePerMessageInBatchesToo() {
        long before = CpuClock.threadCpuNs();
        ByteBuffer b = run();
        new CpuStampTap(0, COUNT, 20_000).onMessages(b, 0, 100, SIZE, 0); // 100 x 20 us
        assertTrue(CpuClock.threadCpuNs() - before >= 2_000_000, "burnt less than 2 ms of CPU time");
        assertEquals(List.of(), stamped(b), "every = 0: no stamps");
    }
}
