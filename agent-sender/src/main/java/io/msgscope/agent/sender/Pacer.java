package io.msgscope.agent.sender;

import io.msgscope.core.NanoClock;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.ErrorTally;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.timeline.Timeline;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One pacer thread of the scenario runtime (issue 13): it sends for many publisher connections on
 * their rate schedules, holding each one's next due time in a binary min-heap (no thread and no timer
 * per connection). Message {@code i} of a publisher is due at {@code start + offset + i * period}; the
 * pacer parks until the earliest due time (spinning only the last {@link #SPIN_NS}), stamps the payload
 * in its one buffer and {@link Publisher#offer offers} it:
 *
 * <pre>
 * bytes  0-7   actual send time, epoch ns (Q1)
 * bytes  8-15  sequence (negative during the warm-up, so subscribers discard those messages)
 * bytes 16-23  intended send time, epoch ns (the header's probe slot; no probe runs in this mode)
 * bytes 24-31  the publisher's index over the run (its sequence is its own: issue 32, loss per publisher)
 * </pre>
 *
 * On load phases (issue 31, {@link #armTimeline}) the schedule is the run's {@link Timeline} of the TOTAL rate: publisher
 * {@code g} of {@code P} sends the timeline's messages {@code g, g + P, g + 2P, ...}, each at its due time, so the P
 * publishers together follow the timeline and each one its share (at a constant rate this is the schedule above).
 *
 * <p>A phase that ends on a word (until drained, until the broker holds N; issue 31) ends when the coordinator says so,
 * one instant for every pacer of every publishers agent: first it {@link #freeze freezes} the phase at an instant, after
 * which the pacer sends none of the messages due from it on (each message's due time is claimed before the freeze is
 * looked at, so that the agent, which reads the claims after setting the freeze, knows an instant every message sent
 * lies before), then it {@link #endPhase hands over the timeline as run}, whose phase ends at or after every agent's
 * freeze: the messages held are due before its end and go out late (their latency from the intended time shows it),
 * the later ones at their new due times. While a word is pending the pacer never parks longer than {@link #WORD_PARK_NS},
 * so the timeline as run is taken up within it.
 *
 * <p>A publisher whose window is full is offered the same message again {@link #RETRY_NS} later, its
 * intended time unchanged (so the corrected latency shows the wait; counted as {@code sends_deferred});
 * a publisher that falls behind sends late rather than dropping messages. A publisher whose send fails
 * (connection lost, refused) counts one error by kind and stops.
 */
final class Pacer implements Runnable {
    static final long SPIN_NS = 20_000;
    static final long RETRY_NS = 100_000;
    /** Longest park while a phase that ends on a word has not ended. */
    static final long WORD_PARK_NS = 1_000_000;

    private final NanoClock time;
    private final Publisher[] pubs;     // this pacer's publishers (null: never opened)
    private final long[] offsetNs;      // each one's place in the schedule: spreads P publishers over a period
    private final long[] ids;           // each one's index over the run's publishers (the header's bytes 24-31)
    private final ByteBuffer buf;
    private final int size;
    private final long epochMinusMono;
    /** The clock test hook's shift (issue 33); null in every normal run. */
    private final io.msgscope.core.clock.ClockShift shift = io.msgscope.core.Clock.process().shift();
    private final ErrorTally errors;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong deferred = new AtomicLong();
    private final AtomicLong stopped = new AtomicLong();

    // one phase's schedule, set by arm() before the thread starts
    private long startNs;
    private long periodNs;
    private final long[] count;         // messages each publisher sends in the phase
    private Timeline timeline;          // load phases (null: one rate)
    private long[] index;               // each publisher's place g of the run's P on the timeline
    private long stride;                // P
    private boolean warmup;
    private final long[] next;          // next message index per publisher
    private final long[] wake;          // when each publisher is next looked at (>= its due time)
    private final boolean[] failed;     // a publisher whose send failed: stopped for good
    private boolean words;              // a phase that ends on a word has not ended: parks are short
    private volatile long freezeNs = Long.MAX_VALUE; // no message due at or after this is sent (monotonic ns)
    private volatile long claimedNs = Long.MIN_VALUE; // the latest due time the pacer went to send, claimed first
    private final java.util.concurrent.atomic.AtomicReference<Timeline> asRun = new java.util.concurrent.atomic.AtomicReference<>();
    private final int[] heap;           // publisher slots ordered by wake time
    private int heapSize;
    private volatile boolean stop;
    /** With faults (issue 32): the measured messages sent, by the bucket of their intended time; else null. */
    private io.msgscope.core.scenario.BucketCounts dueBuckets;

    Pacer(Publisher[] pubs, long[] offsetNs, long[] ids, ByteBuffer buf, int size, long epochMinusMono,
          ErrorTally errors) {
        this(pubs, offsetNs, ids, buf, size, epochMinusMono, errors, NanoClock.SYSTEM);
    }

    /** With the clock it reads and waits on (a test's clock). */
    Pacer(Publisher[] pubs, long[] offsetNs, long[] ids, ByteBuffer buf, int size, long epochMinusMono,
          ErrorTally errors, NanoClock time) {
        this.time = time;
        this.pubs = pubs;
        this.offsetNs = offsetNs;
        this.ids = ids;
        this.buf = buf;
        this.size = size;
        this.epochMinusMono = epochMinusMono;
        this.errors = errors;
        this.next = new long[pubs.length];
        this.wake = new long[pubs.length];
        this.failed = new boolean[pubs.length];
        this.heap = new int[pubs.length];
        this.count = new long[pubs.length];
    }

    /** Sets up one phase: {@code count} messages per publisher at {@code rate} msg/s from {@code startNs}. */
    void arm(boolean warmup, long count, double rate, long startNs) {
        this.warmup = warmup;
        this.timeline = null;
        java.util.Arrays.fill(this.count, count);
        this.periodNs = Math.max(1, Math.round(1e9 / rate));
        arm(startNs);
    }

    /**
     * Sets up a measurement on load phases (issue 31): publisher slot {@code s}, the run's publisher
     * {@code index[s]} of {@code total}, sends the timeline's messages {@code index[s] + k * total} at their due
     * times from {@code startNs}.
     */
    void armTimeline(Timeline timeline, long[] index, int total, long startNs) {
        this.warmup = false;
        this.timeline = timeline;
        this.index = index.clone();
        this.stride = total;
        counts(timeline);
        arm(startNs);
        this.words = timeline.wordsPending();
    }

    private void counts(Timeline t) {
        long m = t.messages();
        for (int s = 0; s < pubs.length; s++) {
            count[s] = index[s] >= m ? 0 : (m - index[s] + stride - 1) / stride;
        }
    }

    /**
     * Any thread: sends no message due at or after {@code atNs} (monotonic) until {@link #endPhase}; answers the latest
     * due time this pacer may have sent a message for (it claims each one before it looks at the freeze), so that every
     * message it sent is due before {@code max(atNs, answer + 1)}.
     */
    long freeze(long atNs) {
        freezeNs = atNs;
        return claimedNs;
    }

    /** Any thread: the word phase frozen last ended; follow {@code t}, the timeline as run, from now on. */
    void endPhase(Timeline t) {
        asRun.set(t);
    }

    /** Pacer thread: takes up the timeline as run, its later messages at their new due times, and lifts the freeze. */
    private void take(Timeline t) {
        timeline = t;
        counts(t);
        heapSize = 0;
        for (int s = 0; s < pubs.length; s++) {
            if (pubs[s] != null && !failed[s] && next[s] < count[s]) {
                wake[s] = due(s, next[s]); // earlier than before when the phase ended before its cap
                push(s);
            }
        }
        words = t.wordsPending();
        freezeNs = Long.MAX_VALUE;
    }

    private void arm(long startNs) {
        this.startNs = startNs;
        this.stop = false;
        sent.set(0);
        heapSize = 0;
        this.words = false;
        this.freezeNs = Long.MAX_VALUE;
        this.claimedNs = Long.MIN_VALUE;
        this.asRun.set(null);
        for (int s = 0; s < pubs.length; s++) {
            next[s] = 0;
            failed[s] = false;
            if (pubs[s] != null && count[s] > 0) {
                wake[s] = due(s, 0);
                push(s);
            }
        }
    }

    /** When publisher slot {@code s}'s message {@code i} of the phase is due, on the monotonic clock. */
    long due(int s, long i) {
        return timeline == null ? startNs + offsetNs[s] + i * periodNs : startNs + timeline.dueNs(i * stride + index[s]);
    }

    /** Messages publisher slot {@code s} sends in the phase armed. */
    long count(int s) {
        return count[s];
    }

    /** Before {@link #run}: counts each message sent by the bucket its intended time falls in (null: not counted). */
    void countDue(io.msgscope.core.scenario.BucketCounts buckets) {
        dueBuckets = buckets;
    }

    /** Ends the phase early (the coordinator's STOP, or the role closing). */
    void stop() {
        stop = true;
    }

    /** Messages sent in the current (or last) phase. */
    long sent() {
        return sent.get();
    }

    long deferred() {
        return deferred.get();
    }

    long stopped() {
        return stopped.get();
    }

    Publisher[] publishers() {
        return pubs;
    }

    @Override
    public void run() {
        final ByteBuffer b = buf;
        final int sz = size;
        final long e = epochMinusMono;
        final io.msgscope.core.clock.ClockShift sh = shift;
        long sentHere = 0;
        long claimed = Long.MIN_VALUE;
        while (!stop) {
            if (words && asRun.get() != null) { // a read per message; the swap only when one came
                take(asRun.getAndSet(null));
            }
            if (heapSize == 0) {
                break;
            }
            final int s = heap[0];
            final long at = wake[s];
            long now = time.nanoTime();
            if (at > now) { // then look at the heap again: stop (or the timeline as run) may have come
                time.idle(words ? Math.min(at - now, WORD_PARK_NS) : at - now, SPIN_NS);
                continue;
            }
            final long i = next[s];
            final long intended = due(s, i);
            if (words) {
                if (intended > claimed) {
                    claimed = intended;
                    claimedNs = intended; // claimed before the freeze is read (see freeze)
                }
                if (intended >= freezeNs) {
                    time.idle(Math.min(WORD_PARK_NS, 100_000), SPIN_NS); // held until the timeline as run comes
                    continue;
                }
            }
            b.putLong(WireHeader.SEQUENCE_OFFSET, warmup ? -1 - i : i);
            b.putLong(WireHeader.PUBLISHER_OFFSET, ids[s]);
            final long sendNs = time.nanoTime();
            final long shifted = sh == null ? 0 : sh.atStamp(sendNs); // the test hook only (issue 33)
            WireHeader.writeIntendedTime(b, 0, intended + e + shifted);
            WireHeader.writeSendTime(b, 0, sendNs + e + shifted);
            boolean taken;
            try {
                taken = pubs[s].offer(b, 0, sz);
            } catch (Exception ex) {
                // the connection is unusable (lost, refused): one error, and this publisher stops, rather
                // than one error per remaining scheduled message
                errors.add(ex);
                stopped.incrementAndGet();
                failed[s] = true;
                pop();
                continue;
            }
            if (!taken) {
                deferred.lazySet(deferred.get() + 1);
                wake[s] = now + RETRY_NS;
                siftDown(0);
                continue;
            }
            sent.lazySet(++sentHere);
            if (dueBuckets != null) {
                dueBuckets.add(intended + e + shifted);
            }
            if (i + 1 >= count[s]) {
                next[s] = count[s];
                pop();
            } else {
                next[s] = i + 1;
                wake[s] = due(s, i + 1);
                siftDown(0);
            }
        }
    }

    private void push(int s) {
        int k = heapSize++;
        heap[k] = s;
        while (k > 0) {
            int parent = (k - 1) >>> 1;
            if (wake[heap[parent]] <= wake[s]) {
                break;
            }
            heap[k] = heap[parent];
            k = parent;
        }
        heap[k] = s;
    }

    private void pop() {
        int last = heap[--heapSize];
        if (heapSize > 0) {
            heap[0] = last;
            siftDown(0);
        }
    }

    private void siftDown(int k) {
        final int s = heap[k];
        final long key = wake[s];
        final int n = heapSize;
        while (true) {
            int c = 2 * k + 1;
            if (c >= n) {
                break;
            }
            if (c + 1 < n && wake[heap[c + 1]] < wake[heap[c]]) {
                c++;
            }
            if (wake[heap[c]] >= key) {
                break;
            }
            heap[k] = heap[c];
            k = c;
        }
        heap[k] = s;
    }
}
