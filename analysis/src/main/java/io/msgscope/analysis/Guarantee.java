package io.msgscope.analysis;

import java.util.Arrays;

/**
 * What the run's settings guarantee about delivery (issue 32 item 3), as the publisher reported it: whether the system
 * under test confirms messages at all (a JetStream publish ack, a publisher confirm, a PUBACK), and which measured
 * sequences it never confirmed. A message lost (sent, never received) that the system had confirmed is a
 * <b>guarantee violation</b>; a lost unconfirmed one is loss the guarantee allows.
 *
 * @param confirms    whether the settings confirm messages; false: no guarantee (core NATS, QoS 0), violations null
 * @param unconfirmed the never-confirmed sequences as sorted {@code [from, to)} pairs; null when the publisher could
 *                    not hand them over (too many ranges): violations unknown, null
 */
public record Guarantee(boolean confirms, long[] unconfirmed) {
    /** Settings that confirm nothing. */
    public static final Guarantee NONE = new Guarantee(false, null);

    /** Whether violations can be counted: the settings confirm and the unconfirmed sequences are known. */
    public boolean known() {
        return confirms && unconfirmed != null;
    }

    /** Whether {@code seq} was confirmed (only meaningful when {@link #known}). */
    public boolean confirmed(long seq) {
        // the last pair whose start is at most seq
        int lo = 0;
        int hi = unconfirmed.length / 2;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (unconfirmed[2 * mid] <= seq) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo == 0 || seq >= unconfirmed[2 * (lo - 1) + 1];
    }

    /**
     * Confirmed messages among {@code [from, to)} that were sent and never received, or null when not {@link #known}.
     */
    public Long violations(Trace trace, int from, int to) {
        if (!known()) {
            return null;
        }
        long[] send = trace.sendNs();
        long[] recv = trace.recvNs();
        long v = 0;
        for (int i = from; i < to; i++) {
            if (send[i] != Trace.ABSENT && recv[i] == Trace.ABSENT && confirmed(i)) {
                v++;
            }
        }
        return v;
    }

    /** The whole run's violations, or null. */
    public Long violations(Trace trace) {
        return violations(trace, 0, trace.size());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Guarantee g && g.confirms == confirms && Arrays.equals(g.unconfirmed, unconfirmed);
    }

    @Override
    public int hashCode() {
        return Boolean.hashCode(confirms) * 31 + Arrays.hashCode(unconfirmed);
    }

    @Override
    public String toString() {
        return "Guarantee[confirms=" + confirms + ", unconfirmed=" + Arrays.toString(unconfirmed) + "]";
    }
}
