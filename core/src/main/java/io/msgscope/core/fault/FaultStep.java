package io.msgscope.core.fault;

/**
 * One planned fault: {@code action} on {@code target} at {@code atNs} on the run's clock (ns from the measurement's
 * origin, the intended send time of its first message); {@code arg} is the action's setting ({@code rate=1mbit} for
 * degrade), empty for the others.
 */
public record FaultStep(long atNs, FaultAction action, String target, String arg) {
    public FaultStep {
        if (atNs < 0 || action == null || target == null || target.isEmpty() || arg == null) {
            throw new IllegalArgumentException("bad fault step " + atNs + " " + action + " " + target + " " + arg);
        }
    }

    public FaultStep(long atNs, FaultAction action, String target) {
        this(atNs, action, target, "");
    }

    /** {@code 10s:pause:node1}, {@code 1.5s:resume:node1}, {@code 2s:degrade:node2:rate=1mbit}: the shorthand's form. */
    public String label() {
        return FaultPlan.duration(atNs) + ":" + action.label() + ":" + target + (arg.isEmpty() ? "" : ":" + arg);
    }
}
