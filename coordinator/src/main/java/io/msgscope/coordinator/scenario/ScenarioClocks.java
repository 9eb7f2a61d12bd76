package io.msgscope.coordinator.scenario;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlHub;
import io.msgscope.coordinator.agents.ClockErrorLimit;
import io.msgscope.coordinator.agents.ClockOffset;
import io.msgscope.coordinator.agents.ClockTracker;

/**
 * A scenario's clocks (R1, issue 33). Latency subtracts the publishers' epoch stamps (Q1) from the subscribers' clock.
 * On one box both read one CLOCK_MONOTONIC; across boxes the run is marked cross-host, each agent's epoch-clock offset
 * to the first subscribers agent is measured at set-up by min-RTT ping-pong (clock_offsets_to_subscribers), and every
 * cross-host publishers → subscribers pair is then followed through the warm-up and the measurement by a
 * {@link ClockTracker}, which the summary's correction reads ({@link ScenarioClockFigures}).
 */
final class ScenarioClocks {
    private ScenarioClocks() {
    }

    /** Set-up: marks the run cross-host or not, measures the offsets, returns the tracker (idle on one box). */
    static ClockTracker setUp(ScenarioCollector o, ControlHub hub, ScenarioLinks links, ClockErrorLimit limit)
            throws AgentFailure {
        String ref = links.subs.get(0).helloAck().getEnvironment().getBootId();
        for (AgentLink l : links.all()) {
            String b = l.helloAck().getEnvironment().getBootId();
            if (ref.isEmpty() || b.isEmpty() || !b.equals(ref)) {
                o.crossHost = true;
            }
        }
        ClockTracker tracker = new ClockTracker(hub, links.pubs, links.subs, limit);
        o.clockTracker = tracker;
        if (!o.crossHost) {
            return tracker;
        }
        ClockOffset base = ClockOffset.measureEpoch(hub, links.subs.get(0), 16);
        for (AgentLink l : links.all()) {
            if (l != links.subs.get(0)) {
                o.clockOffsets.put(l.name(), ClockOffset.between(ClockOffset.measureEpoch(hub, l, 16), base));
            }
        }
        return tracker;
    }
}
