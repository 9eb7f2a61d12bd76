package io.msgscope.core.clock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The offset between two clocks through a run (issue 33), fitted from probes: each {@link Sample} is one min-RTT
 * probe (time on the prober's clock, the measured offset, the round trip it took). The fit is robust and piecewise
 * linear: first a rough drift from the median slope over pairs a few samples apart (a step spoils only the few pairs
 * that straddle it); then steps (an NTP correction) where the median of the next few detrended samples differs from
 * the median of the previous few by more than {@code max(minStepNs, 4σ)}, σ the robust noise of the detrended series;
 * then a Theil–Sen fit: one drift, the median of the pairwise slopes within each segment pooled (a step moves the
 * offset, not the clock's rate), and per segment between steps its median intercept. Outliers — a
 * delayed probe, whose offset can be off by up to half its round trip — move neither medians nor slopes.
 *
 * <p>The error of {@link #offsetAt} is half the best round trip (the most a min-RTT probe can be wrong by on a
 * symmetric link) plus the segment's residual (3 × 1.4826 × the median absolute residual), or the segment's envelope
 * where that is wider: the largest distance of one of its samples from the line plus half that sample's own round
 * trip. Each sample lies within half its round trip of the truth, so where the truth is a line the fitted line stays
 * within the envelope between them, however few samples there are (with three, the robust residual can be 0). A link
 * whose two directions differ in delay shifts every probe alike, which no fit can see.
 */
public final class OffsetFit {
    /** Samples either side of a candidate step whose medians are compared. */
    static final int STEP_WINDOW = 3;
    /** A step is this many robust standard deviations of the probe noise, at least. */
    static final double STEP_SIGMAS = 4;

    /** One probe: at {@code tNs} (prober's clock), offset {@code offsetNs}, round trip {@code rttNs}. */
    public record Sample(long tNs, long offsetNs, long rttNs) {
    }

    /**
     * A line from {@code fromNs} to {@code toNs}: offset {@code atFromNs + slope·(t − fromNs)}; {@code envelopeNs} the
     * largest distance of one of its samples from the line plus half that sample's own round trip.
     */
    public record Segment(long fromNs, long toNs, double atFromNs, double slope, double residualNs, double envelopeNs,
                          int samples) {
        public double at(long tNs) {
            return atFromNs + slope * (tNs - fromNs);
        }
    }

    /** A step at {@code atNs} (midway between the probes either side) of {@code sizeNs} (after − before). */
    public record Step(long atNs, double sizeNs) {
    }

    private final List<Segment> segments;
    private final List<Step> steps;
    private final long bestRttNs;
    private final int samples;

    private OffsetFit(List<Segment> segments, List<Step> steps, long bestRttNs, int samples) {
        this.segments = List.copyOf(segments);
        this.steps = List.copyOf(steps);
        this.bestRttNs = bestRttNs;
        this.samples = samples;
    }

    /** Fits {@code input} (any order, at least one sample); steps smaller than {@code minStepNs} are not looked for. */
    public static OffsetFit of(List<Sample> input, long minStepNs) {
        if (input.isEmpty()) {
            throw new IllegalArgumentException("no clock samples to fit");
        }
        Sample[] s = input.toArray(new Sample[0]);
        Arrays.sort(s, Comparator.comparingLong(Sample::tNs));
        int n = s.length;
        long best = Long.MAX_VALUE;
        for (Sample x : s) {
            best = Math.min(best, x.rttNs());
        }
        double drift = roughDrift(s);
        double[] r = new double[n];
        for (int i = 0; i < n; i++) {
            r[i] = s[i].offsetNs() - drift * (s[i].tNs() - s[0].tNs());
        }
        List<Integer> cuts = stepIndices(r, Math.max(minStepNs, STEP_SIGMAS * Math.max(noise(r), wander(r))));
        List<Segment> segs = new ArrayList<>();
        double pooled = pooledSlope(s, cuts, drift);
        int from = 0;
        for (int k = 0; k <= cuts.size(); k++) {
            int to = k < cuts.size() ? cuts.get(k) : n;
            segs.add(theilSen(s, from, to, pooled));
            from = to;
        }
        List<Step> steps = new ArrayList<>();
        for (int k = 0; k < cuts.size(); k++) {
            int i = cuts.get(k);
            long at = s[i - 1].tNs() + (s[i].tNs() - s[i - 1].tNs()) / 2;
            steps.add(new Step(at, segs.get(k + 1).at(at) - segs.get(k).at(at)));
        }
        return new OffsetFit(segs, steps, best, n);
    }

    /**
     * The min-RTT filter: of the samples in each interval of {@code intervalNs} (counted from the first sample), the
     * one with the smallest round trip — its offset is the least spoilt by a probe delayed one way — in time order.
     */
    public static List<Sample> minRttPerInterval(List<Sample> input, long intervalNs) {
        Sample[] s = input.toArray(new Sample[0]);
        Arrays.sort(s, Comparator.comparingLong(Sample::tNs));
        List<Sample> out = new ArrayList<>();
        long bucket = Long.MIN_VALUE;
        for (Sample x : s) {
            long b = (x.tNs() - s[0].tNs()) / intervalNs;
            if (b != bucket) {
                out.add(x);
                bucket = b;
            } else if (x.rttNs() < out.get(out.size() - 1).rttNs()) {
                out.set(out.size() - 1, x);
            }
        }
        return out;
    }

    /** The median slope over pairs {@code lag} samples apart (lag up to 6): robust to outliers and to a few steps. */
    static double roughDrift(Sample[] s) {
        int n = s.length;
        int lag = Math.max(1, Math.min(6, n / 4));
        List<Double> slopes = new ArrayList<>();
        for (int i = 0; i + lag < n; i++) {
            long dt = s[i + lag].tNs() - s[i].tNs();
            if (dt > 0) {
                slopes.add((double) (s[i + lag].offsetNs() - s[i].offsetNs()) / dt);
            }
        }
        return slopes.isEmpty() ? 0 : median(slopes.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** The robust standard deviation of one sample's noise, from the median absolute successive difference. */
    static double noise(double[] r) {
        if (r.length < 2) {
            return 0;
        }
        double[] d = new double[r.length - 1];
        for (int i = 0; i + 1 < r.length; i++) {
            d[i] = r[i + 1] - r[i];
        }
        double m = median(d.clone());
        for (int i = 0; i < d.length; i++) {
            d[i] = Math.abs(d[i] - m);
        }
        return 1.4826 * median(d) / Math.sqrt(2);
    }

    /**
     * The robust standard deviation of the statistic a step is looked for by — the median of the next
     * {@link #STEP_WINDOW} samples less that of the previous ones — over the whole series: white probe noise gives
     * about {@link #noise}, but a level that wanders (a loaded box's queueing delays coming and going for seconds)
     * moves such window pairs far more than neighbouring samples, and without it each wander read as a step (7 steps
     * found where one of 2 ms was injected, the other six ±100–390 µs of alternating sign, at load 2–3). A real step
     * moves only the few window pairs that straddle it, which the median absolute deviation leaves out. 0 with too
     * few samples for two windows.
     */
    static double wander(double[] r) {
        int w = STEP_WINDOW;
        if (r.length < 2 * w + 1) {
            return 0;
        }
        double[] j = new double[r.length - 2 * w + 1];
        for (int i = w; i + w <= r.length; i++) {
            j[i - w] = median(Arrays.copyOfRange(r, i, i + w)) - median(Arrays.copyOfRange(r, i - w, i));
        }
        double m = median(j.clone());
        for (int k = 0; k < j.length; k++) {
            j[k] = Math.abs(j[k] - m);
        }
        return 1.4826 * median(j);
    }

    /**
     * Where the detrended series {@code r} steps by more than {@code threshold}: the index of the first sample after
     * each step. With windows of three, a step shows as a run of three neighbouring candidates (the window pairs that
     * hold at most one sample of the other side); the step is at the middle of each run.
     */
    static List<Integer> stepIndices(double[] r, double threshold) {
        int w = STEP_WINDOW;
        List<Integer> cuts = new ArrayList<>();
        int runFrom = -1;
        int runTo = -1;
        for (int i = w; i + w <= r.length; i++) {
            double jump = Math.abs(median(Arrays.copyOfRange(r, i, i + w)) - median(Arrays.copyOfRange(r, i - w, i)));
            if (jump <= threshold) {
                continue;
            }
            if (runFrom >= 0 && i > runTo + 1) {
                cuts.add((runFrom + runTo + 1) / 2);
                runFrom = -1;
            }
            if (runFrom < 0) {
                runFrom = i;
            }
            runTo = i;
        }
        if (runFrom >= 0) {
            cuts.add((runFrom + runTo + 1) / 2);
        }
        return cuts;
    }

    /**
     * Theil–Sen pooled over the segments: the median of the slopes of every pair of samples within one segment (none
     * straddles a step), {@code fallback} when no segment has two samples. One drift for the run — a step moves the
     * offset, not the clock's rate — fitted from all its samples rather than from each short segment alone.
     */
    static double pooledSlope(Sample[] s, List<Integer> cuts, double fallback) {
        List<Double> slopes = new ArrayList<>();
        int from = 0;
        for (int k = 0; k <= cuts.size(); k++) {
            int to = k < cuts.size() ? cuts.get(k) : s.length;
            int stride = Math.max(1, (to - from) / 400); // at most ~80,000 pairs a segment
            for (int i = from; i < to; i += stride) {
                for (int j = i + 1; j < to; j += stride) {
                    long dt = s[j].tNs() - s[i].tNs();
                    if (dt > 0) {
                        slopes.add((double) (s[j].offsetNs() - s[i].offsetNs()) / dt);
                    }
                }
            }
            from = to;
        }
        return slopes.isEmpty() ? fallback : median(slopes.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** The segment of samples [from, to) on the line of {@code slope}: the median intercept, the robust residual. */
    static Segment theilSen(Sample[] s, int from, int to, double slope) {
        int n = to - from;
        long t0 = s[from].tNs();
        double[] icpt = new double[n];
        for (int i = 0; i < n; i++) {
            icpt[i] = s[from + i].offsetNs() - slope * (s[from + i].tNs() - t0);
        }
        double a = median(icpt.clone());
        double envelope = 0;
        for (int i = 0; i < n; i++) {
            icpt[i] = Math.abs(icpt[i] - a);
            envelope = Math.max(envelope, icpt[i] + s[from + i].rttNs() / 2.0);
        }
        double residual = n < 2 ? 0 : 3 * 1.4826 * median(icpt); // sorts icpt
        return new Segment(t0, s[to - 1].tNs(), a, slope, residual, envelope, n);
    }

    static double median(double[] v) {
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /** The fitted offset at {@code tNs}: the segment it falls in (before a step's time, the one before it). */
    public double offsetAt(long tNs) {
        return segmentAt(tNs).at(tNs);
    }

    /** The bound on {@link #offsetAt}: the segment's (see the class's note). */
    public double errorAt(long tNs) {
        return errorOf(segmentAt(tNs));
    }

    /** The widest bound over the run's segments, ns. */
    public double errorBoundNs() {
        return segments.stream().mapToDouble(this::errorOf).max().orElse(0);
    }

    /** Half the best round trip plus the segment's residual, or its envelope where that is wider. */
    private double errorOf(Segment g) {
        return Math.max(bestRttNs / 2.0 + g.residualNs(), g.envelopeNs());
    }

    private Segment segmentAt(long tNs) {
        for (int k = 0; k < steps.size(); k++) {
            if (tNs < steps.get(k).atNs()) {
                return segments.get(k);
            }
        }
        return segments.get(segments.size() - 1);
    }

    /** The drift, ppm (µs per s), one for the run. */
    public double driftPpm() {
        return segments.get(0).slope() * 1e6;
    }

    /** The largest segment residual, ns. */
    public double residualNs() {
        return segments.stream().mapToDouble(Segment::residualNs).max().orElse(0);
    }

    public List<Segment> segments() {
        return segments;
    }

    public List<Step> steps() {
        return steps;
    }

    public long bestRttNs() {
        return bestRttNs;
    }

    public int samples() {
        return samples;
    }
}
