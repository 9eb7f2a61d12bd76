package io.msgscope.core.scenario;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BucketCountsTest {
    @Test
    void countsLandInTheBucketOfTheirStampAndAddUpAcrossWriters() {
        BucketCounts.Span span = BucketCounts.Span.from(10_050_000_000L, 100, 1_000); // buckets 100..110
        assertEquals(100, span.first());
        assertEquals(11, span.length());
        BucketCounts a = new BucketCounts(span);
        BucketCounts b = new BucketCounts(span);
        a.add(10_000_000_000L);      // bucket 100
        a.add(10_099_999_999L);      // still 100
        a.add(10_100_000_000L);      // 101
        b.add(10_350_000_000L);      // 103
        b.add(9_999_999_999L);       // bucket 99: before the span
        b.add(11_100_000_000L);      // bucket 111: after it
        assertArrayEquals(new long[] {2, 1, 0, 1}, BucketCounts.sum(List.of(a, b))); // trailing empty buckets cut
        assertEquals(0, a.outside());
        assertEquals(2, b.outside());
        assertArrayEquals(new long[0], BucketCounts.sum(List.of()));
    }

    @Test
    void aSpanNeedsAWidthAndALength() {
        assertThrows(IllegalArgumentException.class, () -> new BucketCounts.Span(0, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new BucketCounts.Span(0, 1, 0));
    }
}
