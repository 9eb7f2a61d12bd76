package io.msgscope.agent.receiver;

import java.util.Arrays;

/**
 * One subscription's view of every publisher's sequence (issue 32 item 5: exact loss per fault without a per-message
 * trace): for each publisher it has heard from, the next sequence it expects and the gaps it skipped, so that each
 * arrival is told apart as {@link #NEW} (the next one, or past a gap), {@link #LATE} (new, filling a gap: reordered) or
 * {@link #DUPLICATE} (seen before). A publisher whose gaps outgrow {@link #MAX_GAPS} is no longer told apart
 * ({@link #UNKNOWN} from then on), so a pathological stream cannot eat the agent's memory.
 *
 * <p>The delivering thread calls {@link #see}; a driver that hands one subscription's messages to several threads in
 * turn is covered by the lock (uncontended in every driver here).
 */
final class SequenceBook {
    static final int NEW = 0;
    static final int LATE = 1;
    static final int DUPLICATE = 2;
    static final int UNKNOWN = 3;
    /** Gaps one publisher's stream may hold open before it is no longer tracked. */
    static final int MAX_GAPS = 4_096;

    /** One publisher's stream: the next sequence expected, and the gaps [from, to) not yet filled, in order. */
    private static final class Stream {
        long next;
        long[] gaps = new long[0]; // from0, to0, from1, to1, ...
        int gapCount;
        boolean overflowed;
    }

    private long[] keys = new long[8];
    private Stream[] values = new Stream[8];
    private int size;

    /** Classifies the arrival of {@code seq} (0 or more) from publisher {@code publisher}. */
    synchronized int see(long publisher, long seq) {
        Stream s = stream(publisher);
        if (s.overflowed) {
            return UNKNOWN;
        }
        if (seq == s.next) {
            s.next = seq + 1;
            return NEW;
        }
        if (seq > s.next) {
            if (s.gapCount == MAX_GAPS) {
                s.overflowed = true;
                s.gaps = null;
                return UNKNOWN;
            }
            addGap(s, s.next, seq);
            s.next = seq + 1;
            return NEW;
        }
        return fill(s, seq) ? LATE : DUPLICATE;
    }

    /** Gaps still open over every publisher (each a run of messages not received, or not yet). */
    synchronized int openGaps() {
        int n = 0;
        for (int k = 0; k < values.length; k++) {
            if (values[k] != null && !values[k].overflowed) {
                n += values[k].gapCount;
            }
        }
        return n;
    }

    private static void addGap(Stream s, long from, long to) {
        if (s.gaps.length < 2 * (s.gapCount + 1)) {
            s.gaps = Arrays.copyOf(s.gaps, Math.max(4, s.gaps.length * 2));
        }
        s.gaps[2 * s.gapCount] = from;
        s.gaps[2 * s.gapCount + 1] = to;
        s.gapCount++;
    }

    /** Takes {@code seq} out of the gap holding it (splitting it); false when no gap holds it (seen before). */
    private static boolean fill(Stream s, long seq) {
        int lo = 0;
        int hi = s.gapCount - 1;
        while (lo <= hi) { // the gaps are in order and never overlap
            int mid = (lo + hi) >>> 1;
            long from = s.gaps[2 * mid];
            long to = s.gaps[2 * mid + 1];
            if (seq < from) {
                hi = mid - 1;
            } else if (seq >= to) {
                lo = mid + 1;
            } else {
                if (from + 1 == to) { // the whole gap: remove it
                    System.arraycopy(s.gaps, 2 * mid + 2, s.gaps, 2 * mid, 2 * (s.gapCount - mid - 1));
                    s.gapCount--;
                } else if (seq == from) {
                    s.gaps[2 * mid] = from + 1;
                } else if (seq == to - 1) {
                    s.gaps[2 * mid + 1] = to - 1;
                } else { // split in two
                    if (s.gapCount == MAX_GAPS) {
                        s.overflowed = true;
                        s.gaps = null;
                        return true; // new all the same; the stream is not told apart from now on
                    }
                    if (s.gaps.length < 2 * (s.gapCount + 1)) {
                        s.gaps = Arrays.copyOf(s.gaps, s.gaps.length * 2);
                    }
                    System.arraycopy(s.gaps, 2 * mid + 2, s.gaps, 2 * mid + 4, 2 * (s.gapCount - mid - 1));
                    s.gaps[2 * mid + 1] = seq;
                    s.gaps[2 * mid + 2] = seq + 1;
                    s.gaps[2 * mid + 3] = to;
                    s.gapCount++;
                }
                return true;
            }
        }
        return false;
    }

    /** The stream of {@code publisher}, made on its first message (open addressing, linear probing). */
    private Stream stream(long publisher) {
        int mask = keys.length - 1;
        int k = (int) (publisher * 0x9E3779B97F4A7C15L >>> 40) & mask;
        while (values[k] != null) {
            if (keys[k] == publisher) {
                return values[k];
            }
            k = (k + 1) & mask;
        }
        if (2 * (size + 1) > keys.length) {
            grow();
            return stream(publisher);
        }
        keys[k] = publisher;
        values[k] = new Stream();
        size++;
        return values[k];
    }

    private void grow() {
        long[] oldKeys = keys;
        Stream[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new Stream[oldValues.length * 2];
        int mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                int k = (int) (oldKeys[i] * 0x9E3779B97F4A7C15L >>> 40) & mask;
                while (values[k] != null) {
                    k = (k + 1) & mask;
                }
                keys[k] = oldKeys[i];
                values[k] = oldValues[i];
            }
        }
    }
}
