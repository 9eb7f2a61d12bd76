package io.msgscope.analysis.cpu;

import io.msgscope.analysis.Trace;
import java.util.Arrays;
import java.util.Objects;

/**
 * Turns counters sampled every Nth message into per-window rates (M3, M4):
 * C = scale · (U_j − U_i) / (T_j − T_i).
 *
 * <p>The samplers take sample k at message k·N (k = 0 .. K−1, K = ceil(count/N)) and sample K
 * after the last message, so slots {@code 0..K} hold timestamps T (monotonic ns) and counters U
 * (CPU ns, bytes, packets …). A slot that was never taken holds {@link Trace#ABSENT} in either
 * array; a slot counts as present only if both T and U are present. Window k lies between slots
 * k and k+1. Slots beyond K in longer (preallocated) arrays are ignored.
 *
 * <p>Scales: with U and T in ns, {@code scale = 100} gives "% of one core"; for a byte or packet
 * counter, {@code scale = 1e9} gives units per second.
 */
public final class CpuWindows {

    /** Scale for "% of one core" when U (CPU time) and T are both in ns. */
    public static final double PERCENT_OF_ONE_CORE = 100.0;

    /** Scale for "units per second" when T is in ns. */
    public static final double PER_SECOND = 1e9;

    /** Wrap modulus of a 32-bit unsigned counter (e.g. some interface byte counters). */
    public static final long WRAP_32 = 1L << 32;

    private CpuWindows() {
    }

    /**
     * One rate per window. Window k gets scale·(U_j − U_i)/(T_j − T_i) with i the nearest present
     * slot ≤ k and j the nearest present slot ≥ k+1, so a missing sample is bridged: both windows
     * next to it get the rate over the wider span. The value is NaN when there is no such pair
     * (missing first or last sample), when T_j − T_i ≤ 0, or when U_j − U_i &lt; 0 and
     * {@code wrapModulus} is 0. With {@code wrapModulus > 0} a negative difference is taken modulo
     * it (one counter wrap; a bridged span that wrapped twice cannot be told apart).
     *
     * @param sampleNs T per slot, at least K+1 long
     * @param counter U per slot, at least K+1 long
     * @param every sampling interval N in messages
     * @param count messages in the run
     * @param wrapModulus counter modulus, 0 for a counter that never wraps
     * @param scale factor applied to ΔU/ΔT
     */
    public static StepSeries rate(String name, long[] sampleNs, long[] counter, int every, long count,
            long wrapModulus, double scale) {
        if (wrapModulus < 0) {
            throw new IllegalArgumentException("wrapModulus must be >= 0, was " + wrapModulus);
        }
        int windows = StepSeries.windowCount(count, every);
        checkSlots(sampleNs, counter, windows);
        double[] values = new double[windows];
        if (windows == 0) {
            return new StepSeries(name, every, count, values);
        }
        int[] next = nextPresent(sampleNs, counter, windows + 1);
        int previous = -1; // nearest present slot <= k
        for (int k = 0; k < windows; k++) {
            if (present(sampleNs, counter, k)) {
                previous = k;
            }
            int j = next[k + 1];
            values[k] = previous < 0 || j < 0
                    ? Double.NaN
                    : spanRate(sampleNs, counter, previous, j, wrapModulus, scale);
        }
        return new StepSeries(name, every, count, values);
    }

    /**
     * Rates for a coarse counter (process CPU time advances in 10 ms ticks, so a 2 ms window reads
     * 0 % or 500 %). Walking left to right from the first present slot, consecutive windows are
     * merged until the merged span T_j − T_i reaches {@code minSpanNs} (or the samples run out);
     * every window of a merged run gets the run's rate. A trailing run shorter than
     * {@code minSpanNs} is merged into the run before it; if it is the only run (the whole trace
     * spans less than {@code minSpanNs}) it keeps its own, coarse, rate. Windows before the first or
     * after the last present slot are NaN, as is a run whose counter went backwards or whose span
     * is not positive. With {@code minSpanNs = 0} this equals {@link #rate} without wrap.
     */
    public static StepSeries rateOverMinSpan(String name, long[] sampleNs, long[] counter, int every, long count,
            double scale, long minSpanNs) {
        if (minSpanNs < 0) {
            throw new IllegalArgumentException("minSpanNs must be >= 0, was " + minSpanNs);
        }
        int windows = StepSeries.windowCount(count, every);
        checkSlots(sampleNs, counter, windows);
        double[] values = new double[windows];
        Arrays.fill(values, Double.NaN);
        int slots = windows + 1;
        int[] next = nextPresent(sampleNs, counter, slots);
        int i = windows == 0 ? -1 : next[0];
        int previousRunStart = -1;
        while (i >= 0 && i < windows) {
            // Extend j over present slots until the span is long enough or the slots run out.
            int j = next[i + 1];
            if (j < 0) {
                break; // no present slot after i: the windows from i on cannot be measured
            }
            while (sampleNs[j] - sampleNs[i] < minSpanNs) {
                int further = j + 1 < slots ? next[j + 1] : -1;
                if (further < 0) {
                    break;
                }
                j = further;
            }
            boolean trailing = sampleNs[j] - sampleNs[i] < minSpanNs;
            if (trailing && previousRunStart >= 0) {
                i = previousRunStart; // fold the short tail into the run before it
            }
            double v = spanRate(sampleNs, counter, i, j, 0, scale);
            for (int k = i; k < j; k++) {
                values[k] = v;
            }
            previousRunStart = i;
            i = j;
        }
        return new StepSeries(name, every, count, values);
    }

    /**
     * The time-weighted figures of a counter sampled every Nth message (issue 17): over the span from
     * the first to the last present slot, {@code rate = scale·ΔU/ΔT} — every nanosecond counts once,
     * whatever the length of the window it fell in, which is what /proc reports for the same span —
     * and {@code perMessage = ΔU / messages} for the messages the span covers. The mean of the
     * per-window rates ({@link StepSeries#stats()}) weighs a 1 ms window as much as a 1 s one; with
     * windows of very different lengths the two differ, and this one is the CPU share.
     *
     * @param rate          scale·ΔU/ΔT over the span (NaN when fewer than two slots are present)
     * @param spanNs        ΔT
     * @param counterDelta  ΔU
     * @param messages      messages between the first and the last present slot
     * @param perMessage    ΔU per message (unscaled: ns of CPU per message for a CPU counter)
     * @param windowMinNs   the shortest span between consecutive present slots
     * @param windowMedianNs the lower median of those spans
     * @param windowMaxNs   the longest
     */
    public record TimeWeighted(double rate, long spanNs, long counterDelta, long messages, double perMessage,
            long windowMinNs, long windowMedianNs, long windowMaxNs) {
        static final TimeWeighted NONE = new TimeWeighted(Double.NaN, 0, 0, 0, Double.NaN, 0, 0, 0);
    }

    /** {@link TimeWeighted} of one counter; slots as in {@link #rate}. A counter that went backwards gives NONE. */
    public static TimeWeighted timeWeighted(long[] sampleNs, long[] counter, int every, long count, double scale) {
        int windows = StepSeries.windowCount(count, every);
        checkSlots(sampleNs, counter, windows);
        int first = -1;
        int last = -1;
        int present = 0;
        long[] spans = new long[windows + 1];
        int k = 0;
        for (int s = 0; s <= windows; s++) {
            if (present(sampleNs, counter, s)) {
                if (first < 0) {
                    first = s;
                } else {
                    spans[k++] = sampleNs[s] - sampleNs[last];
                }
                last = s;
                present++;
            }
        }
        if (present < 2 || sampleNs[last] <= sampleNs[first] || counter[last] < counter[first]) {
            return TimeWeighted.NONE;
        }
        long dt = sampleNs[last] - sampleNs[first];
        long du = counter[last] - counter[first];
        long messages = Math.min((long) last * every, count) - (long) first * every;
        Arrays.sort(spans, 0, k);
        return new TimeWeighted(scale * (double) du / dt, dt, du, messages,
                messages > 0 ? (double) du / messages : Double.NaN, spans[0], spans[(k - 1) / 2], spans[k - 1]);
    }

    /** scale·ΔU/ΔT between present slots i &lt; j, NaN for a non-positive ΔT or an unexplained negative ΔU. */
    static double spanRate(long[] sampleNs, long[] counter, int i, int j, long wrapModulus, double scale) {
        long dt = sampleNs[j] - sampleNs[i];
        if (dt <= 0) {
            return Double.NaN;
        }
        long du = counter[j] - counter[i];
        if (du < 0) {
            if (wrapModulus == 0) {
                return Double.NaN;
            }
            du = Math.floorMod(du, wrapModulus);
        }
        return scale * (double) du / (double) dt;
    }

    /**
     * A counter's change per message over the messages {@code from .. to-1} only (issue 31: one load phase's CPU per
     * message): between the first present slot at or after message {@code from} and the last one at or before
     * {@code to} (slot s is read before message s·every; the last slot after the last message). NaN when fewer than
     * two such slots are present or the counter went backwards.
     */
    public static double perMessageOver(long[] sampleNs, long[] counter, int every, long count, long from, long to) {
        int windows = StepSeries.windowCount(count, every);
        checkSlots(sampleNs, counter, windows);
        int first = -1;
        int last = -1;
        for (int s = 0; s <= windows; s++) {
            long at = Math.min((long) s * every, count);
            if (at >= from && at <= to && present(sampleNs, counter, s)) {
                if (first < 0) {
                    first = s;
                }
                last = s;
            }
        }
        if (first < 0 || last <= first || counter[last] < counter[first]) {
            return Double.NaN;
        }
        long messages = Math.min((long) last * every, count) - Math.min((long) first * every, count);
        return messages > 0 ? (double) (counter[last] - counter[first]) / messages : Double.NaN;
    }

    private static boolean present(long[] sampleNs, long[] counter, int slot) {
        return sampleNs[slot] != Trace.ABSENT && counter[slot] != Trace.ABSENT;
    }

    /** next[s] = nearest present slot ≥ s, or −1. */
    private static int[] nextPresent(long[] sampleNs, long[] counter, int slots) {
        int[] next = new int[slots];
        int nearest = -1;
        for (int s = slots - 1; s >= 0; s--) {
            if (present(sampleNs, counter, s)) {
                nearest = s;
            }
            next[s] = nearest;
        }
        return next;
    }

    private static void checkSlots(long[] sampleNs, long[] counter, int windows) {
        Objects.requireNonNull(sampleNs, "sampleNs");
        Objects.requireNonNull(counter, "counter");
        int slots = windows + 1;
        if (windows > 0 && (sampleNs.length < slots || counter.length < slots)) {
            throw new IllegalArgumentException(windows + " windows need " + slots
                    + " sample slots (one per window start and one after the last message), got "
                    + sampleNs.length + " timestamps and " + counter.length + " counter values");
        }
    }
}
