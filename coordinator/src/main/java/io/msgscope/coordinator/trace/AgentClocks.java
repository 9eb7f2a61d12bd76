package io.msgscope.coordinator.trace;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlHub;
import io.msgscope.coordinator.agents.ClockOffset;

/**
 * Where a trace run's agents run, told by their boot ids, and how their clocks relate: M1 subtracts the sender's and
 * the receiver's clocks, so they must share one box; the sidecar probe may run elsewhere, its offset measured.
 */
final class AgentClocks {
    /** Ping-pong rounds per offset measurement (the one with the least round trip counts). */
    static final int CLOCK_ROUNDS = 32;

    private AgentClocks() {
    }

    /** True only when both boot ids are known and differ (unknown ids cannot prove a split). */
    static boolean differentBoxes(AgentLink a, AgentLink b) {
        String ia = a.helloAck().getEnvironment().getBootId();
        String ib = b.helloAck().getEnvironment().getBootId();
        return !ia.isEmpty() && !ib.isEmpty() && !ia.equals(ib);
    }

    /** True only when both boot ids are known and equal: one CLOCK_MONOTONIC. */
    static boolean sameBox(AgentLink a, AgentLink b) {
        String ia = a.helloAck().getEnvironment().getBootId();
        return !ia.isEmpty() && ia.equals(b.helloAck().getEnvironment().getBootId());
    }

    /** Probe clock − receiver clock: exactly 0 on one box (one CLOCK_MONOTONIC), else by ping-pong. */
    static ClockOffset offset(ControlHub hub, AgentLink probe, AgentLink receiver, boolean sameBox)
            throws AgentFailure {
        if (sameBox) {
            return new ClockOffset(0, 0, 0);
        }
        return ClockOffset.between(ClockOffset.measure(hub, probe, CLOCK_ROUNDS),
                ClockOffset.measure(hub, receiver, CLOCK_ROUNDS));
    }
}
