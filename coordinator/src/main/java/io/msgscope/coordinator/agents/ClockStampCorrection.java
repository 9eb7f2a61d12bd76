package io.msgscope.coordinator.agents;

import io.msgscope.core.clock.OffsetFit;

/**
 * A sender's monotonic stamps moved onto its receiver's clock, message by message (issue 33 item 3). The fit is the
 * offset sender − receiver on the receiver's clock ({@link ClockTracker#monotonic}); a send stamp O_n becomes
 * O_n − offset(t_n), t_n the message's receive stamp I_n (the latency I_n − O_n then gains the offset: the true
 * latency when the offset is right), or for a message that never arrived its own send time on the receiver's clock.
 * The bound at t is the fit's ({@link OffsetFit#errorAt}: half the best round trip plus the segment's residual, or
 * the segment's envelope where wider) plus, between the two probes either side of a step, the step's size: there the
 * fit cannot tell on which side of the step a message lies.
 */
public final class ClockStampCorrection {
    /** Marks a missing stamp in the trace's arrays. */
    static final long ABSENT = Long.MIN_VALUE;

    private final OffsetFit fit;

    /** The correction by {@code fit}. */
    public ClockStampCorrection(OffsetFit fit) {
        this.fit = fit;
    }

    /** The offset sender − receiver at receiver time {@code recvNs}, ns. */
    public double offsetAt(long recvNs) {
        return fit.offsetAt(recvNs);
    }

    /** The receiver's time when the sender's clock read {@code senderNs} (the offset there found in two passes). */
    public long receiverTimeOf(long senderNs) {
        long t = senderNs - Math.round(fit.offsetAt(fit.segments().get(0).fromNs()));
        t = senderNs - Math.round(fit.offsetAt(t));
        return senderNs - Math.round(fit.offsetAt(t));
    }

    /** The bound on {@link #offsetAt} at {@code recvNs}: the fit's, plus a step's size between the probes around it. */
    public double errorAt(long recvNs) {
        double e = fit.errorAt(recvNs);
        for (int k = 0; k < fit.steps().size(); k++) {
            if (recvNs > fit.segments().get(k).toNs() && recvNs < fit.segments().get(k + 1).fromNs()) {
                e += Math.abs(fit.steps().get(k).sizeNs());
            }
        }
        return e;
    }

    /** What moving a trace's stamps did: the widest bound over the messages that arrived, and how many moved. */
    public record Moved(double errorBoundNs, long messages) {
    }

    /**
     * Moves {@code sendNs} (and, index for index, {@code intendedNs} when not null) onto the receiver's clock in place,
     * each message by the offset at its arrival {@code recvNs} (or at its own time when it did not arrive); absent
     * stamps stay absent.
     */
    public Moved moveSends(long[] sendNs, long[] intendedNs, long[] recvNs) {
        double bound = 0;
        long moved = 0;
        for (int i = 0; i < sendNs.length; i++) {
            long at = recvNs[i] != ABSENT ? recvNs[i] : sendNs[i] != ABSENT ? receiverTimeOf(sendNs[i])
                    : intendedNs != null && intendedNs[i] != ABSENT ? receiverTimeOf(intendedNs[i]) : ABSENT;
            if (at == ABSENT) {
                continue;
            }
            long by = Math.round(fit.offsetAt(at));
            if (sendNs[i] != ABSENT) {
                sendNs[i] -= by;
                moved++;
            }
            if (intendedNs != null && intendedNs[i] != ABSENT) {
                intendedNs[i] -= by;
            }
            if (recvNs[i] != ABSENT && sendNs[i] != ABSENT) {
                bound = Math.max(bound, errorAt(recvNs[i]));
            }
        }
        return new Moved(bound, moved);
    }

    /** Moves times the sender took by its own clock (its CPU samples) onto the receiver's, in place. */
    public void moveSenderTimes(long[] times) {
        for (int i = 0; i < times.length; i++) {
            if (times[i] != ABSENT) {
                times[i] -= Math.round(fit.offsetAt(receiverTimeOf(times[i])));
            }
        }
    }
}
