package io.msgscope.coordinator;

import io.msgscope.analysis.stats.SaturationFit;
import io.msgscope.coordinator.result.SearchSection;
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

    @Test
    void aPeakWellAboveThePlateauIsASecondRise() {
        SaturationFit fit = new SaturationFit(100_000, 30, 4, 0.01, 8);
        assertTrue(result(150_000, fit).risesPastPlateau(), "50 % above the plateau, its interval wholly above");
        assertFalse(result(103_000, fit).risesPastPlateau(), "3 %: within the practical difference");
        assertFalse(result(150_000, null).risesPastPlateau(), "no curve, no plateau to rise past");
    }
}
