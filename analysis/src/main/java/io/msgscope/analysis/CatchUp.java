package io.msgscope.analysis;

/**
 * When the latency is back after a backlog (issue 31 item 3), in trace mode and scenario mode alike: the messages
 * scheduled after the paused phases fall into consecutive windows, and the run is caught up from the first window
 * from which on every window's median latency from the intended send time is within L, the p99 of the phase before
 * the pause. A median, not "every message": L is a p99, so in steady state 1 % of the messages lie above it by
 * definition, and a rule that asks every later message to be within L is met only near the end of the run. The median
 * says where the bulk of a window's messages lie; it is within L as soon as the backlog no longer delays them.
 *
 * <p>Trace mode's windows are {@link #WINDOW_NS} of intended send time from the resume, each window's median from its
 * messages (a lost one counted above L); scenario mode's are its poll windows, each median from the window's histogram
 * of deliveries. The strict figure, when the last message above L arrived, is {@link #lastAboveBound}.
 */
public final class CatchUp {
    /** Trace mode's windows: 100 ms of intended send time each, from the resume. */
    public static final long WINDOW_NS = 100_000_000L;

    private CatchUp() {
    }

    /**
     * The first window from which on every window with messages is within the bound: {@code within[k]} TRUE when
     * window k's median is within L, FALSE when above, null when the window holds no message (skipped); -1 when the
     * last window with messages is above L, or none has any.
     */
    static int firstCaughtUp(Boolean[] within) {
        int first = -1;
        for (int k = within.length - 1; k >= 0; k--) {
            if (within[k] == null) {
                continue;
            }
            if (!within[k]) {
                break;
            }
            first = k;
        }
        return first;
    }

    /**
     * Whether a window's median is within L: the nearest-rank median (the value at rank ⌈n/2⌉ of its n messages in
     * order) is within L exactly when at least half of them are.
     */
    static boolean medianWithin(long within, long messages) {
        return 2 * within >= messages;
    }

    /**
     * Trace mode's time to catch up: the messages {@code [from, to)} (those scheduled after the paused phases, each
     * sent; an unsent one has no latency and is left out) in windows of {@link #WINDOW_NS} of intended time from
     * {@code resume}; the first arrival of the first caught-up window ({@link #firstCaughtUp}) less the resume, at
     * least 0; null when no window is caught up or none holds a message.
     */
    static Long fromTrace(long[] intended, long[] send, long[] recv, int from, int to, double bound, long resume) {
        int windows = 0;
        for (int i = from; i < to; i++) {
            if (counts(intended, send, i)) {
                windows = Math.max(windows, window(intended[i], resume) + 1);
            }
        }
        long[] messages = new long[windows];
        long[] within = new long[windows];
        long[] firstArrival = new long[windows];
        java.util.Arrays.fill(firstArrival, Long.MAX_VALUE);
        for (int i = from; i < to; i++) {
            if (!counts(intended, send, i)) {
                continue;
            }
            int w = window(intended[i], resume);
            messages[w]++;
            if (recv[i] != Trace.ABSENT) {
                firstArrival[w] = Math.min(firstArrival[w], recv[i]);
                within[w] += recv[i] - intended[i] <= bound ? 1 : 0;
            }
        }
        Boolean[] ok = new Boolean[windows];
        for (int w = 0; w < windows; w++) {
            ok[w] = messages[w] == 0 ? null : medianWithin(within[w], messages[w]);
        }
        int first = firstCaughtUp(ok);
        return first < 0 ? null : Math.max(0, firstArrival[first] - resume);
    }

    /**
     * The strict figure: the latest arrival, less {@code resume} (at least 0), of the messages {@code [from, to)} whose
     * latency from the intended time exceeded the bound; 0 when none did; null when one of them was lost (its arrival
     * would be never) or none was sent.
     */
    static Long lastAboveBound(long[] intended, long[] send, long[] recv, int from, int to, double bound,
                               long resume) {
        long last = Long.MIN_VALUE;
        boolean any = false;
        for (int i = from; i < to; i++) {
            if (!counts(intended, send, i)) {
                continue;
            }
            any = true;
            if (recv[i] == Trace.ABSENT) {
                return null;
            }
            if (recv[i] - intended[i] > bound) {
                last = Math.max(last, recv[i]);
            }
        }
        if (!any) {
            return null;
        }
        return last == Long.MIN_VALUE ? 0L : Math.max(0, last - resume);
    }

    /** A message counts when it was scheduled (has an intended time) and sent. */
    private static boolean counts(long[] intended, long[] send, int i) {
        return intended[i] != Trace.ABSENT && send[i] != Trace.ABSENT;
    }

    /** The window of an intended time: 100 ms steps from the resume; one scheduled before it (none should be) in 0. */
    private static int window(long intendedNs, long resume) {
        long w = Math.max(0, intendedNs - resume) / WINDOW_NS;
        return (int) Math.min(w, Integer.MAX_VALUE - 8);
    }
}
