package io.msgscope.coordinator.throughput;

import io.msgscope.analysis.stats.SaturationFit;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** search.gp draws the curve the knee was read off; a second rise past its plateau is told apart (issue 17). */
class SearchPlotTest {
    private static FSearch.Probe flat(long f, double median) {
        double[] s = new double[100];
        for (int i = 0; i < s.length; i++) {
            s[i] = median * (1 + 0.01 * (i % 3 - 1));
        }
        return new FSearch.Probe(f, "step", s, null, Double.NaN);
    }

    private static FSearch.Result result(double peakMedian, SaturationFit fit) {
        SearchPoint knee = new SearchPoint(40);
        knee.add(flat(40, 95_000));
        SearchPoint peak = new SearchPoint(10_000);
        peak.add(flat(10_000, peakMedian));
        peak.confirm(flat(10_000, peakMedian));
        return new FSearch.Result(peak, knee, fit, fit == null ? "measured" : "fitted", 0.9 * peakMedian, 1000, 10_000,
                4, false, "stopped", List.of(), List.of(knee, peak), 0);
    }

    @Test
    void theFittedCurveIsDrawnOverTheProbes() {
        String gp = SearchPlot.script(SearchSection.of(result(100_000, new SaturationFit(100_000, 30, 4, 0.01, 8)),
                "m", "knee", true));
        assertTrue(gp.contains("P = 100000; F0 = 30.0000; k = 4.00000\n"), gp);
        assertTrue(gp.contains("curve(x) = P * x / (x**k + F0**k)**(1.0/k)\n"), gp);
        assertTrue(gp.contains("title \"\", \\\n     curve(x) with lines dashtype 2 title \"fitted curve"), gp);
        assertTrue(gp.endsWith("P)\"\n"), gp);
    }

    @Test
    void withoutAFitTheScriptIsAsBefore() {
        String gp = SearchPlot.script(SearchSection.of(result(100_000, null), "m", "knee", true));
        assertFalse(gp.contains("curve"), gp);
        assertTrue(gp.endsWith("smooth unique with lines title \"\"\n"), gp);
    }

    /**
     * Issue 29: the peak at the largest F probed had its word to its right, cut off by the frame; now a mark in the
     * right half of the log axis has its word on its left, one in the left half on its right, and the y axis of a
     * rate starts at 0 with room above the highest median for the words.
     */
    @Test
    void peakAndKneeWordsStayInsideTheFrame() {
        String gp = SearchPlot.script(SearchSection.of(result(100_000, null), "m", "knee", true), 1, 10_000);
        assertTrue(gp.contains("set label 1 \"peak\" at first 10000, first 100000.0 right point pt 6 ps 2 offset -1,1"), gp);
        assertTrue(gp.contains("set label 2 \"knee\" at first 40, first 95000.0 left point pt 8 ps 2 offset 1,-1"), gp);
        assertTrue(gp.contains("set yrange [0:*]\nset offsets 0, 0, graph 0.12, 0\n"), gp);
        assertTrue(SearchPlot.script(SearchSection.of(result(100_000, null), "m", "knee", true), 1, 10_000_000_000L)
                .contains("\"peak\" at first 10000, first 100000.0 left"), "F = 10,000 in the left half of 1 to 10^10");
    }

    @Test
    void aPeakWellAboveThePlateauIsASecondRise() {
        SaturationFit fit = new SaturationFit(100_000, 30, 4, 0.01, 8);
        assertTrue(result(150_000, fit).risesPastPlateau(), "50 % above the plateau, its interval wholly above");
        assertFalse(result(103_000, fit).risesPastPlateau(), "3 %: within the practical difference");
        assertFalse(result(150_000, null).risesPastPlateau(), "no curve, no plateau to rise past");
    }
}
