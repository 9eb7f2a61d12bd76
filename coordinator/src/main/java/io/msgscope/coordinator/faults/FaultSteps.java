package io.msgscope.coordinator.faults;

import io.msgscope.core.fault.FaultPlan;
import io.msgscope.core.fault.FaultStep;

import java.util.List;

/** A fault plan as the probe agent's run spec carries it (issue 32). */
public final class FaultSteps {
    private FaultSteps() {
    }

    public static List<io.msgscope.proto.FaultStep> toProto(FaultPlan plan) {
        return plan.steps().stream().map((FaultStep s) -> io.msgscope.proto.FaultStep.newBuilder().setAtNs(s.atNs())
                .setAction(s.action().label()).setTarget(s.target()).setArg(s.arg()).build()).toList();
    }
}
