package io.msgscope.analysis.cpu;

import io.msgscope.analysis.Trace;

/**
 * The broker's CPU over a whole measurement in sidecar mode (M3): the probe sampled the broker's CPU counter on its
 * own clock, and the measurement is bracketed by the last probe sample at or before the first send and the first at
 * or after the last receive (both moved to the probe's clock). The share of a core is the CPU time between those two
 * samples over the time between them: what /proc shows over the same span.
 *
 * @param cpuNs  CPU time the broker used between the two samples
 * @param spanNs time between the two samples, probe clock, &gt; 0
 */
public record BracketedCpu(long cpuNs, long spanNs) {

    /** % of one core over the bracketing span. */
    public double meanPct() {
        return 100.0 * cpuNs / spanNs;
    }

    /**
     * @param probeNs      probe sample times (probe clock, ns), {@link Trace#ABSENT} where missing
     * @param probeCpuNs   the broker's CPU counter at each sample, {@link Trace#ABSENT} where unread
     * @param probeSamples samples taken
     * @param offsetNs     probe clock − sender/receiver clock
     * @param sendNs       O_n ({@link Trace#ABSENT} = not sent)
     * @param recvNs       I_n ({@link Trace#ABSENT} = not received)
     * @return the bracketed CPU, or null when nothing was both sent and received, no two present samples bracket
     *     the measurement, or the counter went backwards
     */
    public static BracketedCpu of(long[] probeNs, long[] probeCpuNs, int probeSamples, long offsetNs, long[] sendNs,
                                  long[] recvNs) {
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        for (long o : sendNs) {
            if (o != Trace.ABSENT && o < start) {
                start = o;
            }
        }
        for (long r : recvNs) {
            if (r != Trace.ABSENT && r > end) {
                end = r;
            }
        }
        if (start == Long.MAX_VALUE || end == Long.MIN_VALUE) {
            return null;
        }
        start += offsetNs;
        end += offsetNs;
        long[] t = probeNs;
        long[] u = probeCpuNs;
        int i = -1;
        int j = -1;
        for (int k = 0; k < probeSamples; k++) {
            if (t[k] == Trace.ABSENT || u[k] == Trace.ABSENT) {
                continue;
            }
            if (i < 0 || t[k] <= start) {
                i = k; // the last sample at or before the start (or the first one)
            }
            if (j < 0 && t[k] >= end) {
                j = k;
            }
        }
        if (j < 0) {
            for (int k = probeSamples - 1; k >= 0; k--) {
                if (t[k] != Trace.ABSENT && u[k] != Trace.ABSENT) {
                    j = k;
                    break;
                }
            }
        }
        if (i < 0 || j <= i || t[j] <= t[i] || u[j] < u[i]) {
            return null;
        }
        return new BracketedCpu(u[j] - u[i], t[j] - t[i]);
    }
}
