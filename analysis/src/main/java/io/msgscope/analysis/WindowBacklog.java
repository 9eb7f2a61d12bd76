package io.msgscope.analysis;

import java.util.ArrayList;
import java.util.List;

/**
 * A backlog built and drained, from poll windows instead of a trace (issue 31 item 3, scenario mode): the figures
 * {@link BacklogAnalysis} gives per message, at the resolution of the windows (about one second each), from each
 * window's sends, deliveries expected of them, deliveries and median latency from the intended send time. Times are
 * ns from the timeline's origin; each window belongs to one phase (the caller's choice, e.g. by its midpoint).
 *
 * <ul>
 *   <li>In flight at a window's end: the deliveries expected of the sends so far less the deliveries so far. The peak
 *       is the largest over the episode's windows (those of its paused phases up to the next episode's first), at the
 *       end of the window that reached it.</li>
 *   <li>Drained: the end of the first window after the paused ones by which the deliveries so far reach the deliveries
 *       expected of the sends up to the paused phases' last window; the resume itself when they had already. Null when
 *       no window reaches it. The drain rate and the producers' rate: the deliveries and sends of the windows after
 *       the paused ones up to the drained one, over their span.</li>
 *   <li>Caught up ({@link CatchUp}): with L the p99 from the intended time of the phase before the pause, the start
 *       of the first window after the paused ones from which on every window of the episode with deliveries has its
 *       median latency from the intended time within L (it has deliveries itself; a window without is skipped);
 *       time to catch up is that less the resume, at least 0. The true moment lies in the window before it or in it:
 *       one window's resolution. A window holds the deliveries that arrived in it, so a lost message is in none of
 *       them: unlike trace mode's, a loss does not hold the catch-up back. Null when L is unknown, nothing was sent
 *       after the paused phases, or the episode's last window with deliveries has its median above L. The strict
 *       figure, trace mode's last arrival above L, is not known from windows.</li>
 * </ul>
 */
public final class WindowBacklog {
    private WindowBacklog() {
    }

    /**
     * The windows in order.
     *
     * @param startNs   each window's start, ns from the origin
     * @param endNs     its end
     * @param phase     the phase it belongs to
     * @param sent      the sends counted in it
     * @param expected  the deliveries expected of those sends (sends × subscribers that get each)
     * @param received  the deliveries counted in it
     * @param medianNs  the median of its deliveries' latency from the intended time, ns; null without deliveries
     */
    public record Windows(long[] startNs, long[] endNs, int[] phase, long[] sent, long[] expected, long[] received,
                          Double[] medianNs) {
        public int size() {
            return startNs.length;
        }

        /** In flight at each window's end: expected so far less received so far. */
        public long[] inFlight() {
            long[] out = new long[size()];
            long e = 0;
            long r = 0;
            for (int w = 0; w < out.length; w++) {
                e += expected[w];
                r += received[w];
                out[w] = e - r;
            }
            return out;
        }
    }

    /**
     * One episode's figures (see the class comment); times ns from the origin.
     *
     * @param drainFrom the first window after the paused ones, -1 when none
     * @param drainTo   the drained window, -1 when not drained after the resume (the drain's windows: from..to)
     */
    public record Episode(int firstPhase, int lastPhase, long pausedAtNs, long resumedAtNs, long windowEndNs,
                          Long peakMessages, Long peakAtNs, Long drainedAtNs, Double drainMsgPerSec,
                          Double catchUpBoundNs, Long catchUpNs, Double sendMsgPerSec, int drainFrom, int drainTo) {
    }

    /**
     * Every episode: each run of consecutive phases with {@code paused} set, with the windows up to the next run.
     *
     * @param phaseStartNs each phase's start, ns from the origin
     * @param phaseEndNs   each phase's end
     * @param boundNs      each phase's p99 from the intended time, ns, null when unknown (the catch-up bound)
     */
    public static List<Episode> analyse(Windows w, long[] phaseStartNs, long[] phaseEndNs, boolean[] paused,
                                        Double[] boundNs) {
        List<Episode> out = new ArrayList<>();
        long[] inFlight = w.inFlight();
        for (int[] run : BacklogAnalysis.pausedRuns(paused)) {
            int a = run[0];
            int b = run[1];
            int next = run[2];
            long pause = phaseStartNs[a];
            long resume = phaseEndNs[b];
            long windowEnd = next < paused.length ? phaseStartNs[next] : Long.MAX_VALUE;
            Long peak = null;
            Long peakAt = null;
            long expectedBefore = 0;
            long receivedBefore = 0;
            int from = -1;
            int last = -1;
            long sentAfter = 0;
            for (int k = 0; k < w.size(); k++) {
                int p = w.phase()[k];
                if (p <= b) {
                    expectedBefore += w.expected()[k];
                    receivedBefore += w.received()[k];
                }
                if (p < a || p >= next) {
                    continue;
                }
                if (peak == null || inFlight[k] > peak) {
                    peak = inFlight[k];
                    peakAt = w.endNs()[k];
                }
                if (p > b) {
                    from = from < 0 ? k : from;
                    last = k;
                    sentAfter += w.sent()[k];
                }
            }
            Long drained = null;
            int to = -1;
            if (receivedBefore >= expectedBefore) {
                drained = resume;
            } else if (from >= 0) {
                long r = receivedBefore;
                for (int k = from; k <= last; k++) {
                    r += w.received()[k];
                    if (r >= expectedBefore) {
                        drained = w.endNs()[k];
                        to = k;
                        break;
                    }
                }
            }
            Double drainRate = null;
            Double sendRate = null;
            if (to >= 0) {
                long received = 0;
                long sent = 0;
                for (int k = from; k <= to; k++) {
                    received += w.received()[k];
                    sent += w.sent()[k];
                }
                double s = (w.endNs()[to] - w.startNs()[from]) / 1e9;
                drainRate = s > 0 ? received / s : null;
                sendRate = s > 0 ? sent / s : null;
            }
            Double bound = a > 0 ? boundNs[a - 1] : null;
            Long catchUp = bound == null || sentAfter == 0 ? null : caughtUp(w, from, last, bound, resume);
            out.add(new Episode(a, b, pause, resume, windowEnd, peak, peakAt, drained, drainRate, bound, catchUp,
                    sendRate, from, to));
        }
        return out;
    }

    /**
     * The start of the first window of [from, last] from which on every window with deliveries has its median within
     * the bound ({@link CatchUp#firstCaughtUp}), less the resume; null when there is none.
     */
    static Long caughtUp(Windows w, int from, int last, double bound, long resume) {
        if (from < 0) {
            return null;
        }
        Boolean[] within = new Boolean[last - from + 1];
        for (int k = from; k <= last; k++) {
            Double m = w.medianNs()[k];
            within[k - from] = m == null ? null : m <= bound;
        }
        int first = CatchUp.firstCaughtUp(within);
        return first < 0 ? null : Math.max(0, w.startNs()[from + first] - resume);
    }

    /**
     * The tool's count at each of the broker's reads: the in flight at the last window ending at or before the read
     * (0 before the first window's end), so it trails the read by up to a window.
     */
    public static long[] inFlightAt(Windows w, long[] readNs, int reads) {
        long[] inFlight = w.inFlight();
        long[] out = new long[reads];
        int k = -1;
        for (int i = 0; i < reads; i++) {
            while (k + 1 < w.size() && w.endNs()[k + 1] <= readNs[i]) {
                k++;
            }
            out[i] = k < 0 ? 0 : inFlight[k];
        }
        return out;
    }
}
