package io.msgscope.agent.receiver;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.scenario.BucketCounts;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * With faults (issue 32), deliveries counted per 100 ms bucket of their intended send time, and on a subscription that
 * tells them apart by publisher and sequence, the duplicates and the late (reordered) ones too; each by hand. The
 * arrivals follow the process clock (set to start at epoch 10 s), so only their total is checked.
 */
class RecordingBucketsTest {
    private static final long T0 = 10_000_000_000L; // epoch 10 s: bucket 100

    private static void deliver(MessageHandler h, long publisher, long seq, long intendedEpochNs) {
        ByteBuffer b = WireHeader.allocate(64);
        b.putLong(WireHeader.EPOCH_NS_OFFSET, intendedEpochNs).putLong(WireHeader.SEQUENCE_OFFSET, seq)
                .putLong(WireHeader.INTENDED_NS_OFFSET, intendedEpochNs).putLong(WireHeader.PUBLISHER_OFFSET, publisher);
        h.onMessage(b, 0);
    }

    @Test
    void aTrackedSubscriptionCountsDuplicatesAndLateDeliveriesByTheirIntendedBucket() {
        Recording r = new Recording(T0 - System.nanoTime()); // arrivals around epoch 10 s, within the span
        r.buckets(new BucketCounts.Span(100, 100_000_000L, 10));
        MessageHandler sub = r.tracked();
        deliver(sub, 0, 0, T0);                    // bucket 100
        deliver(sub, 0, 2, T0 + 150_000_000L);     // bucket 101, past a gap (1)
        deliver(sub, 0, 1, T0 + 80_000_000L);      // bucket 100: late, fills it
        deliver(sub, 0, 2, T0 + 150_000_000L);     // bucket 101: seen before
        deliver(sub, 1, 0, T0 + 250_000_000L);     // another publisher, bucket 102
        deliver(sub, 1, -1, T0);                   // warm-up: not counted
        MessageHandler other = r.tracked();        // a second subscription sees its own copy: new there
        deliver(other, 0, 2, T0 + 150_000_000L);
        long[][] c = r.byBucket();
        assertEquals(6, java.util.Arrays.stream(c[0]).sum(), "arrivals");
        assertArrayEquals(new long[] {2, 3, 1}, c[1], "deliveries by intended bucket");
        assertArrayEquals(new long[] {0, 1}, c[2], "duplicates");
        assertArrayEquals(new long[] {1}, c[3], "late");
        assertEquals(0, r.untold());
        assertEquals(0, r.outsideBuckets());
        deliver(sub, 0, 3, T0 + 2_000_000_000L);   // bucket 120, past the span's 100-109: in none of them
        assertEquals(1, r.outsideBuckets());
        assertArrayEquals(new long[] {2, 3, 1}, r.byBucket()[1], "the late one counted nowhere else");
    }

    @Test
    void theSharedHandlerCountsDeliveriesButTellsNothingApart() {
        Recording r = new Recording(0);
        r.buckets(new BucketCounts.Span(100, 100_000_000L, 10));
        deliver(r, 0, 0, T0);
        deliver(r, 0, 0, T0);
        long[][] c = r.byBucket();
        assertArrayEquals(new long[] {2}, c[1]);
        assertArrayEquals(new long[0], c[2]);
        // the arrivals, stamped on the bare process clock (offset 0), lie far outside the span: each counted there
        assertEquals(2, r.outsideBuckets());
    }
}
