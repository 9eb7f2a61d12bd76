package io.msgscope.analysis.distribution;

import io.msgscope.analysis.Trace;

/**
 * A one-dimensional histogram with equal bins over [lo, hi) and optional overlap (sliding bins),
 * for any measured series (M8): latency, ST, RT, CPU.
 *
 * <h2>Bins</h2>
 * The range is cut into {@code bins} base bins of width {@code w}: configure either the count
 * ({@link #withBinCount}, {@code w = (hi − lo)/bins}) or the width ({@link #withBinWidth},
 * {@code bins = ceil((hi − lo)/w)}; the upper end is then raised to {@code lo + bins·w} so that
 * every bin has the full width — {@link #hi()} reports the raised value).
 *
 * <p>With overlap {@code k ≥ 1} every bin is still {@code w} wide but a new bin starts every
 * step {@code s = w/k} (k = 1: ordinary, disjoint bins). Bin {@code b} (0-based) covers
 * {@code [lo + (b − k + 1)·s, lo + (b + 1)·s)}, and there are {@code bins·k + k − 1} of them,
 * so that <em>every</em> value in [lo, hi) lies in exactly {@code k} bins: the first and the
 * last {@code k − 1} bins reach out of [lo, hi) by less than {@code w} but only ever count
 * values inside it. Consequently Σ counts = k × {@link #inRange()}, and the density column,
 * {@code count / (total·w)}, integrates to the in-range share when summed with spacing s.
 *
 * <h2>Values</h2>
 * Values below lo are counted in {@link #underflow()}, values at or above hi in
 * {@link #overflow()}; NaN (double input) and {@link Trace#ABSENT} (long input) are skipped
 * and counted in {@link #skipped()}. {@link #total()} = underflow + in range + overflow.
 *
 * <p>Filling is O(1) per value whatever the overlap: values are counted per step cell and the
 * bin counts are the sums of {@code k} consecutive cells. Not thread-safe.
 */
public final class Histogram1D {

    /** Largest number of step cells (bins × overlap) a histogram may have. */
    public static final int MAX_CELLS = 50_000_000;

    private final double lo;
    private final double hi;
    private final int baseBins;
    private final int overlap;
    private final int cellCount;
    private final double span;
    private final double scale;
    private final long[] cells;
    private long underflow;
    private long overflow;
    private long skipped;
    private long inRange;

    private Histogram1D(double lo, double hi, int baseBins, int overlap) {
        if (overlap < 1) {
            throw new IllegalArgumentException("overlap must be >= 1 (1 = disjoint bins), was " + overlap);
        }
        long cellsNeeded = (long) baseBins * overlap;
        if (cellsNeeded > MAX_CELLS) {
            throw new IllegalArgumentException(baseBins + " bins with overlap " + overlap + " need "
                    + cellsNeeded + " cells, more than " + MAX_CELLS);
        }
        this.lo = lo;
        this.hi = hi;
        this.baseBins = baseBins;
        this.overlap = overlap;
        this.cellCount = (int) cellsNeeded;
        this.span = hi - lo;
        this.scale = cellCount / span;
        this.cells = new long[cellCount];
    }

    /**
     * A histogram of {@code bins} bins over [lo, hi), each {@code (hi − lo)/bins} wide, a new bin
     * starting every {@code 1/overlap} of a bin width.
     */
    public static Histogram1D withBinCount(double lo, double hi, int bins, int overlap) {
        checkRange(lo, hi);
        if (bins < 1) {
            throw new IllegalArgumentException("bins must be >= 1, was " + bins);
        }
        return new Histogram1D(lo, hi, bins, overlap);
    }

    /**
     * A histogram of bins {@code width} wide from lo until hi is covered (hi is raised to
     * {@code lo + ceil((hi − lo)/width)·width}), a new bin starting every {@code width/overlap}.
     */
    public static Histogram1D withBinWidth(double lo, double hi, double width, int overlap) {
        checkRange(lo, hi);
        if (!(width > 0) || Double.isInfinite(width)) {
            throw new IllegalArgumentException("bin width must be a positive number, was " + width);
        }
        double needed = Math.ceil((hi - lo) / width);
        // guard against (hi − lo)/width landing a hair above an integer
        if (needed > 1 && lo + (needed - 1) * width >= hi) {
            needed -= 1;
        }
        if (needed > MAX_CELLS) {
            throw new IllegalArgumentException("bin width " + width + " would need " + (long) needed
                    + " bins to cover [" + lo + ", " + hi + ")");
        }
        int bins = Math.max(1, (int) needed);
        return new Histogram1D(lo, lo + bins * width, bins, overlap);
    }

    private static void checkRange(double lo, double hi) {
        if (Double.isNaN(lo) || Double.isNaN(hi) || Double.isInfinite(lo) || Double.isInfinite(hi) || !(hi > lo)) {
            throw new IllegalArgumentException("range must be finite with lo < hi, was [" + lo + ", " + hi + ")");
        }
    }

    /** Lower edge of step cell {@code j} (j may be negative or beyond the last cell). */
    private double edge(long j) {
        return lo + (j * span) / cellCount;
    }

    /** Counts one value. */
    public void add(double x) {
        if (Double.isNaN(x)) {
            skipped++;
            return;
        }
        if (x < lo) {
            underflow++;
            return;
        }
        if (x >= hi) {
            overflow++;
            return;
        }
        int m = (int) ((x - lo) * scale);
        if (m >= cellCount) {
            m = cellCount - 1;
        }
        // make the cell agree with the edges reported by binLow/binHigh
        if (m > 0 && x < edge(m)) {
            m--;
        } else if (m < cellCount - 1 && x >= edge(m + 1L)) {
            m++;
        }
        cells[m]++;
        inRange++;
    }

    /** Counts {@code values[0, n)}; NaN values are skipped. Returns this histogram. */
    public Histogram1D addAll(double[] values, int n) {
        checkPrefix(values.length, n);
        for (int i = 0; i < n; i++) {
            add(values[i]);
        }
        return this;
    }

    /** Counts {@code values[0, n)}; {@link Trace#ABSENT} values are skipped. Returns this histogram. */
    public Histogram1D addAll(long[] values, int n) {
        return addAll(values, n, 1.0);
    }

    /**
     * Counts {@code values[0, n)} multiplied by {@code factor} (e.g. 1e-3 to bin nanoseconds in
     * microseconds); {@link Trace#ABSENT} values are skipped. Returns this histogram.
     */
    public Histogram1D addAll(long[] values, int n, double factor) {
        checkPrefix(values.length, n);
        final long absent = Trace.ABSENT;
        for (int i = 0; i < n; i++) {
            long v = values[i];
            if (v == absent) {
                skipped++;
            } else {
                add(v * factor);
            }
        }
        return this;
    }

    private static void checkPrefix(int length, int n) {
        if (n < 0 || n > length) {
            throw new IllegalArgumentException("prefix length " + n + " outside [0, " + length + "]");
        }
    }

    /** Lower end of the range. */
    public double lo() {
        return lo;
    }

    /** Upper end of the range (exclusive; raised to a whole number of bins in width mode). */
    public double hi() {
        return hi;
    }

    /** Number of disjoint base bins covering [lo, hi). */
    public int baseBins() {
        return baseBins;
    }

    /** Overlap factor k (1 = disjoint bins). */
    public int overlap() {
        return overlap;
    }

    /** Width w of every bin. */
    public double binWidth() {
        return span / baseBins;
    }

    /** Distance between the starts of consecutive bins, w/k. */
    public double step() {
        return span / cellCount;
    }

    /** Number of bins: {@code baseBins·k + k − 1}. */
    public int binCount() {
        return cellCount + overlap - 1;
    }

    /** Lower edge of bin {@code b}. */
    public double binLow(int b) {
        checkBin(b);
        return edge((long) b - overlap + 1);
    }

    /** Upper edge (exclusive) of bin {@code b}. */
    public double binHigh(int b) {
        checkBin(b);
        return edge((long) b + 1);
    }

    /** Middle of bin {@code b}. */
    public double binCenter(int b) {
        return (binLow(b) + binHigh(b)) / 2;
    }

    /** Number of values in bin {@code b}. */
    public long count(int b) {
        checkBin(b);
        long sum = 0;
        int from = Math.max(0, b - overlap + 1);
        int to = Math.min(cellCount - 1, b);
        for (int j = from; j <= to; j++) {
            sum += cells[j];
        }
        return sum;
    }

    /** All bin counts, a fresh array of {@link #binCount()} entries. */
    public long[] counts() {
        long[] counts = new long[binCount()];
        long window = 0;
        for (int b = 0; b < counts.length; b++) {
            if (b < cellCount) {
                window += cells[b];
            }
            int leaving = b - overlap;
            if (leaving >= 0) {
                window -= cells[leaving];
            }
            counts[b] = window;
        }
        return counts;
    }

    /**
     * Density of bin {@code b}: {@code count / (total · w)}, an estimate of the probability
     * density of the whole series (so the under- and overflow are part of the normalisation);
     * 0 when nothing was counted.
     */
    public double density(int b) {
        long total = total();
        return total == 0 ? 0 : count(b) / (total * binWidth());
    }

    /** Values below lo. */
    public long underflow() {
        return underflow;
    }

    /** Values at or above hi. */
    public long overflow() {
        return overflow;
    }

    /** Values inside [lo, hi). */
    public long inRange() {
        return inRange;
    }

    /** NaN / ABSENT values skipped. */
    public long skipped() {
        return skipped;
    }

    /** Values counted: underflow + in range + overflow. */
    public long total() {
        return underflow + inRange + overflow;
    }

    private void checkBin(int b) {
        if (b < 0 || b >= binCount()) {
            throw new IndexOutOfBoundsException("bin " + b + " outside [0, " + binCount() + ")");
        }
    }
}
