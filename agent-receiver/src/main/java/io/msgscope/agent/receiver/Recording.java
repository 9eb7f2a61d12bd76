package io.msgscope.agent.receiver;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The subscribers' one message handler (issue 13, Q2, Q3): called by the drivers on their I/O threads,
 * first thing in the read callback, for every connection. It takes the receive time first, skips
 * warm-up messages (negative sequence, counted), and records two latencies into the calling thread's
 * own {@link Slot}: from the actual send time (bytes 0-7) and from the intended send time (bytes 16-23),
 * each into a {@link SingleWriterRecorder} (1 µs-10 s, 3 significant figures, ns). One slot per I/O
 * thread, however many connections it serves: no lock, no shared counter and no allocation per
 * message, and a few recorders per agent instead of two per connection. Negative latencies (clock error
 * between the two agents' epoch offsets) are recorded as 0 and counted as {@code latency_clamped}. The
 * reporter swaps every slot's interval histograms ({@link #swap}) and reads the counters, which each
 * slot's thread publishes with release stores.
 *
 * <p>On phases that end on a word (issue 31) it also counts each measured delivery by the phase its intended send time
 * falls in ({@link #classify}: the timeline as run so far, from the instant every agent started it), so that the
 * coordinator can tell when every message scheduled before a drain has arrived.
 */
final class Recording implements MessageHandler {
    static final long HIGHEST_NS = io.msgscope.core.LatencyRange.HIGHEST_NS;

    private static final VarHandle RECEIVED;
    private static final VarHandle WARMUP;

    static {
        try {
            RECEIVED = MethodHandles.lookup().findVarHandle(Slot.class, "received", long.class);
            WARMUP = MethodHandles.lookup().findVarHandle(Slot.class, "warmup", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One I/O thread's recorders and counters; written by that thread only. */
    static final class Slot {
        final SingleWriterRecorder actual = io.msgscope.core.LatencyRange.recorder();
        final SingleWriterRecorder intended = io.msgscope.core.LatencyRange.recorder();
        volatile long received;
        volatile long warmup;
        volatile long clamped;
        volatile long overRange;
        final java.util.concurrent.atomic.AtomicLongArray byPhase;
        int lastPhase; // the delivering thread's: the phase of its last delivery, where the next one mostly lies
        /** With faults (issue 32): measured deliveries by arrival time and by intended send time; else null. */
        final io.msgscope.core.scenario.BucketCounts arrived;
        final io.msgscope.core.scenario.BucketCounts due;
        /** The same, of deliveries a subscription had seen before, and of new ones that filled a gap (reordered). */
        final io.msgscope.core.scenario.BucketCounts duplicated;
        final io.msgscope.core.scenario.BucketCounts late;
        /** Deliveries of a stream whose gaps outgrew {@link SequenceBook#MAX_GAPS}: not told apart. */
        volatile long untold;
        // reporter thread only
        Histogram recycleActual;
        Histogram recycleIntended;

        Slot(int phases, io.msgscope.core.scenario.BucketCounts.Span buckets) {
            byPhase = new java.util.concurrent.atomic.AtomicLongArray(phases);
            arrived = buckets == null ? null : new io.msgscope.core.scenario.BucketCounts(buckets);
            due = buckets == null ? null : new io.msgscope.core.scenario.BucketCounts(buckets);
            duplicated = buckets == null ? null : new io.msgscope.core.scenario.BucketCounts(buckets);
            late = buckets == null ? null : new io.msgscope.core.scenario.BucketCounts(buckets);
        }
    }

    /** The timeline deliveries are counted by, and when it started (epoch ns); null until {@link #classify}. */
    private record Phases(io.msgscope.core.timeline.Timeline timeline, long originEpochNs) {
    }

    private final long epochMinusMono;
    private final List<Slot> slots = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Slot> mine = ThreadLocal.withInitial(this::newSlot);
    private volatile int phaseCount;
    private volatile Phases phases;
    private volatile io.msgscope.core.scenario.BucketCounts.Span buckets;

    Recording(long epochMinusMono) {
        this.epochMinusMono = epochMinusMono;
    }

    /** Before the first delivery: each slot counts deliveries by this many phases (once {@link #classify} is called). */
    void phaseCount(int n) {
        phaseCount = n;
    }

    /** Before the first delivery: each slot also counts measured deliveries by bucket of arrival and of intended time. */
    void buckets(io.msgscope.core.scenario.BucketCounts.Span span) {
        buckets = span;
    }

    /** The buckets' span, or null when deliveries are not counted by bucket. */
    io.msgscope.core.scenario.BucketCounts.Span span() {
        return buckets;
    }

    /**
     * Measured deliveries by arrival bucket, by intended-time bucket, and of those the duplicates and the late ones,
     * summed over the slots (trailing zeros cut).
     */
    long[][] byBucket() {
        List<List<io.msgscope.core.scenario.BucketCounts>> all = List.of(new java.util.ArrayList<>(),
                new java.util.ArrayList<>(), new java.util.ArrayList<>(), new java.util.ArrayList<>());
        for (Slot s : slots) {
            if (s.arrived != null) {
                all.get(0).add(s.arrived);
                all.get(1).add(s.due);
                all.get(2).add(s.duplicated);
                all.get(3).add(s.late);
            }
        }
        long[][] out = new long[4][];
        for (int k = 0; k < 4; k++) {
            out[k] = io.msgscope.core.scenario.BucketCounts.sum(all.get(k));
        }
        return out;
    }

    /** Counts stamped outside the buckets' span (by arrival and by intended time), over the slots. */
    long outsideBuckets() {
        long n = 0;
        for (Slot s : slots) {
            if (s.arrived != null) {
                n += s.arrived.outside() + s.due.outside();
            }
        }
        return n;
    }

    /** Deliveries not told apart (a stream with too many gaps), over the slots. */
    long untold() {
        long n = 0;
        for (Slot s : slots) {
            n += s.untold;
        }
        return n;
    }

    /**
     * The handler of one subscription whose deliveries are told apart by publisher and sequence (issue 32): new, late
     * (reordered) or seen before, each counted by its intended time's bucket besides everything {@link #onMessage}
     * records. Only with buckets ({@link #buckets}).
     */
    MessageHandler tracked() {
        SequenceBook book = new SequenceBook();
        return (buf, offset) -> onMessage(buf, offset, book);
    }

    /** Counts each measured delivery from now on by its intended send time's phase of {@code t}, started at origin. */
    void classify(io.msgscope.core.timeline.Timeline t, long originEpochNs) {
        if (t.phases().size() > phaseCount) {
            throw new IllegalArgumentException(t.phases().size() + " phases, counted by " + phaseCount);
        }
        phases = new Phases(t, originEpochNs);
    }

    /** Measured deliveries so far by phase, summed over the slots. */
    long[] byPhase() {
        long[] out = new long[phaseCount];
        for (Slot s : slots) {
            for (int k = 0; k < out.length && k < s.byPhase.length(); k++) {
                out[k] += s.byPhase.get(k);
            }
        }
        return out;
    }

    private Slot newSlot() {
        Slot s = new Slot(phaseCount, buckets);
        slots.add(s);
        return s;
    }

    @Override
    public void onMessage(ByteBuffer buf, int offset) {
        onMessage(buf, offset, null);
    }

    private void onMessage(ByteBuffer buf, int offset, SequenceBook book) {
        final long now = System.nanoTime() + epochMinusMono; // Q2: first thing
        final Slot s = mine.get();
        if (buf.getLong(offset + WireHeader.SEQUENCE_OFFSET) < 0) {
            WARMUP.setRelease(s, s.warmup + 1); // single writer: read, add, publish with a release store
            return;
        }
        final long intended = WireHeader.intendedTime(buf, offset);
        record(s, s.actual, now - buf.getLong(offset + WireHeader.EPOCH_NS_OFFSET));
        record(s, s.intended, now - intended);
        RECEIVED.setRelease(s, s.received + 1);
        if (s.arrived != null) {
            s.arrived.add(now);
            s.due.add(intended);
            if (book != null) {
                switch (book.see(buf.getLong(offset + WireHeader.PUBLISHER_OFFSET),
                        buf.getLong(offset + WireHeader.SEQUENCE_OFFSET))) {
                    case SequenceBook.DUPLICATE -> s.duplicated.add(intended);
                    case SequenceBook.LATE -> s.late.add(intended);
                    case SequenceBook.UNKNOWN -> s.untold = s.untold + 1; // single writer
                    default -> {
                    }
                }
            }
        }
        final Phases p = phases;
        if (p != null) {
            int k = p.timeline().phaseAt(intended - p.originEpochNs(), s.lastPhase);
            s.lastPhase = k;
            if (k < s.byPhase.length()) {
                s.byPhase.lazySet(k, s.byPhase.get(k) + 1); // single writer
            }
        }
    }

    private static void record(Slot s, SingleWriterRecorder r, long latency) {
        if (latency < 0) {
            s.clamped = s.clamped + 1;
            latency = 0;
        } else if (latency > HIGHEST_NS) {
            s.overRange = s.overRange + 1;
            latency = HIGHEST_NS;
        }
        r.recordValue(latency);
    }

    /** Reporter: adds every slot's interval (since the last swap) into the totals, and into the interval histograms when given. */
    void swap(Histogram totalActual, Histogram totalIntended, Histogram intervalActual, Histogram intervalIntended) {
        for (Slot s : slots) {
            s.recycleActual = s.actual.getIntervalHistogram(s.recycleActual);
            s.recycleIntended = s.intended.getIntervalHistogram(s.recycleIntended);
            totalActual.add(s.recycleActual);
            totalIntended.add(s.recycleIntended);
            if (intervalActual != null) {
                intervalActual.add(s.recycleActual);
                intervalIntended.add(s.recycleIntended);
            }
        }
    }

    /** Totals over every slot: received, warm-up received, clamped, over range. */
    long[] counts() {
        long[] c = new long[4];
        for (Slot s : slots) {
            c[0] += s.received;
            c[1] += s.warmup;
            c[2] += s.clamped;
            c[3] += s.overRange;
        }
        return c;
    }

    /** I/O threads that have delivered at least one message. */
    int threads() {
        return slots.size();
    }
}
