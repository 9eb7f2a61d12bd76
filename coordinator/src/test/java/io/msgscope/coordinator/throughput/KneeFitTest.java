package io.msgscope.coordinator.throughput;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.LongToDoubleFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The knee read off a fitted curve, on simulated systems whose curve is flat within the noise from F ≈ 40 on — the
 * case issue 17's repeats failed on (five searches of RabbitMQ named knees from 24 to 41,499). Noise as measured
 * there: 30 % per sample, and each probe as a whole off by a factor drawn once per probe (the machine's state
 * changes between probes more than one probe's interval says).
 */
class KneeFitTest {
    /** The pipe fills at F0 = 30 with a sharp corner (k = 4): 90 % of the plateau at F = 35.2. */
    static double pipe(long f) {
        return 300_000.0 * f / Math.pow(Math.pow(f, 4) + Math.pow(30, 4), 0.25);
    }

    /** The same, creeping up 5 % per decade past the corner (a broker batching more as more is in flight). */
    static double creep(long f) {
        return pipe(f) * (1 + 0.05 * Math.log10(Math.max(1, f / 30.0)));
    }

    static FSearch.Measure simulated(LongToDoubleFunction curve, double probeSd, long seed) {
        Random rnd = new Random(seed);
        return (f, phase) -> {
            double t = curve.applyAsDouble(f) * Math.exp(probeSd * rnd.nextGaussian());
            double[] s = new double[100];
            for (int i = 0; i < s.length; i++) {
                s[i] = Math.max(1, t * (1 + 0.3 * rnd.nextGaussian()));
            }
            Histogram h = new Histogram(1_000, 10_000_000_000L, 3);
            h.recordValueWithCount(Math.max(1_000, Math.min(10_000_000_000L, (long) (f / t * 1e9))), 100);
            return new FSearch.Probe(f, phase, s, h, f);
        };
    }

    /** Ten searches: their knees and the fits' crossovers. */
    static List<FSearch.Result> searches(LongToDoubleFunction curve, double probeSd) throws Exception {
        List<FSearch.Result> out = new ArrayList<>();
        for (long seed = 1; seed <= 10; seed++) {
            out.add(new FSearch(simulated(curve, probeSd, seed), p -> { }, 2, 40).run(5));
        }
        return out;
    }

    static double spread(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).max().orElseThrow()
                / v.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    }

    /**
     * @param kneeRange  the knees' allowed range: around the true 90 % point (35.26 for the pipe)
     * @param crossRatio how far each crossover may lie from the true F0 = 30, as a factor
     */
    static void check(String name, LongToDoubleFunction curve, double probeSd, double kneeSpread, double crossSpread,
                      double[] kneeRange, double crossRatio) throws Exception {
        List<Double> knees = new ArrayList<>();
        List<Double> crossovers = new ArrayList<>();
        for (FSearch.Result r : searches(curve, probeSd)) {
            assertTrue(r.fit() != null, name + ": " + r.kneeRule());
            assertTrue(r.probes().size() <= 40);
            knees.add((double) r.knee().inFlight());
            crossovers.add(r.fit().crossover());
        }
        String seen = name + " probe noise " + probeSd + ": knees " + knees + ", crossovers " + crossovers;
        System.out.println(seen);
        assertTrue(spread(knees) <= kneeSpread, seen);
        assertTrue(spread(crossovers) <= crossSpread, seen);
        // issue 36: near the true 90 % point, not merely "somewhere between 20 and 400"; F0 near the true 30
        assertTrue(knees.stream().allMatch(k -> k >= kneeRange[0] && k <= kneeRange[1]), seen);
        assertTrue(crossovers.stream().allMatch(c -> c >= 30 / crossRatio && c <= 30 * crossRatio), seen);
    }

    @Test
    void withNoiseInsideProbesOnlyTheKneesAgreeWithinAFactorTwo() throws Exception {
        // seen (issue 27's fit): pipe knees 30-42, F0 29.0-31.3; creep knees 42-70, F0 30.1-34.5 (the creep lifts
        // the curve past the corner, so its 90 % point lies further out)
        check("pipe", KneeFitTest::pipe, 0, 2, 1.25, new double[] {0.8 * 35.26, 1.3 * 35.26}, 1.1);
        check("creep", KneeFitTest::creep, 0, 2, 1.25, new double[] {0.8 * 35.26, 2.3 * 35.26}, 1.2);
    }

    @Test
    void withProbesTenPercentApartTheCrossoverStillAgreesAndTheKneeStaysOnTheShoulder() throws Exception {
        // seen: pipe knees 27-70, F0 23.8-33.2; creep knees 28-78, F0 27.7-34.0
        check("pipe", KneeFitTest::pipe, 0.1, 4, 1.5, new double[] {0.7 * 35.26, 2.2 * 35.26}, 1.35);
        check("creep", KneeFitTest::creep, 0.1, 4, 1.5, new double[] {0.7 * 35.26, 2.5 * 35.26}, 1.35);
    }

    private static FSearch.Probe flat(long f, double median) {
        double[] s = new double[100];
        for (int i = 0; i < s.length; i++) {
            s[i] = median * (1 + 0.01 * (i % 3 - 1));
        }
        return new FSearch.Probe(f, "step", s, null, Double.NaN);
    }

    @Test
    void withoutACurveThatFitsTheKneeIsTheSmallestMeasuredFAtThePeaksBar() throws Exception {
        // F = 1..5 alternate between 100k and 10k: no saturation curve comes within 25 % of them
        java.util.NavigableMap<Long, SearchPoint> points = new java.util.TreeMap<>();
        double[] medians = {10_000, 100_000, 10_000, 100_000, 10_000, 100_000};
        for (int i = 0; i < medians.length; i++) {
            SearchPoint p = new SearchPoint(i + 1);
            p.add(flat(i + 1, medians[i]));
            points.put(i + 1L, p);
        }
        List<Long> asked = new ArrayList<>();
        KneeFit.Knee k = new KneeFit(points, (f, phase) -> {
            asked.add(f);
            SearchPoint p = points.computeIfAbsent(f, SearchPoint::new);
            p.add(flat(f, medians[(int) f - 1]));
            return p;
        }, () -> 10).find(points.get(6L), 95_000);
        assertTrue(k.fit() == null, "no fit: " + k.rule());
        assertTrue(k.rule().startsWith("measured") && k.rule().contains("from the curve"), k.rule());
        org.junit.jupiter.api.Assertions.assertEquals(2, k.point().inFlight(), "the smallest F at the bar");
        assertTrue(asked.isEmpty(), "nothing probed without a curve: " + asked);
    }

    /** A soft corner (k = 0.6, F0 = 100): throughput keeps creeping up for decades past F0. */
    static double soft(long f) {
        return 200_000.0 * f / Math.pow(Math.pow(f, 0.6) + Math.pow(100, 0.6), 1 / 0.6);
    }

    /**
     * The true 90 % points, by hand from F0·r/(1 − r^k)^(1/k): sharp (F0 = 30, k = 4): 0.9^4 = 0.6561, 1 − 0.6561 =
     * 0.3439, its fourth root 0.76579, 27 / 0.76579 = 35.258; soft (F0 = 100, k = 0.6): 0.9^0.6 = 0.938740,
     * 1 − it = 0.061260, to the power 1/0.6 = 0.0095197, 90 / 0.0095197 = 9,454.
     */
    static final double SHARP_KNEE = 35.258;
    static final double SOFT_KNEE = 9_454;

    /** Issue 27: over twenty seeds each, the knee's interval contains the true 90 % point on both shapes. */
    @Test
    void theKneesIntervalContainsTheTrue90PercentPointOnSharpAndSoftCurves() throws Exception {
        assertEquals(SHARP_KNEE, 30 * 0.9 / Math.pow(1 - Math.pow(0.9, 4), 0.25), 0.001);
        assertEquals(SOFT_KNEE, 100 * 0.9 / Math.pow(1 - Math.pow(0.9, 0.6), 1 / 0.6), 1);
        int[] sharp = coverage(KneeFitTest::pipe, SHARP_KNEE, "sharp");
        int[] soft = coverage(KneeFitTest::soft, SOFT_KNEE, "soft");
        // seen: sharp 19 of 20, soft 19 of 20 (over 100 seeds 91 and 95); bootstrapping the raw residuals, as before
        // issue 27's mend, held it in 19 and 16 of these 20 (87 and 86 of 100) and fails here; a knee from the bound,
        // or an interval of noise only, would miss the soft one nearly always
        assertTrue(sharp[0] >= 17 && soft[0] >= 17 && sharp[0] + soft[0] >= 36,
                "the interval held the true knee in " + sharp[0] + " (sharp) and " + soft[0] + " (soft) of 20");
        // widths (high / low, median of ten) ~2.3 and ~5: a soft corner gets a wide, honest interval
        assertTrue(soft[1] >= 1.8 * sharp[1], "soft width x" + soft[1] / 100.0 + " vs sharp x" + sharp[1] / 100.0);
    }

    /** {searches whose knee interval holds the true knee, the median width ratio high/low x 100}. */
    static int[] coverage(LongToDoubleFunction curve, double trueKnee, String name) throws Exception {
        int in = 0;
        List<Double> widths = new ArrayList<>();
        for (long seed = 1; seed <= 20; seed++) {
            FSearch.Result r = new FSearch(simulated(curve, 0.1, seed), p -> { }, 2, 40).run(5);
            assertTrue(r.fit() != null, name + ": " + r.kneeRule());
            if (r.fit().kneeLow() <= trueKnee && trueKnee <= r.fit().kneeHigh()) {
                in++;
            }
            widths.add(r.fit().kneeHigh() / r.fit().kneeLow());
            System.out.printf("%s seed %d: knee %.1f [%.1f, %.1f], k = %.2f, F0 = %.1f%n", name, seed,
                    r.fit().kneeAt(0.9), r.fit().kneeLow(), r.fit().kneeHigh(), r.fit().sharpness(),
                    r.fit().crossover());
        }
        widths.sort(null);
        return new int[] {in, (int) Math.round(100 * widths.get(widths.size() / 2))};
    }
}
