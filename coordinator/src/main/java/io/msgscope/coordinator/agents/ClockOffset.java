package io.msgscope.coordinator.agents;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlHub;
import io.msgscope.proto.ClockProbe;
import io.msgscope.proto.Envelope;

/**
 * Clock offset between an agent's monotonic clock and the coordinator's, by ping-pong over the
 * control channel (R1): the coordinator stamps t0, the agent its own t_a, the coordinator t1 on
 * return; offset = t_a − (t0 + t1)/2 with error bound (t1 − t0)/2, taking the round with the
 * smallest round trip. Offsets of two agents subtract to the offset between their boxes, with the
 * bounds added.
 *
 * @param offsetNs agent clock − coordinator clock
 * @param errorNs  the bound: the true offset lies within offsetNs ± errorNs
 */
public record ClockOffset(long offsetNs, long errorNs, int rounds) {

    public static ClockOffset measure(ControlHub hub, AgentLink link, int rounds) throws AgentFailure {
        return measure(hub, link, rounds, false);
    }

    /**
     * The offset of the agent's epoch clock (the one its payload stamps carry, Q1) relative to the
     * coordinator's monotonic clock: two such offsets subtract to the offset between two agents' epoch
     * stamps, which is what cross-host latency compares (R1).
     */
    public static ClockOffset measureEpoch(ControlHub hub, AgentLink link, int rounds) throws AgentFailure {
        return measure(hub, link, rounds, true);
    }

    private static ClockOffset measure(ControlHub hub, AgentLink link, int rounds, boolean epoch) throws AgentFailure {
        Probe best = probe(hub, link, rounds, epoch);
        return new ClockOffset(best.offsetNs(), (best.rttNs() + 1) / 2, rounds);
    }

    /**
     * One ping-pong's result: at {@code atNs} (the coordinator's monotonic clock, midway through the round trip) the
     * agent's clock was {@code offsetNs} ahead of the coordinator's; the round trip took {@code rttNs}.
     */
    public record Probe(long atNs, long offsetNs, long rttNs) {
    }

    /** The round with the smallest round trip of {@code rounds} ping-pongs (the epoch clock when {@code epoch}). */
    public static Probe probe(ControlHub hub, AgentLink link, int rounds, boolean epoch) throws AgentFailure {
        Probe best = null;
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            link.send(Envelope.newBuilder().setClockProbe(ClockProbe.newBuilder().setCoordinatorNs(t0)).build());
            ClockProbe back = hub.await(link, 5_000, "the clock-offset ping-pong", Envelope.BodyCase.CLOCK_PROBE)
                    .getClockProbe();
            long t1 = System.nanoTime();
            long rtt = t1 - back.getCoordinatorNs();
            if (best == null || rtt < best.rttNs()) {
                long mid = back.getCoordinatorNs() + rtt / 2;
                best = new Probe(mid, (epoch ? back.getAgentEpochNs() : back.getAgentNs()) - mid, rtt);
            }
        }
        return best;
    }

    /** The offset of clock A relative to clock B (A − B), both measured against the coordinator. */
    public static ClockOffset between(ClockOffset a, ClockOffset b) {
        return new ClockOffset(a.offsetNs - b.offsetNs, a.errorNs + b.errorNs, Math.min(a.rounds, b.rounds));
    }
}
