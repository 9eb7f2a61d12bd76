package io.msgscope.analysis.distribution;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.msgscope.analysis.Trace;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Histogram1DTest {

    @Test
    void countModeByHand() {
        Histogram1D h = Histogram1D.withBinCount(0, 10, 5, 1)
                .addAll(new double[] {0, 1.9, 2, 3.999, 4, 9.99, 10, -0.1, Double.NaN}, 9);
        assertEquals(5, h.binCount());
        assertEquals(2.0, h.binWidth());
        assertArrayEquals(new long[] {2, 2, 1, 0, 1}, h.counts());
        assertEquals(1, h.underflow());
        assertEquals(1, h.overflow());
        assertEquals(1, h.skipped());
        assertEquals(6, h.inRange());
        assertEquals(8, h.total());
        assertEquals(4.0, h.binLow(2));
        assertEquals(6.0, h.binHigh(2));
        assertEquals(5.0, h.binCenter(2));
        assertEquals(2 / (8 * 2.0), h.density(0), 1e-15);
    }

    @Test
    void prefixOnlyIsCounted() {
        Histogram1D h = Histogram1D.withBinCount(0, 10, 5, 1).addAll(new double[] {1, 3, 5, 7}, 2);
        assertArrayEquals(new long[] {1, 1, 0, 0, 0}, h.counts());
    }

    @Test
    void widthModeRaisesTheUpperEndToWholeBins() {
        double[] values = {0, 2.9, 3, 9.5, 11, 12};
        Histogram1D byWidth = Histogram1D.withBinWidth(0, 10, 3, 1).addAll(values, values.length);
        assertEquals(4, byWidth.binCount());
        assertEquals(12.0, byWidth.hi());
        assertEquals(3.0, byWidth.binWidth());
        assertArrayEquals(new long[] {2, 1, 0, 2}, byWidth.counts());
        assertEquals(1, byWidth.overflow());
        // the same bins configured by count give the same counts
        Histogram1D byCount = Histogram1D.withBinCount(0, 12, 4, 1).addAll(values, values.length);
        assertArrayEquals(byWidth.counts(), byCount.counts());
    }

    @Test
    void widthThatDividesTheRangeExactlyAddsNoExtraBin() {
        Histogram1D h = Histogram1D.withBinWidth(0.1, 0.5, 0.1, 1);
        assertEquals(4, h.binCount());
        assertEquals(0.5, h.hi(), 1e-15);
    }

    @Test
    void decimalEdgesAgreeWithTheReportedBins() {
        Histogram1D h = Histogram1D.withBinCount(0, 1, 10, 1);
        for (int i = 0; i < 10; i++) {
            h.add(i * 0.1); // 0.30000000000000004, 0.6000000000000001, ...
        }
        h.add(0.3);
        h.add(0.7);
        assertArrayEquals(new long[] {1, 1, 1, 2, 1, 1, 1, 2, 1, 1}, h.counts());
        for (int b = 0; b < 10; b++) {
            assertEquals(b / 10.0, h.binLow(b), 1e-15);
        }
    }

    @Test
    void overlapTwoByHand() {
        // w = 1, step 0.5: bin b covers [(b-1)/2, (b+1)/2), 4*2+1 = 9 bins
        Histogram1D h = Histogram1D.withBinCount(0, 4, 4, 2).addAll(new double[] {0.25, 1.0, 1.75, 3.9}, 4);
        assertEquals(9, h.binCount());
        assertEquals(0.5, h.step());
        assertEquals(1.0, h.binWidth());
        assertEquals(-0.5, h.binLow(0));
        assertEquals(0.5, h.binHigh(0));
        assertEquals(3.5, h.binLow(8));
        assertEquals(4.5, h.binHigh(8));
        assertArrayEquals(new long[] {1, 1, 1, 2, 1, 0, 0, 1, 1}, h.counts());
        long sum = 0;
        for (long c : h.counts()) {
            sum += c;
        }
        assertEquals(2 * h.inRange(), sum);
        for (int b = 0; b < h.binCount(); b++) {
            assertEquals(h.counts()[b], h.count(b));
        }
    }

    @Test
    void overlapCountsEveryValueInExactlyKBins() {
        Random random = new Random(42);
        for (int k = 1; k <= 4; k++) {
            Histogram1D h = Histogram1D.withBinWidth(-3, 3, 0.5, k);
            double[] values = new double[2000];
            for (int i = 0; i < values.length; i++) {
                values[i] = random.nextGaussian();
            }
            h.addAll(values, values.length);
            long[] counts = h.counts();
            long sum = 0;
            for (long c : counts) {
                sum += c;
            }
            assertEquals(k * h.inRange(), sum, "k=" + k);
            // brute force: each value is in exactly k bins, and the counts match
            long[] brute = new long[h.binCount()];
            for (double x : values) {
                if (x < h.lo() || x >= h.hi()) {
                    continue;
                }
                int in = 0;
                for (int b = 0; b < h.binCount(); b++) {
                    if (h.binLow(b) <= x && x < h.binHigh(b)) {
                        brute[b]++;
                        in++;
                    }
                }
                assertEquals(k, in, "value " + x + " with k=" + k);
            }
            assertArrayEquals(brute, counts, "k=" + k);
        }
    }

    @Test
    void longValuesSkipAbsentAndScale() {
        long[] ns = {1000, 2500, Trace.ABSENT, 9999, 10_000, -1};
        Histogram1D h = Histogram1D.withBinCount(0, 10, 10, 1).addAll(ns, ns.length, 1e-3);
        assertArrayEquals(new long[] {0, 1, 1, 0, 0, 0, 0, 0, 0, 1}, h.counts());
        assertEquals(1, h.skipped());
        assertEquals(1, h.overflow());
        assertEquals(1, h.underflow());
        Histogram1D unscaled = Histogram1D.withBinCount(0, 10_000, 10, 1).addAll(ns, ns.length);
        assertArrayEquals(new long[] {0, 1, 1, 0, 0, 0, 0, 0, 0, 1}, unscaled.counts());
    }

    @Test
    void infinitiesAreUnderAndOverflow() {
        Histogram1D h = Histogram1D.withBinCount(0, 1, 2, 1);
        h.add(Double.NEGATIVE_INFINITY);
        h.add(Double.POSITIVE_INFINITY);
        assertEquals(1, h.underflow());
        assertEquals(1, h.overflow());
        assertEquals(0, h.inRange());
    }

    @Test
    void rejectsBadConfigurations() {
        assertThrows(IllegalArgumentException.class, () -> Histogram1D.withBinCount(1, 1, 5, 1));
        assertThrows(IllegalArgumentException.class, () -> Histogram1D.withBinCount(0, Double.NaN, 5, 1));
        assertThrows(IllegalArgumentException.class, () -> Histogram1D.withBinCount(0, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> Histogram1D.withBinCount(0, 1, 5, 0));
        assertThrows(IllegalArgumentException.class, () -> Histogram1D.withBinWidth(0, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> Histogram1D.withBinWidth(0, 1, 1e-12, 1));
        assertThrows(IllegalArgumentException.class, () -> Histogram1D.withBinCount(0, 1, 5, 1).addAll(new double[2], 3));
        assertThrows(IndexOutOfBoundsException.class, () -> Histogram1D.withBinCount(0, 1, 5, 1).count(5));
    }
}
