package io.msgscope.core.driver;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Which measured messages the system under test confirmed (issue 32 item 3), one bit per sequence number: a million
 * messages cost 125 KB, allocated in chunks of 65,536 sequences as they are sent. Any thread may
 * {@link #confirm} (a client library's callback thread); the sender's thread {@link #sent} each message. At the end
 * the publisher hands over the unconfirmed sequences as ranges ({@link #unconfirmedRanges}), few in practice (the
 * window still in flight when the broker went away), so the coordinator can tell a lost message the system had
 * confirmed, a guarantee violation, from one it never had.
 */
public final class Confirmations {
    private static final int CHUNK_BITS = 16;
    private static final int CHUNK = 1 << CHUNK_BITS;
    /** More unconfirmed ranges than this are not handed over: the violations are then unknown. */
    public static final int MAX_RANGES = 65_536;

    private final AtomicReferenceArray<AtomicLongArray> chunks =
            new AtomicReferenceArray<>((int) ((1L << 31) >>> CHUNK_BITS));
    private final AtomicLong confirmed = new AtomicLong();
    private final AtomicLong republished = new AtomicLong();
    private volatile long sentEnd; // one past the highest measured sequence sent; sender thread writes

    /** Sender thread: measured message {@code seq} went out (warm-up ones, negative, are not tracked). */
    public void sent(long seq) {
        if (seq >= 0 && seq >= sentEnd) {
            chunk(seq);
            sentEnd = seq + 1;
        }
    }

    /** Any thread: {@code seq} was confirmed; true the first time (a republished message may be confirmed twice). */
    public boolean confirm(long seq) {
        if (seq < 0 || seq >= (1L << 31)) {
            return false;
        }
        AtomicLongArray c = chunk(seq);
        int bit = (int) (seq & (CHUNK - 1));
        long mask = 1L << (bit & 63);
        while (true) {
            long w = c.get(bit >>> 6);
            if ((w & mask) != 0) {
                return false;
            }
            if (c.compareAndSet(bit >>> 6, w, w | mask)) {
                confirmed.incrementAndGet();
                return true;
            }
        }
    }

    /** Whether {@code seq} was confirmed. */
    public boolean isConfirmed(long seq) {
        if (seq < 0 || seq >= (1L << 31)) {
            return false;
        }
        AtomicLongArray c = chunks.get((int) (seq >>> CHUNK_BITS));
        int bit = (int) (seq & (CHUNK - 1));
        return c != null && (c.get(bit >>> 6) & (1L << (bit & 63))) != 0;
    }

    /** One message published again because it was not confirmed. */
    public void republished() {
        republished.incrementAndGet();
    }

    private AtomicLongArray chunk(long seq) {
        int i = (int) (seq >>> CHUNK_BITS);
        AtomicLongArray c = chunks.get(i);
        if (c == null) {
            chunks.compareAndSet(i, null, new AtomicLongArray(CHUNK / 64));
            c = chunks.get(i);
        }
        return c;
    }

    public long confirmed() {
        return confirmed.get();
    }

    /** Measured messages sent and not confirmed (so far). */
    public long unconfirmed() {
        return sentEnd - confirmed.get();
    }

    /**
     * The sequences in {@code [0, sent)} never confirmed, as sorted {@code [from, to)} pairs
     * ({@code {3, 5, 9, 10}}: 3, 4 and 9), or null when there are more than {@link #MAX_RANGES} ranges.
     */
    public long[] unconfirmedRanges() {
        long end = sentEnd;
        long[] out = new long[16];
        int n = 0;
        long open = -1;
        for (long s = 0; s < end; s++) {
            boolean c = isConfirmed(s);
            if (!c && open < 0) {
                open = s;
            } else if (c && open >= 0) {
                if (n / 2 == MAX_RANGES) {
                    return null;
                }
                if (n + 2 > out.length) {
                    out = Arrays.copyOf(out, out.length * 2);
                }
                out[n++] = open;
                out[n++] = s;
                open = -1;
            }
        }
        if (open >= 0) {
            if (n / 2 == MAX_RANGES) {
                return null;
            }
            out = Arrays.copyOf(out, n + 2);
            out[n++] = open;
            out[n++] = end;
        }
        return Arrays.copyOf(out, n);
    }

    /** {@link Reconnects#CONFIRMED}, {@link Reconnects#UNCONFIRMED} and {@link Reconnects#REPUBLISHED}. */
    public java.util.Map<String, Long> counters() {
        return java.util.Map.of(Reconnects.CONFIRMED, confirmed(), Reconnects.UNCONFIRMED, unconfirmed(),
                Reconnects.REPUBLISHED, republished.get());
    }
}
