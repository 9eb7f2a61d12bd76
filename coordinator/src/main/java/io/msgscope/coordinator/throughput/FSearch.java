package io.msgscope.coordinator.throughput;

import io.msgscope.analysis.stats.MedianInterval;
import io.msgscope.analysis.stats.SampleSummary;
import io.msgscope.analysis.stats.SaturationFit;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The search for the in-flight count F (A6) that does not decide on noise (issue 17). Every
 * comparison between two F uses the distribution-free 95 % intervals of their median throughput
 * ({@link MedianInterval}); while the intervals overlap both F are measured again, their samples
 * pooled, up to {@code remeasure} times, and only then is the comparison a tie. Medians closer than
 * {@link #PRACTICAL_DIFFERENCE} are a tie whatever their intervals say.
 * <ol>
 *   <li><b>Steps</b>: F = 10^e for e = 0, 1, … until an F is clearly below the best so far (its
 *       interval entirely under the best's) — A6's "until throughput falls" — or e reaches the
 *       largest exponent. A tie does not stop the steps: the curve is flat there.</li>
 *   <li><b>Narrowing</b>: with b the best step's exponent and "last" the one that fell, a
 *       golden-section search for the maximum on log F over [max(0, b − 1), min(b + 1, last)]
 *       (A6's [last − 2, last] when the fall came right after the best), until the interval is under
 *       1 % of its mean (A6) — or until its two interior F cannot be told apart after the
 *       re-measurements: the curve is flat within the noise there and no further probe could say on
 *       which side the maximum lies. Golden section, not bisection: one midpoint cannot tell on which
 *       side of it a maximum lies, two interior points can.</li>
 *   <li><b>Peak</b>: the measured F of highest pooled median, then measured afresh {@code 1 + remeasure}
 *       times: the highest of many noisy medians is biased upwards (the winner's curse), so the
 *       peak's interval — the bar for the knee — comes from samples that took no part in choosing it.</li>
 *   <li><b>Knee</b>, read off a fitted curve ({@link KneeFit}): a saturation curve
 *       {@link SaturationFit X(F) = P·F/(F^k + F0^k)^(1/k)} is fitted to every point not clearly past the fall,
 *       then the shoulder around the asymptotes' crossover F0 is measured ({@code F0/2, F0, 2·F0, 4·F0}, up to
 *       twice each, refitted between rounds), and the knee is the smallest F at which the fitted curve reaches
 *       {@code 1 − }{@link #KNEE_MARGIN} of its plateau — measured there for its own median and latency. A knee
 *       read off single probes moved along a flat noisy curve by factors of 10–1,000 from run to run (issue 17's
 *       repeat, and {@code KneeFitTest}'s simulation); the fitted one uses every probe at once. When no curve fits
 *       (fewer than three points up to the peak, or half the points further than {@link KneeFit#MAX_FIT_ERROR_PERCENT} % from it), the
 *       knee is the smallest measured F whose median lies within the peak's interval and within
 *       {@link #KNEE_MARGIN} of its median, and the result says so.</li>
 * </ol>
 * Every F is measured at most once per stage unless re-measured on purpose, the total is capped
 * ({@code maxProbes}), and the result says why it stopped.
 */
public final class FSearch {
    /**
     * How far below the peak's median the knee's median may lie, as a fraction of the peak's (0.10: the knee
     * reaches at least 90 % of the peak), besides lying within the peak's interval: "as fast as the peak" within
     * the noise and within a margin a user would call the same.
     */
    public static final double KNEE_MARGIN = 0.10;
    /**
     * Two F whose medians differ by less than this fraction are never told apart, however narrow their
     * intervals: pooled probes of one F measured minutes apart vary more than one probe's interval says
     * (the machine's state changes between probes), and a 3 % decision on 30 % noise is the one issue 17
     * found. The same threshold as the stationarity checks'.
     */
    public static final double PRACTICAL_DIFFERENCE = io.msgscope.analysis.stats.Stationarity.MIN_SHIFT;

    /** One measurement at a given F: its samples in order, and optionally its latency and in-flight count. */
    public record Probe(long inFlight, String phase, double[] samples, Histogram latency, double meanInFlight) {
        public SampleSummary summary() {
            return SampleSummary.of(samples);
        }
    }

    /** Measures the throughput at F. */
    @FunctionalInterface
    public interface Measure {
        Probe at(long inFlight, String phase) throws Exception;
    }

    /**
     * The search's result.
     *
     * @param peak          the measured F of highest median throughput, confirmed by fresh probes
     * @param knee          the knee: measured at the F where the fitted curve reaches {@code 1 - KNEE_MARGIN} of its
     *                      plateau, or (no usable fit) the smallest measured F whose median reaches the floor
     * @param fit           the curve the knee was read off, or null when none was usable
     * @param kneeRule      how the knee was found, in words (the fit, or why none was used)
     * @param floor         the peak's bar: the peak's interval's lower bound (from the confirmation when there is
     *                      one), or {@code 1 - KNEE_MARGIN} of the peak's median when that is higher
     * @param lo            the narrowing stage's final bounds (F)
     * @param hi            …
     * @param lastExponent  the exponent at which the steps stopped
     * @param fell          whether throughput clearly fell during the steps
     * @param stopReason    why the narrowing stopped
     * @param probes        every probe in the order measured
     * @param points        every F measured, ascending, pooled
     * @param remeasured    how many probes were re-measurements
     */
    public record Result(SearchPoint peak, SearchPoint knee, SaturationFit fit, String kneeRule, double floor, long lo, long hi, int lastExponent, boolean fell, String stopReason,
                         List<Probe> probes, List<SearchPoint> points, int remeasured) {
        /** The peak's throughput: its confirmation when there is one, else its pooled samples. */
        public SampleSummary peakThroughput() {
            return peak.confirmation() != null ? peak.confirmation() : peak.summary();
        }

        /** The knee's throughput: the peak's when the knee is the peak. */
        public SampleSummary kneeThroughput() {
            return knee == peak ? peakThroughput() : knee.summary();
        }

        /**
         * True when the peak's confirmation disagrees with the probes that chose it ({@link #disagree}): the
         * system changed during the search, and neither peak nor knee can be trusted.
         */
        public boolean drifted() {
            return peak.confirmation() != null && disagree(peak.confirmation(), peak.summary());
        }
        /**
         * True when the curve rises again past the plateau the knee was read off: the peak's confirmed interval lies
         * wholly above the fitted plateau, by at least the practical difference (a second regime at large F, e.g. a
         * broker batching more; the knee is where the first plateau is reached).
         */
        public boolean risesPastPlateau() {
            return fit != null && fit.plateau() < peakThroughput().medianInterval().lower()
                    && peakThroughput().median() >= (1 + PRACTICAL_DIFFERENCE) * fit.plateau();
        }

        /** A6's figure: the mean of the narrowing stage's final bounds. */
        public long a6IntervalMean() {
            return (lo + hi) / 2;
        }
    }

    private final Measure measure;
    private final Consumer<Probe> progress;
    private final int remeasure;
    private final int maxProbes;
    private final NavigableMap<Long, SearchPoint> points = new TreeMap<>();
    private final List<Probe> order = new ArrayList<>();
    private int remeasured;

    /**
     * @param remeasure how many times at most two overlapping F are measured again before a tie
     * @param maxProbes the most probes the whole search may take
     */
    public FSearch(Measure measure, Consumer<Probe> progress, int remeasure, int maxProbes) {
        if (remeasure < 0 || maxProbes < 1) {
            throw new IllegalArgumentException("remeasure >= 0 and maxProbes >= 1 required");
        }
        this.measure = measure;
        this.progress = progress;
        this.remeasure = remeasure;
        this.maxProbes = maxProbes;
    }

    /** The algorithm in words, with its parameters, for summary.json's search.method. */
    public String method(int maxExponent) {
        return String.format(Locale.ROOT, "steps F = 10^e, e = 0..%d, until an F's 95%% median interval lies "
                + "entirely below the best's (a fall); golden-section search for the maximum on log F over "
                + "[10^(b-1), 10^min(b+1, fall)] around the best step b until the interval is under 1%% of its "
                + "mean (A6) or its two interior F cannot be told apart; peak = the measured F of highest median, "
                + "measured afresh 1 + remeasure times for its interval (no winner's curse); "
                + "knee = where a saturation curve X(F) = P*F/(F^k + F0^k)^(1/k), fitted by least absolute deviations on log X "
                + "to every point not past the fall, reaches " + Math.round(100 * (1 - KNEE_MARGIN)) + "%% of its "
                + "plateau P, after probing the shoulder at F0/2, F0, 2*F0, 4*F0 (up to twice each) in %d rounds, "
                + "refitted after each, and measured there; with no usable fit (under 3 points, or half the points over "
                + Math.round(KneeFit.MAX_FIT_ERROR_PERCENT) + "%% from the curve) the smallest measured F whose median lies within "
                + "the peak's interval and within " + Math.round(100 * KNEE_MARGIN) + "%% of its median;"
                + " F whose intervals overlap are "
                + "measured again (samples pooled) up to %d times before a comparison counts as a tie, and medians "
                + "within 5%% of each other are always a tie; at most %d "
                + "probes; intervals: order statistics, binomial, 95%%, widened for lag-1 autocorrelation",
                maxExponent, KneeFit.ROUNDS, remeasure, maxProbes);
    }

    /** Two measurements disagree: their intervals apart and their medians at least the practical difference apart. */
    public static boolean disagree(SampleSummary a, SampleSummary b) {
        return !a.medianInterval().overlaps(b.medianInterval())
                && Math.abs(a.median() - b.median()) >= PRACTICAL_DIFFERENCE * Math.max(a.median(), b.median());
    }

    private boolean budgetLeft() {
        return order.size() < maxProbes;
    }

    private SearchPoint measureAt(long f, String phase) throws Exception {
        Probe p = measure.at(f, phase);
        order.add(p);
        SearchPoint point = points.computeIfAbsent(f, SearchPoint::new);
        point.add(p);
        progress.accept(p);
        return point;
    }

    /** The point at F, measured once if it was never measured. */
    private SearchPoint point(long f, String phase) throws Exception {
        SearchPoint p = points.get(f);
        return p != null ? p : measureAt(f, phase);
    }

    /**
     * +1 when a is clearly above b, −1 clearly below, 0 a tie: medians within the practical difference,
     * or intervals still overlapping after the bounded re-measurements, or no budget left.
     */
    int compare(SearchPoint a, SearchPoint b) throws Exception {
        for (int round = 0; ; round++) {
            if (Math.abs(a.median() - b.median()) < PRACTICAL_DIFFERENCE * Math.max(a.median(), b.median())) {
                return 0; // too close to matter, whatever more samples would say
            }
            if (!a.interval().overlaps(b.interval())) {
                return Double.compare(a.median(), b.median());
            }
            if (round >= remeasure || order.size() + 2 > maxProbes) {
                return 0;
            }
            measureAt(a.inFlight(), "again");
            measureAt(b.inFlight(), "again");
            remeasured += 2;
        }
    }

    /**
     * @param maxExponent the largest exponent stepped to (F = 10^maxExponent); if throughput never
     *                    falls the result says so
     */
    public Result run(int maxExponent) throws Exception {
        // 1. steps
        SearchPoint best = null;
        int bestExponent = 0;
        int last = maxExponent;
        boolean fell = false;
        for (int e = 0; e <= maxExponent && budgetLeft(); e++) {
            SearchPoint p = point(pow10(e), "step");
            if (best == null) {
                best = p;
                continue;
            }
            int c = compare(p, best);
            if (c < 0) {
                last = e;
                fell = true;
                break;
            }
            if (c > 0 || p.median() > best.median()) {
                best = p;
                bestExponent = e;
            }
            last = e;
        }
        // 2. golden-section narrowing on log F
        double a = Math.max(0, bestExponent - 1);
        double b = Math.min(bestExponent + 1, last);
        String stop = null;
        if (b <= a) {
            stop = "no interval to narrow: the steps ended at the best F";
        }
        double c1 = b - GOLDEN * (b - a);
        double c2 = a + GOLDEN * (b - a);
        while (stop == null) {
            if (narrowEnough(a, b)) {
                stop = "the interval is under 1% of its mean (A6)";
                break;
            }
            if (f(c1) == f(c2)) {
                stop = "the interval is down to neighbouring whole F";
                break;
            }
            if (order.size() + 2 > maxProbes) {
                stop = "the probe budget (" + maxProbes + ") ran out";
                break;
            }
            SearchPoint p1 = point(f(c1), "golden");
            SearchPoint p2 = point(f(c2), "golden");
            int c = compare(p1, p2);
            if (c == 0) {
                stop = String.format(Locale.ROOT, "F = %d and F = %d were not told apart (medians within %.0f%%, or "
                        + "intervals overlapping after %d re-measurements): the curve is flat within the noise there",
                        p1.inFlight(), p2.inFlight(), 100 * PRACTICAL_DIFFERENCE, remeasure);
                break;
            }
            if (c > 0) { // the maximum lies in [a, c2]
                b = c2;
                c2 = c1;
                c1 = b - GOLDEN * (b - a);
            } else { // in [c1, b]
                a = c1;
                c1 = c2;
                c2 = a + GOLDEN * (b - a);
            }
        }
        // 3. confirm the peak with fresh probes: the highest of many noisy medians is biased upwards (the
        //    winner's curse), so the bar for the knee comes from samples that did not take part in choosing it
        SearchPoint peak = peak();
        for (int i = 0; i <= remeasure && budgetLeft(); i++) {
            Probe p = measure.at(peak.inFlight(), "confirm");
            order.add(p);
            peak.confirm(p);
            progress.accept(p);
        }
        SampleSummary bar = peak.confirmation() != null ? peak.confirmation() : peak.summary();
        double floor = Math.max(bar.medianInterval().lower(), (1 - KNEE_MARGIN) * bar.median());
        // 4. the knee, read off a curve fitted to every point (the shoulder probed first), or the measured rule
        KneeFit.Knee k = new KneeFit(points, this::measureAt, () -> maxProbes - order.size()).find(peak, floor);
        return new Result(peak, k.point(), k.fit(), k.rule(), floor, f(a), f(b), last, fell, stop, List.copyOf(order),
                List.copyOf(points.values()), remeasured);
    }

    private SearchPoint peak() {
        return points.values().stream().max(Comparator.comparingDouble(SearchPoint::median)).orElseThrow();
    }

    private static final double GOLDEN = (Math.sqrt(5) - 1) / 2;

    /** A6's stop: the interval is under 1 % of its mean (or down to neighbouring integers). */
    private static boolean narrowEnough(double a, double b) {
        long lo = f(a);
        long hi = f(b);
        return hi - lo <= 1 || (hi - lo) < 0.01 * (lo + hi) / 2.0;
    }

    private static long f(double log10) {
        return Math.max(1, Math.round(Math.pow(10, log10)));
    }

    static long pow10(int e) {
        long v = 1;
        for (int i = 0; i < e; i++) {
            v *= 10;
        }
        return v;
    }
}
