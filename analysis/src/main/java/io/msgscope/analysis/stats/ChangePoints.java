package io.msgscope.analysis.stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Where a series of runs shifted (issue 34 item 5): binary segmentation with a rank statistic and a permutation test,
 * the nonparametric family E-divisive (Matteson and James 2014; Hunter/Apache Otava) belongs to.
 *
 * <p>For a segment of n values split after its {@code t}-th value (each side at least {@link #MIN_SIZE} values), the
 * statistic is the Mann–Whitney count of the first t values standardised (Pettitt's test):
 * <pre>
 *   U(t) = R(t) − t(t+1)/2          R(t): the sum of the first t values' midranks within the segment
 *   z(t) = |U(t) − t·m/2| / sqrt( t·m/12 · ((n+1) − Σ(k³−k)/(n(n−1))) )     m = n − t, k: the size of each tie
 * </pre>
 * and the candidate is the split with the largest z. Its significance is a permutation test: the segment's ranks are
 * shuffled {@code permutations} times (a fixed seed: one series, one answer) and p = (1 + shuffles whose largest z
 * reaches the observed one) / (1 + shuffles), which accounts for having picked the best of all splits. A significant
 * split is kept and both sides are searched again, until no side has one. Ranks make it blind to how far an outlier
 * lies (one stalled run does not make a change point) and to the scale (a 10 % shift weighs the same at 1 µs as at
 * 1 s). E-divisive's own energy statistic (with the same permutation test) was this class's first version: on the
 * same 30 planted series (a 10 % shift at run 120 of 200 under 15 % noise) it found 17 within 5 runs of 120, this
 * one 19, in a fraction of the time. ChangePointsTest measures the rates; docs/commands.md gives them.
 */
public final class ChangePoints {
    /** The fewest values either side of a change point may hold. */
    public static final int MIN_SIZE = 5;
    /** The default significance a split must reach. */
    public static final double DEFAULT_ALPHA = 0.01;
    /** Shuffles per test: p resolves to 1/500, five steps under {@link #DEFAULT_ALPHA}. */
    public static final int DEFAULT_PERMUTATIONS = 499;
    private static final long SEED = 0x6d73_6373_6f70_6531L;

    /**
     * A change point: the series shifted between value {@code index − 1} and value {@code index} (0-based), i.e.
     * {@code index} is the first value of the new level.
     *
     * @param index        the first value after the shift
     * @param z            the standardised Mann–Whitney statistic of the split in the segment it was found in
     * @param p            its permutation p-value
     * @param medianBefore the median of the values from the previous change point (or the start) up to it
     * @param medianAfter  the median from it up to the next change point (or the end)
     */
    public record ChangePoint(int index, double z, double p, double medianBefore, double medianAfter) {
        /** The shift as a fraction of the level before (0.1 = 10 % up); NaN when that level is 0. */
        public double relativeChange() {
            return medianBefore == 0 ? Double.NaN : medianAfter / medianBefore - 1;
        }
    }

    private ChangePoints() {
    }

    /** The change points of {@code values} at {@link #DEFAULT_ALPHA} with {@link #DEFAULT_PERMUTATIONS} shuffles. */
    public static List<ChangePoint> find(double[] values) {
        return find(values, DEFAULT_ALPHA, DEFAULT_PERMUTATIONS, SEED);
    }

    /** As {@link #find(double[])} at significance {@code alpha}. */
    public static List<ChangePoint> find(double[] values, double alpha) {
        return find(values, alpha, DEFAULT_PERMUTATIONS, SEED);
    }

    /**
     * The change points of {@code values} (oldest first; finite numbers), in order of their index.
     *
     * @param alpha        the p-value a split must be at or under, in (0, 1)
     * @param permutations shuffles per test
     * @param seed         the shuffles' seed
     */
    public static List<ChangePoint> find(double[] values, double alpha, int permutations, long seed) {
        if (!(alpha > 0 && alpha < 1)) {
            throw new IllegalArgumentException("alpha must be in (0, 1), got " + alpha);
        }
        if (permutations < 1) {
            throw new IllegalArgumentException("permutations must be >= 1, got " + permutations);
        }
        for (double v : values) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("a series with a value that is not a finite number: " + v);
            }
        }
        SplittableRandom random = new SplittableRandom(seed);
        List<double[]> found = new ArrayList<>(); // {index, z, p}
        List<int[]> todo = new ArrayList<>();
        todo.add(new int[]{0, values.length});
        while (!todo.isEmpty()) {
            int[] seg = todo.remove(todo.size() - 1);
            double[] part = Arrays.copyOfRange(values, seg[0], seg[1]);
            double[] ranks = Ranks.of(part);
            double ties = tieTerm(part);
            Split best = bestSplit(ranks, ties);
            if (best == null) {
                continue;
            }
            int reached = 0;
            for (int r = 0; r < permutations; r++) {
                shuffle(ranks, random);
                Split s = bestSplit(ranks, ties);
                if (s != null && s.z() >= best.z()) {
                    reached++;
                }
            }
            double p = (1.0 + reached) / (1.0 + permutations);
            if (p <= alpha) {
                int at = seg[0] + best.t();
                found.add(new double[]{at, best.z(), p});
                todo.add(new int[]{seg[0], at});
                todo.add(new int[]{at, seg[1]});
            }
        }
        found.sort((a, b) -> Double.compare(a[0], b[0]));
        List<ChangePoint> out = new ArrayList<>();
        for (int k = 0; k < found.size(); k++) {
            int at = (int) found.get(k)[0];
            int from = k == 0 ? 0 : (int) found.get(k - 1)[0];
            int to = k == found.size() - 1 ? values.length : (int) found.get(k + 1)[0];
            out.add(new ChangePoint(at, found.get(k)[1], found.get(k)[2], median(values, from, at),
                    median(values, at, to)));
        }
        return out;
    }

    /**
     * The split with the largest z over {@code ranks} (the segment's midranks, in its order), each side at least
     * {@link #MIN_SIZE} values; null when the segment is too short or all its values are equal.
     */
    static Split bestSplit(double[] ranks, double ties) {
        int n = ranks.length;
        Split best = null;
        double rankSum = 0;
        for (int t = 1; t <= n - MIN_SIZE; t++) {
            rankSum += ranks[t - 1];
            if (t >= MIN_SIZE) {
                double z = z(rankSum, n, t, ties);
                if (!Double.isNaN(z) && (best == null || z > best.z())) {
                    best = new Split(t, z);
                }
            }
        }
        return best;
    }

    /** z of the split after value {@code t} of {@code n} whose first t ranks sum to {@code rankSum}; NaN: no spread. */
    static double z(double rankSum, int n, int t, double ties) {
        double m = n - t;
        double u = rankSum - t * (t + 1) / 2.0;
        double variance = t * m / 12.0 * ((n + 1) - ties);
        return variance <= 0 ? Double.NaN : Math.abs(u - t * m / 2) / Math.sqrt(variance);
    }

    /** Σ(k³ − k) / (n(n−1)) over the sizes k of the groups of equal values: the variance's correction for ties. */
    static double tieTerm(double[] values) {
        int n = values.length;
        if (n < 2) {
            return 0;
        }
        double[] s = values.clone();
        Arrays.sort(s);
        double sum = 0;
        for (int i = 0; i < n; ) {
            int j = i;
            while (j < n && s[j] == s[i]) {
                j++;
            }
            double k = j - i;
            sum += k * k * k - k;
            i = j;
        }
        return sum / ((double) n * (n - 1));
    }

    private static void shuffle(double[] a, SplittableRandom random) {
        for (int i = a.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            double t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    /** The median of {@code values[from..to)}: the mean of the middle two of an even count. */
    static double median(double[] values, int from, int to) {
        double[] s = Arrays.copyOfRange(values, from, to);
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** A candidate split: the first {@code t} values against the rest. */
    record Split(int t, double z) {
    }
}
