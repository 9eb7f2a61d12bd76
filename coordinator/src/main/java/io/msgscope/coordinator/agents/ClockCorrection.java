package io.msgscope.coordinator.agents;

import io.msgscope.core.clock.OffsetFit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Corrects cross-host latencies by the tracked clock offsets (issue 33 item 2), one latency interval at a time: a
 * latency is the receiver's clock minus the sender's stamp, so the true latency is the measured one plus the offset
 * (sender − receiver). Each interval (about a second of the coordinator's polls) is shifted by the offset at its
 * midpoint; its bound is the fit's (half the best round trip plus the residual) plus how far the offset moves within
 * the interval (drift, or a step inside it). With several pairs whose messages one histogram mixes (several
 * publishers agents), the shift is the mean of the pairs' offsets (0 for pairs on one box) and the bound grows by the
 * largest distance from that mean.
 */
public final class ClockCorrection {
    private ClockCorrection() {
    }

    /** A shift to add to every latency of an interval, and its bound (ns). */
    public record Shift(double offsetNs, double errorNs) {
    }

    /** The shift for an interval from {@code fromMs} to {@code toMs} (the coordinator's epoch ms). */
    public static Shift over(ClockTrack t, long fromMs, long toMs) {
        long from = t.monoAt(fromMs);
        long to = t.monoAt(toMs);
        long mid = from + (to - from) / 2;
        int pairs = Math.max(t.allPairs(), t.fits().size());
        double[] off = new double[pairs];
        double[] err = new double[pairs];
        int k = 0;
        for (OffsetFit f : t.fits().values()) {
            double o = f.offsetAt(mid);
            double moves = Math.max(Math.abs(f.offsetAt(from) - o), Math.abs(f.offsetAt(to) - o));
            for (OffsetFit.Step s : f.steps()) {
                if (s.atNs() > from && s.atNs() <= to) {
                    moves = Math.max(moves, Math.max(Math.abs(f.offsetAt(s.atNs() - 1) - o), Math.abs(f.offsetAt(s.atNs()) - o)));
                }
            }
            off[k] = o;
            err[k++] = f.errorAt(mid) + moves;
        }
        double mean = 0;
        for (double o : off) {
            mean += o / pairs;
        }
        double worst = 0;
        double spread = 0;
        for (int i = 0; i < pairs; i++) {
            worst = Math.max(worst, err[i]);
            spread = Math.max(spread, Math.abs(off[i] - mean));
        }
        return new Shift(mean, worst + spread);
    }

    /**
     * Adds every value of {@code h} shifted by {@code byNs} into {@code out}; a value that would fall below 0 is
     * recorded as 0 (and counted), one above {@code out}'s range at its top. Returns how many fell below 0.
     */
    public static long shiftInto(Histogram h, long byNs, Histogram out) {
        long below = 0;
        long top = out.getHighestTrackableValue();
        for (HistogramIterationValue v : h.recordedValues()) {
            long shifted = v.getValueIteratedTo() + byNs;
            if (shifted < 0) {
                below += v.getCountAtValueIteratedTo();
                shifted = 0;
            }
            out.recordValueWithCount(Math.min(shifted, top), v.getCountAtValueIteratedTo());
        }
        return below;
    }
}
