package io.msgscope.coordinator.faults;

import io.msgscope.core.fault.FaultAction;
import io.msgscope.core.fault.FaultPlan;
import io.msgscope.core.fault.FaultStep;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
     * @param doneNs    when that call returned, on the trace's clock; null when unknown (a restart command still
     *                  running when the run ended)
     * @param pid       the process signalled (0 for restart)
     * @param error     why it failed, empty when it was applied
     */
    public record Applied(FaultStep step, long appliedNs, Long doneNs, long pid, String error) {
    }

    /** The probe's report, its stamps moved by {@code probeMinusReceiverNs} onto the receiver's clock. */
    public static FaultLog of(FaultPlan plan, List<io.msgscope.proto.FaultApplied> reported,
                              long probeMinusReceiverNs) {
        List<Applied> out = new ArrayList<>();
        for (io.msgscope.proto.FaultApplied a : reported) {
            FaultAction action = FaultAction.of(a.getStep().getAction());
            out.add(new Applied(new FaultStep(a.getStep().getAtNs(), action, a.getStep().getTarget(), a.getStep().getArg()),
                    a.getAppliedNs() - probeMinusReceiverNs,
                    a.getDoneNs() == 0 ? null : a.getDoneNs() - probeMinusReceiverNs, a.getPid(),
                    a.getError()));
        }
        return new FaultLog(plan, out);
    }

    public boolean isEmpty() {
        return plan.isEmpty();
    }

    /** What the probe reported for {@code step}; null when it did not apply it (the run ended first). */
    public Applied applied(FaultStep step) {
        for (Applied a : applied) {
            if (a.step().equals(step)) {
                return a;
            }
        }
        return null;
    }

    /**
     * One planned step as both modes' figures read it (trace mode's {@code FaultSection}, scenario mode's bucket
     * figures).
     *
     * @param step       the planned step
     * @param applied    what the probe reported; null when the run ended first
     * @param atNs       when it was applied, ns from the origin; null when not applied, failed, or the origin unknown
     * @param opens      whether it opens an outage of its own (kill, pause, partition, degrade, and a restart of a
     *                   running target) rather than ending one (resume, heal, and a restart of a killed target)
     * @param baselineNs where its baseline second ends, ns from the origin: its own time when it opens, else the
     *                   time of the step that opened its target's outage (a resume's pause, a restart's kill); null
     *                   when unknown
     * @param opener     for one that ends an outage, the index of the step that opened it; else null
     */
    public record Step(FaultStep step, Applied applied, Long atNs, boolean opens, Long baselineNs, Integer opener) {
    }

    /**
     * The plan's steps in order, read against what was applied, their times from {@code originNs} (the probe's clock
     * as reported; null when the origin is unknown: every {@code atNs} null). A restart after a kill of the same
     * target ends the kill's outage, as a resume ends a pause: the second before it lies in the outage, so it is
     * compared with the second before the kill, and the outage is the kill's alone.
     */
    public List<Step> steps(Long originNs) {
        List<Step> out = new ArrayList<>();
        Map<String, Integer> openedBy = new HashMap<>(); // target -> the index of the step that opened its outage
        for (FaultStep s : plan.steps()) {
            Applied a = applied(s);
            Long at = a == null || !a.error().isEmpty() || originNs == null ? null : a.appliedNs() - originNs;
            Integer opener = openedBy.get(s.target());
            boolean opens = !s.action().undoes() && !(s.action() == FaultAction.RESTART && opener != null
                    && out.get(opener).step().action() == FaultAction.KILL);
            if (opens) {
                openedBy.put(s.target(), out.size());
            } else {
                openedBy.remove(s.target()); // a second restart of a target running again opens its own
            }
            out.add(new Step(s, a, at, opens, opens ? at : opener == null ? null : out.get(opener).atNs(),
                    opens ? null : opener));
        }
        return out;
    }
}
