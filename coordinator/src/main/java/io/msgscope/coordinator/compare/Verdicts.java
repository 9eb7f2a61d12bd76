package io.msgscope.coordinator.compare;

import io.msgscope.coordinator.compare.FigureVerdict.Verdict;
import org.apache.commons.math3.stat.descriptive.rank.Median;
import org.apache.commons.math3.stat.inference.MannWhitneyUTest;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Verdicts of a candidate group of runs against a baseline group (issue 34; docs/statistics.md "Comparisons with a
 * verdict"). For each {@link Figure}: the change (candidate / baseline − 1), its 95 % interval from a two-stage
 * bootstrap (runs drawn with replacement, then each drawn run's samples with replacement: run-to-run variation counts
 * when there are repeats), and the Mann–Whitney U test (Commons Math) between the two groups' samples. The change is
 * significant when the interval excludes 0 and p < 0.05; fewer than {@link #MIN_SAMPLES} samples on a side is "too
 * few repeats to tell".
 */
public final class Verdicts {
    /** Samples a side needs for a verdict. */
    public static final int MIN_SAMPLES = 5;
    /** Bootstrap resamples. */
    public static final int RESAMPLES = 2000;
    /** The rank test's level. */
    public static final double ALPHA = 0.05;
    /** The bootstrap's seed: the same folders give the same verdict. */
    static final long SEED = 34;

    private Verdicts() {
    }

    /** Every figure's verdict, in {@link Figure}'s order. */
    public static List<FigureVerdict> of(List<RunData> baseline, List<RunData> candidate) {
        List<FigureVerdict> out = new ArrayList<>();
        for (Figure f : Figure.values()) {
            out.add(f.isLatency() ? latency(f, baseline, candidate) : throughput(baseline, candidate));
        }
        return out;
    }

    /** Throughput: the median of the pooled samples of each group. */
    static FigureVerdict throughput(List<RunData> baseline, List<RunData> candidate) {
        double[][] b = baseline.stream().map(RunData::throughput).toArray(double[][]::new);
        double[][] c = candidate.stream().map(RunData::throughput).toArray(double[][]::new);
        double[] pb = concat(b);
        double[] pc = concat(c);
        Median median = new Median();
        double vb = pb.length == 0 ? Double.NaN : median.evaluate(pb);
        double vc = pc.length == 0 ? Double.NaN : median.evaluate(pc);
        SplittableRandom rnd = new SplittableRandom(SEED);
        return verdict(Figure.THROUGHPUT, vb, vc, pb, pc, () -> {
            double sb = median.evaluate(resample(b, rnd));
            double sc = median.evaluate(resample(c, rnd));
            return sc / sb - 1;
        });
    }

    /** A latency figure: the percentile (or mean) of every interval of a group merged, in µs. */
    static FigureVerdict latency(Figure f, List<RunData> baseline, List<RunData> candidate) {
        Side b = new Side(baseline);
        Side c = new Side(candidate);
        double vb = b.figure(f, b.all()) / 1e3;
        double vc = c.figure(f, c.all()) / 1e3;
        SplittableRandom rnd = new SplittableRandom(SEED);
        return verdict(f, vb, vc, b.perInterval(f), c.perInterval(f),
                () -> c.figure(f, c.draw(rnd)) / b.figure(f, b.draw(rnd)) - 1);
    }

    /** One group's latency intervals, flattened, with where each run's begin. */
    private static final class Side {
        final List<IntervalDist> all = new ArrayList<>();
        final int[] first;
        final int[] count;
        final long[] grid;

        Side(List<RunData> runs) {
            first = new int[runs.size()];
            count = new int[runs.size()];
            for (int r = 0; r < runs.size(); r++) {
                first[r] = all.size();
                count[r] = runs.get(r).latency().size();
                all.addAll(runs.get(r).latency());
            }
            grid = IntervalDist.grid(all);
        }

        int[] all() {
            int[] idx = new int[all.size()];
            Arrays.setAll(idx, i -> i);
            return idx;
        }

        /** Runs drawn with replacement, then each drawn run's intervals with replacement. */
        int[] draw(SplittableRandom rnd) {
            List<Integer> picked = new ArrayList<>();
            for (int k = 0; k < first.length; k++) {
                int r = rnd.nextInt(first.length);
                for (int j = 0; j < count[r]; j++) {
                    picked.add(first[r] + rnd.nextInt(count[r]));
                }
            }
            return picked.stream().mapToInt(Integer::intValue).toArray();
        }

        double figure(Figure f, int[] picked) {
            return f == Figure.MEAN ? IntervalDist.mean(all, picked) : IntervalDist.quantile(all, picked, f.quantile(), grid);
        }

        /** Each interval's own figure [µs], intervals without a message left out: the rank test's samples. */
        double[] perInterval(Figure f) {
            List<Double> v = new ArrayList<>();
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).total() > 0) {
                    v.add(figure(f, new int[] {i}) / 1e3);
                }
            }
            return v.stream().mapToDouble(Double::doubleValue).toArray();
        }
    }

    /** One bootstrap draw of the change. */
    private interface Draw {
        double change();
    }

    private static FigureVerdict verdict(Figure f, double vb, double vc, double[] sb, double[] sc, Draw draw) {
        Double b = Double.isNaN(vb) ? null : vb;
        Double c = Double.isNaN(vc) ? null : vc;
        Double change = b == null || c == null || b == 0 ? null : c / b - 1;
        if (sb.length < MIN_SAMPLES || sc.length < MIN_SAMPLES) {
            return new FigureVerdict(f, b, c, change, null, null, null, sb.length, sc.length, Verdict.TOO_FEW);
        }
        if (change == null) {
            return new FigureVerdict(f, b, c, null, null, null, null, sb.length, sc.length, Verdict.UNKNOWN);
        }
        double[] ci = interval(draw);
        double p = new MannWhitneyUTest().mannWhitneyUTest(sb, sc);
        Verdict v;
        if (ci == null) {
            v = Verdict.UNKNOWN;
        } else if ((ci[0] > 0 || ci[1] < 0) && p < ALPHA) {
            v = (change > 0) == f.higherIsBetter() ? Verdict.BETTER : Verdict.WORSE;
        } else {
            v = Verdict.SAME;
        }
        return new FigureVerdict(f, b, c, change, ci == null ? null : ci[0], ci == null ? null : ci[1], p,
                sb.length, sc.length, v);
    }

    /**
     * The 95 % percentile interval of {@link #RESAMPLES} draws: the sorted draws' values at ranks ⌊0.025 B⌋ and
     * ⌈0.975 B⌉ − 1 (0-based); draws whose baseline is 0 or unknown are left out; null when fewer than half remain.
     */
    static double[] interval(Draw draw) {
        double[] d = new double[RESAMPLES];
        int n = 0;
        for (int i = 0; i < RESAMPLES; i++) {
            double x = draw.change();
            if (Double.isFinite(x)) {
                d[n++] = x;
            }
        }
        if (2 * n < RESAMPLES) {
            return null;
        }
        return percentileInterval(Arrays.copyOf(d, n));
    }

    /** The values at ranks ⌊0.025 n⌋ and ⌈0.975 n⌉ − 1 of the sorted draws. */
    static double[] percentileInterval(double[] draws) {
        double[] s = draws.clone();
        Arrays.sort(s);
        int n = s.length;
        return new double[] {s[(int) Math.floor(0.025 * n)], s[(int) Math.ceil(0.975 * n) - 1]};
    }

    /** Runs drawn with replacement, then each drawn run's samples with replacement, pooled. */
    static double[] resample(double[][] runs, SplittableRandom rnd) {
        List<Double> out = new ArrayList<>();
        for (int k = 0; k < runs.length; k++) {
            double[] r = runs[rnd.nextInt(runs.length)];
            for (int j = 0; j < r.length; j++) {
                out.add(r[rnd.nextInt(r.length)]);
            }
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    static double[] concat(double[][] runs) {
        return Arrays.stream(runs).flatMapToDouble(Arrays::stream).toArray();
    }
}
