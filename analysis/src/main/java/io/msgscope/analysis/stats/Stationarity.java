package io.msgscope.analysis.stats;

import java.util.Arrays;
import java.util.Locale;

/**
 * Are samples taken one after another drawn from one steady state (B4, issue 17)? Two checks, each
 * needing a statistically clear and a practically large difference ({@link #MIN_SHIFT} of the
 * median) before it speaks, so that a long run does not warn about a 0.1 % drift:
 * <ul>
 *   <li><b>change point</b> (Pettitt's rank test): with r_i the ranks, U_t = 2·Σ_{i≤t} r_i − t(n+1);
 *       the most likely change is after the sample t* maximising |U_t|, with p ≈ 2·exp(−6K²·(m/n)/(n³+n²)),
 *       K = |U_t*|, m the effective sample size of the noise around the two sides' medians (issue 27: correlated
 *       samples inflate U's variance by n/m). It flags when p &lt; {@link #ALPHA} and the medians before and after differ by at
 *       least {@link #MIN_SHIFT}.</li>
 *   <li><b>split halves</b>: the medians of the first and the second half with their
 *       {@link MedianInterval}s (for the effective sample size); they disagree when the intervals
 *       do not overlap and the medians differ by at least {@link #MIN_SHIFT}.</li>
 *   <li><b>cold start</b>: the same comparison between the first tenth of the samples and the rest.
 *       Pettitt's test is weak near the ends (a client still warming up for the first 5 % of the
 *       samples gives p ≈ 0.01 at best) and the halves dilute it; this check is aimed at exactly that.
 *       It needs a tenth of at least {@link #MIN_SAMPLES} samples (n ≥ 100).</li>
 * </ul>
 * Fewer than {@link #MIN_SAMPLES} samples are not checked ({@code checked} false).
 *
 * @param checked          whether there were enough samples to check
 * @param steady           no check flagged (true when not checked)
 * @param changePoint      the change-point check flagged
 * @param changeIndex      t*: samples [0, t*) before the change, [t*, n) after (0 when not checked)
 * @param pettittP         the approximate p-value of the change point, for the effective sample size
 * @param pettittEffectiveN that effective sample size: n(1 − ρ)/(1 + ρ), ρ the lag-1 autocorrelation of the ranks of
 *                         the samples taken relative to the median of their side of t* (n when ρ ≤ 0)
 * @param medianBefore     lower median of the samples before t*
 * @param medianAfter      lower median of the samples from t* on
 * @param halvesDisagree   the split-halves check flagged
 * @param firstHalf        the median interval of samples [0, n/2)
 * @param secondHalf       the median interval of samples [n/2, n)
 * @param firstHalfMedian  lower median of the first half
 * @param secondHalfMedian lower median of the second half
 * @param coldStart        the first tenth disagrees with the rest
 * @param firstTenthMedian lower median of samples [0, n/10)
 * @param firstTenth       its median interval
 * @param restMedian       lower median of samples [n/10, n)
 * @param rest             its median interval
 */
public record Stationarity(boolean checked, boolean steady, boolean changePoint, int changeIndex, double pettittP,
        double pettittEffectiveN,
        double medianBefore, double medianAfter, boolean halvesDisagree, MedianInterval firstHalf,
        MedianInterval secondHalf, double firstHalfMedian, double secondHalfMedian, boolean coldStart,
        double firstTenthMedian, MedianInterval firstTenth, double restMedian, MedianInterval rest) {

    /** Significance of the change point. */
    public static final double ALPHA = 0.01;
    /** The smallest shift, relative to the median of all samples, worth a warning. */
    public static final double MIN_SHIFT = 0.05;
    /** Below this many samples nothing is checked. */
    public static final int MIN_SAMPLES = 10;

    /**
     * @param inOrder    the samples in the order taken
     * @param effectiveFraction effective sample size over n (from the autocorrelation), in (0, 1]
     */
    public static Stationarity of(double[] inOrder, double effectiveFraction) {
        int n = inOrder.length;
        if (n < MIN_SAMPLES) {
            return new Stationarity(false, true, false, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, false, null, null,
                    Double.NaN, Double.NaN, false, Double.NaN, null, Double.NaN, null);
        }
        double overall = lowerMedian(inOrder, 0, n);
        double threshold = MIN_SHIFT * Math.abs(overall);

        double[] r = Ranks.of(inOrder);
        double sum = 0;
        double k = -1;
        int tStar = 1;
        for (int t = 1; t < n; t++) {
            sum += r[t - 1];
            double u = Math.abs(2 * sum - (double) t * (n + 1));
            if (u > k) {
                k = u;
                tStar = t;
            }
        }
        double before = lowerMedian(inOrder, 0, tStar);
        double after = lowerMedian(inOrder, tStar, n);
        // issue 27: U_t sums ranks; correlated samples inflate its variance by n / n_eff (the AR(1) factor
        // (1 + ρ)/(1 − ρ)), so K² counts for n_eff / n of what it would for independent samples. ρ is that of the
        // noise: the ranks' lag-1 autocorrelation once each side of t* is taken relative to its own median (a step
        // in the level would otherwise show as correlation and hide itself)
        double[] resid = new double[n];
        for (int i = 0; i < n; i++) {
            resid[i] = inOrder[i] - (i < tStar ? before : after);
        }
        double pettittN = SampleSummary.effectiveSize(n, Ranks.lag1(resid));
        double p = pettittP(k, n, pettittN / n);
        boolean change = p < ALPHA && Math.abs(after - before) >= threshold;

        Split h = Split.at(inOrder, n / 2, effectiveFraction, threshold);
        Split c = n / 10 >= MIN_SAMPLES ? Split.at(inOrder, n / 10, effectiveFraction, threshold)
                : new Split(null, null, Double.NaN, Double.NaN, false);
        return new Stationarity(true, !change && !h.disagree && !c.disagree, change, tStar, p, pettittN, before, after,
                h.disagree, h.first, h.second, h.firstMedian, h.secondMedian, c.disagree, c.firstMedian, c.first,
                c.secondMedian, c.second);
    }

    /** Samples [0, at) against [at, n): medians, intervals, and whether they disagree. */
    private record Split(MedianInterval first, MedianInterval second, double firstMedian, double secondMedian,
                         boolean disagree) {
        static Split at(double[] inOrder, int at, double effectiveFraction, double threshold) {
            double[] a = Arrays.copyOfRange(inOrder, 0, at);
            double[] b = Arrays.copyOfRange(inOrder, at, inOrder.length);
            Arrays.sort(a);
            Arrays.sort(b);
            MedianInterval ia = MedianInterval.ofSorted(a, a.length, MedianInterval.LEVEL, a.length * effectiveFraction);
            MedianInterval ib = MedianInterval.ofSorted(b, b.length, MedianInterval.LEVEL, b.length * effectiveFraction);
            double ma = a[(a.length - 1) / 2];
            double mb = b[(b.length - 1) / 2];
            return new Split(ia, ib, ma, mb, !ia.overlaps(ib) && Math.abs(mb - ma) >= threshold);
        }
    }

    /** One line for the console and the summary's warnings; empty when steady. */
    public String warning(String unit) {
        if (steady) {
            return "";
        }
        StringBuilder sb = new StringBuilder("the samples are not steady:");
        if (changePoint) {
            sb.append(String.format(Locale.ROOT, " a change point from sample %d on (median %.0f → %.0f %s, %+.1f %%, "
                    + "Pettitt p = %.2g)", changeIndex, medianBefore, medianAfter, unit,
                    100 * (medianAfter - medianBefore) / medianBefore, pettittP));
        }
        if (halvesDisagree) {
            sb.append(changePoint ? ";" : "").append(String.format(Locale.ROOT,
                    " the halves disagree (median %.0f [%.0f, %.0f] vs %.0f [%.0f, %.0f] %s)", firstHalfMedian,
                    firstHalf.lower(), firstHalf.upper(), secondHalfMedian, secondHalf.lower(), secondHalf.upper(),
                    unit));
        }
        if (coldStart) {
            sb.append(changePoint || halvesDisagree ? ";" : "").append(String.format(Locale.ROOT,
                    " the first tenth disagrees with the rest (median %.0f [%.0f, %.0f] vs %.0f [%.0f, %.0f] %s: a "
                    + "cold start)", firstTenthMedian, firstTenth.lower(), firstTenth.upper(), restMedian, rest.lower(),
                    rest.upper(), unit));
        }
        return sb.append("; a longer warm-up (or more samples) may help").toString();
    }

    /**
     * Pettitt's approximate p-value for the largest |U_t| = {@code k} over {@code n} samples, with the effective sample
     * size n_eff = {@code effectiveFraction}·n: p ≈ 2·exp(−6K²·(n_eff/n)/(n³ + n²)), at most 1. With independent
     * samples (fraction 1) this is Pettitt's own approximation.
     */
    public static double pettittP(double k, int n, double effectiveFraction) {
        double nn = n;
        double f = effectiveFraction > 0 && effectiveFraction <= 1 ? effectiveFraction : 1;
        return Math.min(1, 2 * Math.exp(-6 * k * k * f / (nn * nn * nn + nn * nn)));
    }

    static double lowerMedian(double[] values, int from, int to) {
        double[] c = Arrays.copyOfRange(values, from, to);
        Arrays.sort(c);
        return c[(c.length - 1) / 2];
    }
}
