package io.msgscope.coordinator.faults;

import io.msgscope.core.fault.FaultAction;
import io.msgscope.core.fault.FaultPlan;
import io.msgscope.core.fault.FaultStep;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A run's faults (issue 32): as planned, and as the broker-probe agent reported applying them, its stamps already on
 * the receiver's clock (the trace's).
 *
 * @param plan    the faults asked for; empty when none
 * @param applied each fault the agent applied, in plan order; fewer than planned when the run ended first
 */
public record FaultLog(FaultPlan plan, List<Applied> applied) {
    public static final FaultLog NONE = new FaultLog(new FaultPlan(List.of()), List.of());

    public FaultLog {
        Objects.requireNonNull(plan, "plan");
        applied = List.copyOf(applied);
    }

    /**
     * One fault as applied.
     *
     * @param step      the planned step
     * @param appliedNs when the signal was sent or the command started, on the trace's clock (monotonic ns)
     * @param doneNs    when that call returned, on the trace's clock
     * @param pid       the process signalled (0 for restart)
     * @param error     why it failed, empty when it was applied
     */
    public record Applied(FaultStep step, long appliedNs, long doneNs, long pid, String error) {
    }

    /** The probe's report, its stamps moved by {@code probeMinusReceiverNs} onto the receiver's clock. */
    public static FaultLog of(FaultPlan plan, List<io.msgscope.proto.FaultApplied> reported,
                              long probeMinusReceiverNs) {
        List<Applied> out = new ArrayList<>();
        for (io.msgscope.proto.FaultApplied a : reported) {
            FaultAction action = FaultAction.of(a.getStep().getAction());
            out.add(new Applied(new FaultStep(a.getStep().getAtNs(), action, a.getStep().getTarget(), a.getStep().getArg()),
                    a.getAppliedNs() - probeMinusReceiverNs, a.getDoneNs() - probeMinusReceiverNs, a.getPid(),
                    a.getError()));
        }
        return new FaultLog(plan, out);
    }

    public boolean isEmpty() {
        return plan.isEmpty();
    }
}
