package io.msgscope.analysis.cpu;

import io.msgscope.analysis.SeriesStats;
import io.msgscope.analysis.Trace;
import java.util.Objects;

/**
 * A per-message series that is constant over windows of {@code every} messages (M3, M4): CPU
 * usage, network bytes/s and any other auxiliary measurement sampled every Nth message.
 *
 * <p>Window {@code k} covers messages {@code [k·every, min((k+1)·every, count))}, so there are
 * {@link #windowCount(long, int) ceil(count/every)} windows and the last one may be partial. A
 * window whose value could not be measured holds {@code NaN}. Immutable: the values are copied in
 * and never handed out.
 */
public final class StepSeries {

    private final String name;
    private final int every;
    private final long count;
    private final double[] values;

    /**
     * @param name column name, e.g. {@code broker_cpu_pct}: non-empty, no whitespace (it heads a
     *     trace.dat column)
     * @param every messages per window N, at least 1
     * @param count messages in the run
     * @param values one value per window ({@code NaN} = undefined), exactly
     *     {@link #windowCount(long, int) windowCount(count, every)} of them; copied
     */
    public StepSeries(String name, int every, long count, double[] values) {
        this.name = checkName(name);
        Objects.requireNonNull(values, "values");
        int windows = windowCount(count, every);
        if (values.length != windows) {
            throw new IllegalArgumentException("series " + name + ": " + count + " messages in windows of "
                    + every + " need " + windows + " values, got " + values.length);
        }
        this.every = every;
        this.count = count;
        this.values = values.clone();
    }

    /**
     * Number of windows K = ceil(count/every) of a run of {@code count} messages sampled every
     * {@code every} messages; the samplers take K+1 samples (one at message k·every for each k,
     * one after the last message).
     */
    public static int windowCount(long count, int every) {
        if (every < 1) {
            throw new IllegalArgumentException("every (sampling interval N) must be >= 1, was " + every);
        }
        if (count < 0 || count > Trace.MAX_COUNT) {
            throw new IllegalArgumentException("count must be in [0, " + Trace.MAX_COUNT
                    + "], was " + count);
        }
        return (int) ((count + every - 1) / every);
    }

    private static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("series name must not be empty");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isWhitespace(c) || c < 0x21 || c > 0x7e) {
                throw new IllegalArgumentException("series name must be printable ASCII without whitespace"
                        + " (it heads a trace.dat column), was \"" + name + "\"");
            }
        }
        return name;
    }

    /** The column name. */
    public String name() {
        return name;
    }

    /** Messages per window N. */
    public int every() {
        return every;
    }

    /** Messages in the run. */
    public long count() {
        return count;
    }

    /** Number of windows. */
    public int windows() {
        return values.length;
    }

    /** Value of window {@code k}, {@code NaN} if undefined. */
    public double window(int k) {
        return values[k];
    }

    /** A copy of the window values. */
    public double[] values() {
        return values.clone();
    }

    /** Value of the window holding message {@code n} (0 ≤ n &lt; count), {@code NaN} if undefined. */
    public double valueAt(long n) {
        if (n < 0 || n >= count) {
            throw new IndexOutOfBoundsException("message " + n + " outside [0, " + count + ")");
        }
        return values[(int) (n / every)];
    }

    /** Number of windows with a defined value. */
    public int definedWindows() {
        int defined = 0;
        for (double v : values) {
            if (!Double.isNaN(v)) {
                defined++;
            }
        }
        return defined;
    }

    /**
     * M6 aggregates over the defined window values (one value per window, not per message, so a
     * partial last window weighs as much as a full one); empty if no window is defined.
     */
    public SeriesStats stats() {
        double[] defined = new double[values.length];
        int n = 0;
        for (double v : values) {
            if (!Double.isNaN(v)) {
                defined[n++] = v;
            }
        }
        return SeriesStats.ofDoubles(defined, n);
    }

    /** This series under a new name with every value multiplied by {@code factor} (NaN stays NaN). */
    public StepSeries scaled(String name, double factor) {
        double[] scaled = new double[values.length];
        for (int k = 0; k < values.length; k++) {
            scaled[k] = values[k] * factor;
        }
        return new StepSeries(name, every, count, scaled);
    }

    @Override
    public String toString() {
        return "StepSeries[" + name + ", every=" + every + ", count=" + count + ", windows=" + values.length + "]";
    }
}
