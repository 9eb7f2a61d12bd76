package io.msgscope.coordinator;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongToDoubleFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The A6 search on synthetic throughput curves whose optimum is known. */
class FSearchTest {

    private static FSearch.Result search(LongToDoubleFunction curve, int maxExponent, List<Long> asked)
            throws Exception {
        return new FSearch((f, phase) -> {
            asked.add(f);
            double v = curve.applyAsDouble(f);
            return new FSearch.Probe(f, v, v, 0, 100, phase);
        }, p -> { }).run(maxExponent);
    }

    /** A broad unimodal curve in log F with its peak at F = 3,000. */
    private static double peakAt3000(long f) {
        double x = Math.log10(f) - Math.log10(3000);
        return 100_000 * Math.exp(-x * x);
    }

    @Test
    void stepsTheExponentUntilThroughputFallsThenBisectsWithinTheBounds() throws Exception {
        List<Long> asked = new ArrayList<>();
        FSearch.Result r = search(FSearchTest::peakAt3000, 6, asked);
        // f(1) < f(10) < f(100) < f(1000), f(10000) < f(1000): falls at exponent 4
        assertEquals(List.of(1L, 10L, 100L, 1000L, 10000L), asked.subList(0, 5));
        assertTrue(r.fell());
        assertEquals(4, r.lastExponent());
        // bounds [10^(4-2), 10^4]; golden-section points at 10^(4 - 0.618*2) and 10^(2 + 0.618*2)
        assertEquals(Math.round(Math.pow(10, 4 - 2 * 0.6180339887)), asked.get(5));
        assertEquals(Math.round(Math.pow(10, 2 + 2 * 0.6180339887)), asked.get(6));
        // stops when the interval is under 1 % of its mean; the result is that mean
        assertTrue(r.hi() - r.lo() < 0.01 * (r.hi() + r.lo()) / 2.0, r.lo() + ".." + r.hi());
        assertEquals((r.lo() + r.hi()) / 2, r.optimal());
        // lands on the peak
        assertTrue(Math.abs(r.optimal() - 3000) < 60, "optimal " + r.optimal());
        // no F measured twice
        assertEquals(asked.size(), asked.stream().distinct().count());
        assertEquals(asked.size(), r.probes().size());
    }

    @Test
    void aCurveThatNeverFallsSearchesBelowTheLargestExponentAndSaysSo() throws Exception {
        List<Long> asked = new ArrayList<>();
        FSearch.Result r = search(f -> Math.log(1 + f), 3, asked);
        assertFalse(r.fell());
        assertEquals(List.of(1L, 10L, 100L, 1000L), asked.subList(0, 4));
        assertTrue(r.lo() >= 10 && r.hi() <= 1000, r.lo() + ".." + r.hi()); // within [10^(3-2), 10^3]
        assertTrue(r.optimal() > 900, "increasing curve: the search climbs to the top bound, got " + r.optimal());
    }

    @Test
    void aPeakAtOneStopsAtOnce() throws Exception {
        List<Long> asked = new ArrayList<>();
        FSearch.Result r = search(f -> 1000.0 / f, 5, asked);
        assertEquals(List.of(1L, 10L), asked.subList(0, 2));
        assertEquals(1, r.lastExponent());
        assertTrue(r.optimal() <= 2, "optimal " + r.optimal());
    }

    @Test
    void throughputStatsUseTheLowerMedianAndTheSampleDeviation() {
        ThroughputStats s = ThroughputStats.of(new double[] {4, 1, 3, 2});
        assertEquals(2, s.median()); // lower median of 1,2,3,4 (M6)
        assertEquals(2.5, s.mean());
        assertEquals(Math.sqrt((2.25 + 0.25 + 0.25 + 2.25) / 3), s.stddev(), 1e-12);
        assertEquals(4, s.n());
        assertTrue(Double.isNaN(ThroughputStats.of(new double[0]).median()));
    }
}
