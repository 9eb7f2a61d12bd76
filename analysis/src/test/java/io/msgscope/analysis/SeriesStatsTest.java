package io.msgscope.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SeriesStatsTest {

    @Test
    void lowerMedianForEvenAndOddCounts() {
        assertEquals(2, SeriesStats.ofLongs(new long[] {4, 1, 3, 2}, 4).median());
        assertEquals(3, SeriesStats.ofLongs(new long[] {5, 1, 4, 2, 3}, 5).median());
        assertEquals(2.5, SeriesStats.ofDoubles(new double[] {4.5, 1.5, 3.5, 2.5}, 4).median());
    }

    @Test
    void onlyThePrefixCountsAndIsSorted() {
        long[] values = {9, 3, 7, 1, 100, -5};
        SeriesStats s = SeriesStats.ofLongs(values, 4);
        assertEquals(4, s.n());
        assertEquals(1, s.min());
        assertEquals(9, s.max());
        assertEquals(5, s.mean());
        assertEquals(3, s.median());
        // Σ|x − 3| = 2 + 0 + 4 + 6 = 12 → 3.
        assertEquals(3, s.robustDeviation());
        assertEquals(100, values[4]);
        assertEquals(-5, values[5]);
    }

    @Test
    void nearestRankPercentiles() {
        assertEquals(998, SeriesStats.nearestRankIndex(99.9, 1000));
        assertEquals(999, SeriesStats.nearestRankIndex(99.9, 1001));
        assertEquals(9998, SeriesStats.nearestRankIndex(99.99, 10_000));
        assertEquals(0, SeriesStats.nearestRankIndex(50, 1));
        assertEquals(0, SeriesStats.nearestRankIndex(50, 2));
        assertEquals(49, SeriesStats.nearestRankIndex(50, 100));
        assertEquals(99, SeriesStats.nearestRankIndex(100, 100));
        assertThrows(IllegalArgumentException.class, () -> SeriesStats.nearestRankIndex(0, 10));

        long[] values = new long[1000];
        for (int i = 0; i < values.length; i++) {
            values[i] = 1000 - i; // 1..1000 reversed
        }
        SeriesStats s = SeriesStats.ofLongs(values, 1000);
        assertEquals(500, s.p50());
        assertEquals(900, s.p90());
        assertEquals(950, s.p95());
        assertEquals(990, s.p99());
        assertEquals(999, s.p999());
        assertEquals(1000, s.p9999());
        assertEquals(500.5, s.mean());
        assertEquals(500, s.median());
        // Σ|x − 500| over 1..1000 = Σ_{k=0}^{499} k + Σ_{k=1}^{500} k = 124750 + 125250 = 250000.
        assertEquals(250, s.robustDeviation());
    }

    @Test
    void emptySeriesIsNaN() {
        SeriesStats s = SeriesStats.ofLongs(new long[3], 0);
        assertEquals(0, s.n());
        assertTrue(s.isEmpty());
        assertTrue(Double.isNaN(s.mean()));
        assertTrue(Double.isNaN(s.median()));
        assertTrue(Double.isNaN(s.robustDeviation()));
        assertTrue(Double.isNaN(s.min()));
        assertTrue(Double.isNaN(s.p9999()));
        assertTrue(SeriesStats.ofDoubles(new double[0], 0).isEmpty());
    }

    @Test
    void hugeValuesDoNotOverflowTheSum() {
        long big = Long.MAX_VALUE / 2;
        SeriesStats s = SeriesStats.ofLongs(new long[] {big, big, big, -big}, 4);
        assertEquals(big / 2d, s.mean(), big * 1e-12);
        assertEquals(big, s.median());
        assertEquals(big / 2d, s.robustDeviation(), big * 1e-12); // |−big − big| / 4
    }

    @Test
    void dividedByScalesEveryStatistic() {
        SeriesStats s = SeriesStats.ofLongs(new long[] {200, 400, 600}, 3).dividedBy(2);
        assertEquals(200, s.mean());
        assertEquals(200, s.median());
        assertEquals(100, s.min());
        assertEquals(300, s.max());
        assertEquals(3, s.n());
    }
}
