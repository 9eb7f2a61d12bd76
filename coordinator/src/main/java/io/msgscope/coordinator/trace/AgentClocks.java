package io.msgscope.coordinator.trace;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlHub;
import io.msgscope.coordinator.agents.ClockOffset;

/**
 * How the sidecar probe's clock relates to the receiver's: exactly 0 when their boot ids say one box
 * ({@link io.msgscope.coordinator.agents.ClockTracker#sameBox}), else measured by ping-pong. (Sender and receiver on
 * two boxes are followed through the run instead, {@link TraceClocks}.)
 */
final class AgentClocks {
    /** Ping-pong rounds per offset measurement (the one with the least round trip counts). */
    static final int CLOCK_ROUNDS = 32;

    private AgentClocks() {
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
