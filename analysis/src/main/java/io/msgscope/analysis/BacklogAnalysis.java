package io.msgscope.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A backlog built and drained (issue 31 item 3): for each episode of consecutive phases whose consumers were paused,
 * how large the backlog grew, how fast it drained once the consumers resumed, when the latency was back to what it was
 * before, and what the producers did meanwhile. Everything from the trace's send, receive and intended times, on the
 * trace's one clock; the pause and the resume are the timeline's boundaries (origin + phase start or end).
 *
 * <ul>
 *   <li>In flight at instant t: messages whose send time is at or before t less those whose receive time is at or
 *       before t. The peak is its largest value over the episode's window, from the pause to the next episode's
 *       pause (or the end of the run).</li>
 *   <li>Drained: the last arrival of the messages sent before the resume (every one of them has arrived); null when
 *       one of them was lost. The drain rate is the arrivals (of any message) in [resume, drained] over that span.</li>
 *   <li>Caught up ({@link CatchUp}): with L the p99 of the latency from the intended send time in the phase before
 *       the pause, the messages scheduled after the paused phases in the window fall into consecutive windows of 100
 *       ms of intended time from the resume; the run is caught up from the first window from which on every window's
 *       median latency from the intended time is within L (a lost message counts as above L, a window with no message
 *       is skipped). Time to catch up is that window's first arrival less the resume (at least 0). Null when there is
 *       no phase before the pause with a received message, no message scheduled after the paused phases in the
 *       window (a drain at 0 msg/s), or when the last window with messages is above L.</li>
 *   <li>The last arrival above L: the latest arrival, less the resume (at least 0), of the messages scheduled after
 *       the paused phases in the window whose latency from the intended time exceeded L; 0 when none did. L is a p99,
 *       so in steady state about 1 % of the messages exceed it: this is usually near the window's end, and says when
 *       the last straggler came, not when the backlog was over. Null as the catch-up's first two cases, and when one
 *       of those messages was lost (it never arrived).</li>
 *   <li>The producers during the drain: sends in [resume, drained] over that span, the latency from the intended
 *       time of those messages, and their send lag (send time less intended time).</li>
 * </ul>
 */
public final class BacklogAnalysis {
    private BacklogAnalysis() {
    }

    /**
     * One backlog episode's figures; times are ns from the timeline's origin.
     *
     * @param firstPhase       the first paused phase's index
     * @param lastPhase        the last paused phase's index of the run of paused phases
     * @param pausedAtNs       the pause: the first paused phase's start
     * @param resumedAtNs      the resume: the last paused phase's end
     * @param windowEndNs      the episode's window ends here: the next episode's pause, or Long.MAX_VALUE
     * @param peakMessages     most messages in flight in the episode's window
     * @param peakAtNs         when that peak was first reached
     * @param drainedAtNs      when the last message sent before the resume arrived; null when one was lost
     * @param drainMsgPerSec   arrivals over [resume, drained], msg/s; null when not drained or drained at the resume
     * @param catchUpBoundNs   L, the pre-backlog phase's p99 latency from the intended time; null when unknown
     * @param catchUpNs        time to catch up after the resume, ns; null when it never caught up (see above)
     * @param lastAboveBoundNs the last arrival above L after the resume, ns; null when unknown (see above)
     * @param sendMsgPerSec    sends over [resume, drained], msg/s; null as the drain rate
     * @param latencyIntended  latency from the intended time of the messages sent during the drain
     * @param sendLagNs        send time less intended time of those messages
     */
    public record Episode(int firstPhase, int lastPhase, long pausedAtNs, long resumedAtNs, long windowEndNs,
                          long peakMessages,
                          long peakAtNs, Long drainedAtNs, Double drainMsgPerSec, Double catchUpBoundNs, Long catchUpNs,
                          Long lastAboveBoundNs, Double sendMsgPerSec, SeriesStats latencyIntended,
                          SeriesStats sendLagNs) {
    }

    /**
     * Every episode's figures.
     *
     * @param trace   the run's trace, with intended times
     * @param phases  the phases' figures ({@link PhaseAnalysis#analyse}), in order
     * @param paused  whether each phase paused the consumers
     */
    public static List<Episode> analyse(Trace trace, List<PhaseAnalysis.Figures> phases, boolean[] paused) {
        long[] intended = trace.intendedNs();
        long[] send = trace.sendNs();
        long[] recv = trace.recvNs();
        int n = trace.size();
        long origin = origin(trace, phases);
        List<PhaseAnalysis.Frame> frames = phases.stream().map(PhaseAnalysis.Figures::frame).toList();
        List<Episode> out = new ArrayList<>();
        if (origin == Trace.ABSENT) {
            return out;
        }
        long[] sends = sorted(send, n);
        long[] recvs = sorted(recv, n);
        for (int[] run : pausedRuns(paused)) {
            int a = run[0];
            int b = run[1];
            int next = run[2];
            long pause = origin + frames.get(a).startNs();
            long resume = origin + frames.get(b).endNs();
            long windowEnd = next < paused.length ? origin + frames.get(next).startNs() : Long.MAX_VALUE;
            long[] peak = peak(sends, recvs, pause, windowEnd);
            Long drained = drainedAt(send, recv, n, resume);
            Double drainRate = null;
            Double sendRate = null;
            SeriesStats lat = SeriesStats.empty();
            SeriesStats lag = SeriesStats.empty();
            if (drained != null && drained > resume) {
                double s = (drained - resume) / 1e9;
                drainRate = count(recvs, resume, drained) / s;
                sendRate = count(sends, resume, drained) / s;
                long[] l = new long[n];
                long[] g = new long[n];
                int k = 0;
                int m = 0;
                for (int i = 0; i < n; i++) {
                    if (send[i] != Trace.ABSENT && send[i] >= resume && send[i] <= drained) {
                        g[m++] = send[i] - intended[i];
                        if (recv[i] != Trace.ABSENT) {
                            l[k++] = Math.max(0, recv[i] - intended[i]);
                        }
                    }
                }
                lat = k == 0 ? SeriesStats.empty() : SeriesStats.ofLongs(l, k);
                lag = m == 0 ? SeriesStats.empty() : SeriesStats.ofLongs(g, m);
            }
            Double bound = a > 0 && phases.get(a - 1).received() > 0 ? phases.get(a - 1).latencyIntendedNs().p99() : null;
            long afterFirst = frames.get(b).endSeq();
            long afterEnd = next < paused.length ? frames.get(next).firstSeq() : Math.min(n, frames.get(frames.size() - 1)
                    .endSeq());
            int to = (int) Math.min(afterEnd, n);
            Long catchUp = bound == null ? null : CatchUp.fromTrace(intended, send, recv, (int) afterFirst, to, bound,
                    resume);
            Long lastLate = bound == null ? null : CatchUp.lastAboveBound(intended, send, recv, (int) afterFirst, to,
                    bound, resume);
            out.add(new Episode(a, b, pause - origin, resume - origin,
                    windowEnd == Long.MAX_VALUE ? Long.MAX_VALUE : windowEnd - origin, peak[0], peak[1] - origin,
                    drained == null ? null : drained - origin, drainRate, bound, catchUp, lastLate, sendRate, lat,
                    lag));
        }
        return out;
    }

    /**
     * Each run of consecutive phases with {@code paused} set, in order: {first, last, next}, next the first phase of
     * the following run (or {@code paused.length} when none follows).
     */
    public static List<int[]> pausedRuns(boolean[] paused) {
        List<int[]> out = new ArrayList<>();
        for (int a = 0; a < paused.length; a++) {
            if (!paused[a] || (a > 0 && paused[a - 1])) {
                continue;
            }
            int b = a;
            while (b + 1 < paused.length && paused[b + 1]) {
                b++;
            }
            int next = b + 1;
            while (next < paused.length && !paused[next]) {
                next++;
            }
            out.add(new int[] {a, b, next});
            a = b;
        }
        return out;
    }

    /** The timeline's origin on the trace's clock ({@link PhaseAnalysis#origin}), or ABSENT. */
    public static long origin(Trace trace, List<PhaseAnalysis.Figures> phases) {
        return PhaseAnalysis.origin(trace.intendedNs(), phases.stream().map(PhaseAnalysis.Figures::frame).toList(),
                trace.size());
    }

    /**
     * The tool's own count of messages in flight at each of the broker's backlog reads: sends at or before the read's
     * time less arrivals at or before it, from the trace (issue 31 item 3).
     */
    public static long[] inFlightAt(Trace trace, long[] sampleNs, int samples) {
        long[] sends = sorted(trace.sendNs(), trace.size());
        long[] recvs = sorted(trace.recvNs(), trace.size());
        long[] out = new long[samples];
        for (int k = 0; k < samples; k++) {
            out[k] = upperBound(sends, sampleNs[k]) - upperBound(recvs, sampleNs[k]);
        }
        return out;
    }

    /**
     * The tool's count of what the broker has accepted and the consumer not taken, at each of the broker's backlog
     * reads, where the publisher confirms (issue 31): the confirmed measured messages at the last read of the confirmed
     * count at or before the backlog read (0 before the first) less arrivals at or before it. The broker counts only
     * what it has accepted, so this, not {@link #inFlightAt} (sent less received), is what its count should equal; it
     * trails the read by up to one period of the confirmed count's reads.
     */
    public static long[] acceptedInFlightAt(Trace trace, long[] confirmNs, long[] confirmed, int confirms,
                                            long[] sampleNs, int samples) {
        long[] recvs = sorted(trace.recvNs(), trace.size());
        long[] times = Arrays.copyOf(confirmNs, confirms);
        long[] out = new long[samples];
        for (int k = 0; k < samples; k++) {
            int c = upperBound(times, sampleNs[k]);
            out[k] = (c == 0 ? 0 : confirmed[c - 1]) - upperBound(recvs, sampleNs[k]);
        }
        return out;
    }

    /**
     * How far a broker read is from every count the tool's figures allow. The broker counts what it has accepted and
     * the consumer has not taken: at least what the publisher saw confirmed less received ({@code accepted}), less what a
     * paused consumer holds delivered and not acknowledged, uncounted by the broker ({@code held}: AMQP's prefetch), and
     * at most what was sent less received ({@code sent}: a message sent may already be enqueued, its confirm on its way
     * back). A read in {@code [accepted - held, sent]} agrees (0); otherwise its distance to that interval. Without
     * confirms {@code accepted} is {@code sent}; with {@code held} 0 too it is plain |depth - sent|.
     */
    public static long disagreement(long depth, long accepted, long sent, long held) {
        long hi = Math.max(sent, accepted);
        if (depth > hi) {
            return depth - hi;
        }
        return Math.max(0, accepted - held - depth);
    }

    /**
     * The broker's view against the tool's over one episode's window (ns from the origin, {@code [from, to)}): {reads in
     * it, the largest broker depth, the largest {@link #disagreement}, the largest sent − confirmed at a read (the
     * messages the broker may or may not count yet; 0 without confirms)}; null when no read falls in it.
     *
     * @param accepted confirmed less received at each read ({@link #acceptedInFlightAt}), or null without confirms
     * @param inFlight sent less received at each read ({@link #inFlightAt})
     */
    public static long[] agreement(long origin, long[] sampleNs, long[] depth, long[] accepted, long[] inFlight,
                                   int samples, long from, long to, long held) {
        long n = 0;
        long maxDepth = 0;
        long maxDiff = 0;
        long maxOpen = 0;
        for (int k = 0; k < samples; k++) {
            long t = sampleNs[k] - origin;
            if (t >= from && t < to) {
                long acc = accepted == null ? inFlight[k] : accepted[k];
                n++;
                maxDepth = Math.max(maxDepth, depth[k]);
                maxDiff = Math.max(maxDiff, disagreement(depth[k], acc, inFlight[k], held));
                maxOpen = Math.max(maxOpen, inFlight[k] - acc);
            }
        }
        return n == 0 ? null : new long[] {n, maxDepth, maxDiff, maxOpen};
    }

    /** {peak in flight, when first reached} over [from, to): the value at {@code from}, then after each event. */
    static long[] peak(long[] sends, long[] recvs, long from, long to) {
        int i = upperBound(sends, from);  // sends at or before `from`
        int j = upperBound(recvs, from);
        long best = i - j;
        long at = from;
        while (true) {
            long ts = i < sends.length ? sends[i] : Long.MAX_VALUE;
            long tr = j < recvs.length ? recvs[j] : Long.MAX_VALUE;
            long t = Math.min(ts, tr);
            if (t >= to || t == Long.MAX_VALUE) {
                break;
            }
            while (i < sends.length && sends[i] == t) {
                i++;
            }
            while (j < recvs.length && recvs[j] == t) {
                j++;
            }
            if (i - j > best) {
                best = i - j;
                at = t;
            }
        }
        return new long[] {best, at};
    }

    /** The last arrival of the messages sent before {@code resume}, or null when one of them was not received. */
    static Long drainedAt(long[] send, long[] recv, int n, long resume) {
        long last = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            if (send[i] != Trace.ABSENT && send[i] < resume) {
                if (recv[i] == Trace.ABSENT) {
                    return null;
                }
                last = Math.max(last, recv[i]);
            }
        }
        return last == Long.MIN_VALUE ? null : last;
    }

    private static long[] sorted(long[] times, int n) {
        long[] s = new long[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (times[i] != Trace.ABSENT) {
                s[k++] = times[i];
            }
        }
        s = Arrays.copyOf(s, k);
        Arrays.sort(s);
        return s;
    }

    /** Values at or before {@code t} in a sorted array. */
    private static int upperBound(long[] sorted, long t) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] <= t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Values in [lo, hi] of a sorted array. */
    private static long count(long[] sorted, long lo, long hi) {
        return upperBound(sorted, hi) - upperBound(sorted, lo - 1);
    }
}
