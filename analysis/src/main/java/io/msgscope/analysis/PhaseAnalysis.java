package io.msgscope.analysis;

import java.util.ArrayList;
import java.util.List;

/**
 * A run's figures phase by phase (issue 31): each load phase is a stretch of the timeline and the messages scheduled in
 * it, and for each the analysis counts what was sent and received, the rates achieved over the phase's own span, and
 * the latency of its messages from the actual and from the intended send time (coordinated omission).
 *
 * <p>Times are the trace's, one monotonic clock; a phase's span is {@code [origin + startNs, origin + endNs)}, where
 * the origin is the timeline's start (the intended time of message 0). Rates count the sends (or arrivals) whose time
 * lies in the span, over the span's length — what a user watching that stretch saw, whichever phase the message was
 * scheduled in. Latencies are of the messages scheduled in the phase, so a backlog built in one phase shows in the
 * next phase's rates but in its own phase's latency.
 */
public final class PhaseAnalysis {
    private PhaseAnalysis() {
    }

    /**
     * One phase as the analysis sees it.
     *
     * @param name         the phase's name
     * @param startNs      its start, ns from the timeline's origin
     * @param endNs        its end, ns from the origin
     * @param firstSeq     the first message scheduled in it
     * @param endSeq       one past the last message scheduled in it ({@code firstSeq} for a pause)
     * @param firstDueNs   when its first message is due, ns from the origin (its start, or up to one message period
     *                     after it)
     */
    public record Frame(String name, long startNs, long endNs, long firstSeq, long endSeq, long firstDueNs) {
        public Frame {
            if (endNs <= startNs || endSeq < firstSeq || firstSeq < 0 || firstDueNs < startNs) {
                throw new IllegalArgumentException("bad phase frame " + name + ": [" + startNs + ", " + endNs
                        + ") messages [" + firstSeq + ", " + endSeq + ")");
            }
        }

        /** Messages scheduled in the phase over its length, msg/s. */
        public double askedMsgPerSec() {
            return (endSeq - firstSeq) / ((endNs - startNs) / 1e9);
        }
    }

    /**
     * What one phase measured.
     *
     * @param frame              the phase
     * @param scheduled          messages scheduled in it
     * @param sent               of those, sent
     * @param received           of those, received
     * @param sentInSpan         sends (of any phase's messages) whose send time lies in the phase's span
     * @param receivedInSpan     arrivals whose receive time lies in the span
     * @param firstSendLagNs     the phase's first message's actual send time minus its due time: how late the rate
     *                           moved at the boundary; null for a pause or when that message was not sent
     * @param latencyNs          latency of the phase's received messages from their actual send time
     * @param latencyIntendedNs  from their intended send time
     */
    public record Figures(Frame frame, long scheduled, long sent, long received, long sentInSpan, long receivedInSpan,
                          Long firstSendLagNs, SeriesStats latencyNs, SeriesStats latencyIntendedNs) {
        /** Sends in the span over its length, msg/s. */
        public double sentMsgPerSec() {
            return sentInSpan / spanSeconds();
        }

        /** Arrivals in the span over its length, msg/s. */
        public double receivedMsgPerSec() {
            return receivedInSpan / spanSeconds();
        }

        /** Messages of the phase sent but not received. */
        public long lost() {
            return sent - received;
        }

        private double spanSeconds() {
            return (frame.endNs() - frame.startNs()) / 1e9;
        }
    }

    /**
     * Every phase's figures.
     *
     * @param trace  the run's trace; it must carry intended send times (a timeline run paces every message)
     * @param frames the phases in order, covering messages {@code 0..trace.count()-1}, each span starting where the
     *               previous one ends or later
     * @return one {@link Figures} per frame
     */
    public static List<Figures> analyse(Trace trace, List<Frame> frames) {
        long[] intended = trace.intendedNs();
        if (intended == null) {
            throw new IllegalArgumentException("a timeline run carries intended send times");
        }
        long[] send = trace.sendNs();
        long[] recv = trace.recvNs();
        int n = trace.size();
        long origin = origin(intended, frames, n);
        long[] sentInSpan = inSpans(send, n, origin, frames);
        long[] receivedInSpan = inSpans(recv, n, origin, frames);
        List<Figures> out = new ArrayList<>();
        long[] actual = new long[0];
        long[] fromIntended = new long[0];
        for (int k = 0; k < frames.size(); k++) {
            Frame f = frames.get(k);
            int from = (int) Math.min(f.firstSeq(), n);
            int to = (int) Math.min(f.endSeq(), n);
            if (actual.length < to - from) {
                actual = new long[to - from];
                fromIntended = new long[to - from];
            }
            long sent = 0;
            int received = 0;
            for (int i = from; i < to; i++) {
                if (send[i] == Trace.ABSENT) {
                    continue;
                }
                sent++;
                if (recv[i] != Trace.ABSENT) {
                    actual[received] = Math.max(0, recv[i] - send[i]);
                    fromIntended[received] = Math.max(0, recv[i] - intended[i]);
                    received++;
                }
            }
            Long lag = from < to && send[from] != Trace.ABSENT && origin != Trace.ABSENT
                    ? send[from] - (origin + f.firstDueNs()) : null;
            out.add(new Figures(f, to - from, sent, received, sentInSpan[k], receivedInSpan[k], lag,
                    received == 0 ? SeriesStats.empty() : SeriesStats.ofLongs(actual, received),
                    received == 0 ? SeriesStats.empty() : SeriesStats.ofLongs(fromIntended, received)));
        }
        return out;
    }

    /** The timeline's origin: the intended time of a phase's first message minus when it is due, or ABSENT. */
    static long origin(long[] intended, List<Frame> frames, int n) {
        for (Frame f : frames) {
            if (f.endSeq() > f.firstSeq() && f.firstSeq() < n && intended[(int) f.firstSeq()] != Trace.ABSENT) {
                return intended[(int) f.firstSeq()] - f.firstDueNs();
            }
        }
        return Trace.ABSENT;
    }

    /**
     * How many of {@code times[0..n)} lie in each frame's span, in one pass: each time finds its span by a binary search
     * over the spans' starts, so a run of many phases costs O(n log phases), not a scan per phase. The spans must follow
     * one another without overlapping (a timeline's do); with no origin every count is 0.
     */
    static long[] inSpans(long[] times, int n, long origin, List<Frame> frames) {
        int m = frames.size();
        long[] counts = new long[m];
        if (origin == Trace.ABSENT || m == 0) {
            return counts;
        }
        long[] lo = new long[m];
        long[] hi = new long[m];
        for (int k = 0; k < m; k++) {
            lo[k] = origin + frames.get(k).startNs();
            hi[k] = origin + frames.get(k).endNs();
            if (k > 0 && lo[k] < hi[k - 1]) {
                throw new IllegalArgumentException("phase frames overlap or are out of order: "
                        + frames.get(k - 1).name() + " and " + frames.get(k).name());
            }
        }
        for (int i = 0; i < n; i++) {
            long t = times[i];
            if (t == Trace.ABSENT || t < lo[0] || t >= hi[m - 1]) {
                continue;
            }
            int a = 0;
            int b = m - 1;
            while (a < b) { // the last span that starts at or before t
                int mid = (a + b + 1) >>> 1;
                if (lo[mid] <= t) {
                    a = mid;
                } else {
                    b = mid - 1;
                }
            }
            if (t < hi[a]) {
                counts[a]++;
            }
        }
        return counts;
    }
}
