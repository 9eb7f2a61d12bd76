package io.msgscope.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What each fault cost (issue 32), from the trace on its one monotonic clock. Times in and out are ns from the origin,
 * the intended send time of message 0 (the run's clock).
 *
 * <ul>
 *   <li><b>Unavailability</b> (kill, pause, restart; null for resume, which ends one): the longest gap between two
 *   consecutive deliveries (in receive-time order) that ends after the fault was applied and starts before the next
 *   fault was (or at any time for the last one): last delivery before → first delivery after.</li>
 *   <li><b>The fault's window</b>: from its applied time to the next fault's (or to the end of the trace).
 *   Lost: messages sent in it and never received; reordered: of those received, each that arrived after a message
 *   with a higher sequence number (as the receiver counts reordering: a sequence lower than the highest seen); duplicated: unknown per
 *   fault (the trace keeps one receive time per message), so null. Guarantee violations: of those lost, the ones the
 *   system had confirmed ({@link Guarantee}); null when the run's settings confirm nothing.</li>
 *   <li><b>In flight</b>: messages sent before the fault was applied and not received by then; their latency from the
 *   intended send time (lost ones are not in it).</li>
 *   <li><b>Recovery</b>: the baseline is the second before the fault (before its pause, for a resume): deliveries in
 *   it per second and the p99 latency from the intended send time of the messages delivered in it. Whole seconds
 *   after the fault, stepped by 100 ms, are compared with it — for a fault with an unavailability window only those
 *   that start at or after its first delivery after (so the burst of held-back messages is not taken for normal
 *   throughput); the time to recover is from the fault to the end of the
 *   first second whose throughput is within ±10 % of the baseline's (resp. whose p99 is at most 1.1 × the baseline's),
 *   null if none that ends within the trace is, or with no full baseline second (a fault in the first second).</li>
 * </ul>
 */
public final class FaultAnalysis {
    /** The baseline and each compared window: one second. */
    public static final long WINDOW_NS = 1_000_000_000L;
    /** The compared windows step by this much. */
    public static final long STEP_NS = 100_000_000L;
    /** Back within 10 %. */
    public static final double TOLERANCE = 0.10;

    private FaultAnalysis() {
    }

    /**
     * One fault as applied.
     *
     * @param label      e.g. {@code 10s:pause:node1}
     * @param plannedNs  when it was planned, ns from the origin
     * @param appliedNs  when the agent applied it, ns from the origin on the trace's clock; null when it was not
     * @param opens      whether it starts an outage (kill, pause, a restart of a running target) rather than ending
     *                   one (resume, heal, a restart after a kill)
     * @param baselineNs where its baseline second ends, ns from the origin: its own applied time, or for one that ends
     *                   an outage the time of the one that opened it; null when unknown
     * @param opener     for one that ends an outage, the index of the event that opened it (its recovery is looked for
     *                   from that outage's end); else null
     */
    public record Event(String label, long plannedNs, Long appliedNs, boolean opens, Long baselineNs, Integer opener) {
        /** An event that ends no earlier one's outage. */
        public Event(String label, long plannedNs, Long appliedNs, boolean opens, Long baselineNs) {
            this(label, plannedNs, appliedNs, opens, baselineNs, null);
        }
    }

    /** What one fault cost; each figure null when unknown. Times are ns from the origin. */
    public record Figures(Event event, Long lagNs, Long lastBeforeNs, Long firstAfterNs, Long windowEndNs,
                          Long sentInWindow, Long lost, Long reordered, long inFlight, SeriesStats inFlightLatencyNs,
                          Double baselineMsgPerSec, Double baselineP99Ns, Long throughputRecoveredNs,
                          Long p99RecoveredNs, Long violations) {
        /** The unavailability window's length, or null. */
        public Long unavailableNs() {
            return lastBeforeNs == null || firstAfterNs == null ? null : firstAfterNs - lastBeforeNs;
        }
    }

    /** Every fault's figures, in the order given (by applied time); {@code trace} must carry intended send times. */
    public static List<Figures> analyse(Trace trace, List<Event> events) {
        return analyse(trace, events, Guarantee.NONE);
    }

    /** The same, with the lost confirmed messages of each fault's window counted against {@code guarantee}. */
    public static List<Figures> analyse(Trace trace, List<Event> events, Guarantee guarantee) {
        long[] intended = trace.intendedNs();
        if (intended == null) {
            throw new IllegalArgumentException("faults are placed on a paced run: the trace carries intended times");
        }
        int n = trace.size();
        long origin = n == 0 ? Trace.ABSENT : intended[0];
        long[] send = trace.sendNs();
        long[] recv = trace.recvNs();
        long[][] byArrival = byArrival(recv, intended, n, origin);
        long[] arrivals = byArrival[0];
        long[] latency = byArrival[1];
        long end = arrivals.length == 0 ? 0 : arrivals[arrivals.length - 1];
        List<Figures> out = new ArrayList<>();
        for (int k = 0; k < events.size(); k++) {
            Event e = events.get(k);
            Long next = null;
            for (int j = k + 1; j < events.size() && next == null; j++) {
                next = events.get(j).appliedNs();
            }
            if (e.appliedNs() == null || origin == Trace.ABSENT) {
                out.add(new Figures(e, null, null, null, null, null, null, null, 0, SeriesStats.empty(), null, null,
                        null, null, null));
                continue;
            }
            long at = e.appliedNs();
            long windowEnd = next != null ? next : Math.max(end, at);
            Long lastBefore = null;
            Long firstAfter = null;
            if (e.opens()) {
                long best = -1;
                for (int i = 0; i + 1 < arrivals.length; i++) {
                    long a = arrivals[i];
                    long b = arrivals[i + 1];
                    if (b > at && (next == null || a < next) && b - a > best) {
                        best = b - a;
                        lastBefore = a;
                        firstAfter = b;
                    }
                }
            }
            long sentIn = 0;
            long lost = 0;
            long reordered = 0;
            long inFlight = 0;
            long[] flightLatency = new long[16];
            int flightReceived = 0;
            long violations = 0;
            boolean judged = guarantee.known();
            long lowest = Long.MAX_VALUE; // earliest receive time of all higher sequences
            for (int i = n - 1; i >= 0; i--) {
                long s = send[i] == Trace.ABSENT ? Trace.ABSENT : send[i] - origin;
                long r = recv[i] == Trace.ABSENT ? Trace.ABSENT : recv[i] - origin;
                if (s != Trace.ABSENT && s >= at && s < windowEnd) {
                    sentIn++;
                    if (r == Trace.ABSENT) {
                        lost++;
                        if (judged && guarantee.confirmed(i)) {
                            violations++;
                        }
                    } else if (r > lowest) {
                        reordered++;
                    }
                }
                if (s != Trace.ABSENT && s < at && (r == Trace.ABSENT || r > at)) {
                    inFlight++;
                    if (r != Trace.ABSENT) {
                        if (flightReceived == flightLatency.length) {
                            flightLatency = Arrays.copyOf(flightLatency, 2 * flightReceived);
                        }
                        flightLatency[flightReceived++] = Math.max(0, recv[i] - intended[i]);
                    }
                }
                if (r != Trace.ABSENT) {
                    lowest = Math.min(lowest, r);
                }
            }
            Double baseRate = null;
            Double baseP99 = null;
            Long rateBack = null;
            Long p99Back = null;
            if (e.baselineNs() != null && e.baselineNs() - WINDOW_NS >= 0) {
                long b0 = e.baselineNs() - WINDOW_NS;
                baseRate = (double) count(arrivals, b0, e.baselineNs()) * 1e9 / WINDOW_NS;
                baseP99 = p99(arrivals, latency, b0, e.baselineNs());
                // a resume's or a restart's recovery is looked for from the end of the outage it ends
                Long outageEnd = e.opens() ? firstAfter : e.opener() == null || e.opener() >= out.size() ? null
                        : out.get(e.opener()).firstAfterNs();
                for (long w = at; w + WINDOW_NS <= end && (rateBack == null || p99Back == null); w += STEP_NS) {
                    if (outageEnd != null && w < outageEnd) {
                        continue; // a second that holds the outage, or the burst that ends it, is not back yet
                    }
                    double rate = (double) count(arrivals, w, w + WINDOW_NS) * 1e9 / WINDOW_NS;
                    if (rateBack == null && Math.abs(rate - baseRate) <= TOLERANCE * baseRate) {
                        rateBack = w + WINDOW_NS - at;
                    }
                    Double p99 = p99(arrivals, latency, w, w + WINDOW_NS);
                    if (p99Back == null && baseP99 != null && p99 != null && p99 <= (1 + TOLERANCE) * baseP99) {
                        p99Back = w + WINDOW_NS - at;
                    }
                }
            }
            out.add(new Figures(e, at - e.plannedNs(), lastBefore, firstAfter, windowEnd, sentIn, lost, reordered,
                    inFlight, flightReceived == 0 ? SeriesStats.empty() : SeriesStats.ofLongs(flightLatency,
                    flightReceived), baseRate, baseP99, rateBack, p99Back, judged ? Long.valueOf(violations) : null));
        }
        return out;
    }

    /**
     * Receive times from the origin, sorted ({@code [0]}), and each one's latency from its intended send time
     * ({@code [1]}), in the same order.
     */
    static long[][] byArrival(long[] recv, long[] intended, int n, long origin) {
        long[] keys = new long[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (recv[i] != Trace.ABSENT && origin != Trace.ABSENT) {
                keys[m++] = i;
            }
        }
        Long[] order = new Long[m];
        for (int k = 0; k < m; k++) {
            order[k] = keys[k];
        }
        Arrays.sort(order, (a, b) -> Long.compare(recv[(int) (long) a], recv[(int) (long) b]));
        long[] t = new long[m];
        long[] lat = new long[m];
        for (int k = 0; k < m; k++) {
            int i = (int) (long) order[k];
            t[k] = recv[i] - origin;
            lat[k] = Math.max(0, recv[i] - intended[i]);
        }
        return new long[][] {t, lat};
    }

    /** Arrivals in {@code [from, to)}. */
    static long count(long[] sorted, long from, long to) {
        return firstAtOrAfter(sorted, sorted.length, to) - firstAtOrAfter(sorted, sorted.length, from);
    }

    /** The first index of {@code a[0..n)} (sorted, never decreasing) whose value is at least {@code key}, or n. */
    public static int firstAtOrAfter(long[] a, int n, long key) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The nearest-rank p99 of latency from the intended send time of the messages received in {@code [from, to)}. */
    static Double p99(long[] arrivals, long[] latency, long from, long to) {
        int a = firstAtOrAfter(arrivals, arrivals.length, from);
        int b = firstAtOrAfter(arrivals, arrivals.length, to);
        return a == b ? null : SeriesStats.ofLongs(Arrays.copyOfRange(latency, a, b), b - a).p99();
    }
}
