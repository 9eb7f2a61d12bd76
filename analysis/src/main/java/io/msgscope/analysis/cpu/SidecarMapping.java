package io.msgscope.analysis.cpu;

import io.msgscope.analysis.Trace;
import java.util.Objects;

/**
 * Broker CPU per window in sidecar mode (M3): the broker-side probe did not stamp the messages
 * but sampled the broker process CPU on its own clock at a fixed period, and the samples are
 * mapped onto the message windows afterwards.
 *
 * <p>Window k (messages {@code [k·every, min((k+1)·every, count))}) was in the broker from
 * {@code start} = the earliest present O_n of the window to {@code end} = the latest present I_n
 * (sender/receiver clock, the same box, R1). Both are moved to the probe clock by adding
 * {@code offsetNs} (probe clock − sender/receiver clock); the window then gets the rate over the
 * smallest run of probe samples [i, j], j &gt; i, with T_i ≤ start and T_j ≥ end. Because the
 * run always reaches the samples at or outside the window, a window shorter than one sampling
 * period still uses at least one full period — no time slice of the window goes unmeasured, at
 * the price of smoothing.
 */
public final class SidecarMapping {

    private SidecarMapping() {
    }

    /**
     * @param name series name
     * @param probeNs probe sample times T (probe clock, ns), non-decreasing over
     *     {@code [0, probeSamples)}
     * @param probeCpuNs broker CPU counter U per probe sample (ns of CPU time), {@link Trace#ABSENT}
     *     where the probe could not read it
     * @param probeSamples number of probe samples taken
     * @param offsetNs probe clock − sender/receiver clock, in ns
     * @param sendNs O_n ({@link Trace#ABSENT} = not sent)
     * @param recvNs I_n ({@link Trace#ABSENT} = not received)
     * @param count messages in the run
     * @param every messages per window N
     * @param scale factor on ΔU/ΔT ({@link CpuWindows#PERCENT_OF_ONE_CORE} for %)
     * @return one value per window; NaN when the window has no present O_n or no present I_n, when
     *     the probe samples do not cover it, or when the counter is absent or went backwards
     */
    public static StepSeries map(String name, long[] probeNs, long[] probeCpuNs, int probeSamples, long offsetNs,
            long[] sendNs, long[] recvNs, long count, int every, double scale) {
        Objects.requireNonNull(probeNs, "probeNs");
        Objects.requireNonNull(probeCpuNs, "probeCpuNs");
        Objects.requireNonNull(sendNs, "sendNs");
        Objects.requireNonNull(recvNs, "recvNs");
        int windows = StepSeries.windowCount(count, every);
        if (probeSamples < 0 || probeSamples > probeNs.length || probeSamples > probeCpuNs.length) {
            throw new IllegalArgumentException("probeSamples " + probeSamples + " outside [0, "
                    + Math.min(probeNs.length, probeCpuNs.length) + "]");
        }
        if (sendNs.length < count || recvNs.length < count) {
            throw new IllegalArgumentException(count + " messages but " + sendNs.length + " send and "
                    + recvNs.length + " receive times");
        }
        checkProbeClock(probeNs, probeSamples);
        double[] values = new double[windows];
        final long absent = Trace.ABSENT;
        for (int k = 0; k < windows; k++) {
            int from = k * every; // k·every < count ≤ Trace.MAX_COUNT, no overflow
            int to = (int) Math.min((long) from + every, count);
            long start = Long.MAX_VALUE;
            long end = Long.MIN_VALUE;
            for (int n = from; n < to; n++) {
                long o = sendNs[n];
                if (o != absent && o < start) {
                    start = o;
                }
                long r = recvNs[n];
                if (r != absent && r > end) {
                    end = r;
                }
            }
            if (start == Long.MAX_VALUE || end == Long.MIN_VALUE) {
                values[k] = Double.NaN;
                continue;
            }
            if (end < start) {
                end = start; // clock error (received before sent): measure around the send time
            }
            values[k] = rateAround(probeNs, probeCpuNs, probeSamples, start + offsetNs, end + offsetNs, scale);
        }
        return new StepSeries(name, every, count, values);
    }

    /** Rate over the smallest probe run [i, j], j &gt; i, with T_i ≤ start and T_j ≥ end; NaN if uncovered. */
    static double rateAround(long[] probeNs, long[] probeCpuNs, int samples, long start, long end, double scale) {
        int i = lastAtOrBefore(probeNs, samples, start);
        int j = firstAtOrAfter(probeNs, samples, end);
        if (i < 0 || j < 0) {
            return Double.NaN;
        }
        if (j <= i) {
            // start == end == T_i: a point in time; take the full period after it (or before it).
            if (i + 1 < samples) {
                j = i + 1;
            } else if (i > 0) {
                i = i - 1;
            } else {
                return Double.NaN;
            }
        }
        long ui = probeCpuNs[i];
        long uj = probeCpuNs[j];
        if (ui == Trace.ABSENT || uj == Trace.ABSENT) {
            return Double.NaN;
        }
        long dt = probeNs[j] - probeNs[i];
        long du = uj - ui;
        if (dt <= 0 || du < 0) {
            return Double.NaN;
        }
        return scale * (double) du / (double) dt;
    }

    /** Largest index s &lt; samples with probeNs[s] ≤ t, or −1. */
    static int lastAtOrBefore(long[] probeNs, int samples, long t) {
        int lo = 0;
        int hi = samples - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (probeNs[mid] <= t) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Smallest index s &lt; samples with probeNs[s] ≥ t, or −1. */
    static int firstAtOrAfter(long[] probeNs, int samples, long t) {
        int lo = 0;
        int hi = samples - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (probeNs[mid] >= t) {
                found = mid;
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        return found;
    }

    private static void checkProbeClock(long[] probeNs, int samples) {
        for (int s = 0; s < samples; s++) {
            if (probeNs[s] == Trace.ABSENT) {
                throw new IllegalArgumentException("probe sample " + s + " has no timestamp");
            }
            if (s > 0 && probeNs[s] < probeNs[s - 1]) {
                throw new IllegalArgumentException("probe timestamps go backwards at sample " + s + ": "
                        + probeNs[s - 1] + " then " + probeNs[s] + " (the probe must use a monotonic clock)");
            }
        }
    }
}
