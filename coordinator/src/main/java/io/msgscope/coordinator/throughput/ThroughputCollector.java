package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.agents.AgentInfo;
import io.msgscope.proto.FlowResult;

import java.util.ArrayList;
import java.util.List;

/**
 * What a throughput run gathers while it runs (issue 30): each probe as it is answered, the search, the final
 * measurement, the warnings and notes, and how it failed. Only {@link ThroughputRun} fills it; at the end it becomes
 * the immutable {@link ThroughputRun.Outcome} the result and its writers read.
 */
final class ThroughputCollector {
    final List<ThroughputRun.Probed> probes = new ArrayList<>();
    long finalAnsweredEpochMs;
    FSearch.Result search;
    String searchMethod;
    FlowResult warmup;
    FlowResult finalResult;
    ThroughputStats finalStats;
    AgentInfo flowAgent;
    String destination = "";
    String failure;
    String failedDuring;
    boolean usageFailure;
    final List<String> warnings = new ArrayList<>();
    final List<String> notes = new ArrayList<>();
    /** The signal that interrupted the run and the stage it cut (issue 29); null when none did. */
    String interruptedBy;
    String interruptedDuring;
    /** A final measurement cut short: the samples it was to take (0 when it was not cut). */
    int finalSamplesAsked;
    long finalInFlight;

    /** The run was interrupted by {@code signal} during {@code stage}; what was measured so far is kept. */
    void interrupted(String signal, String stage) {
        if (interruptedBy == null) {
            interruptedBy = signal;
            interruptedDuring = stage;
        }
    }

    /** The final measurement cut short by the interruption: kept when it took a sample. */
    void finalCut(FlowResult cut, int asked) {
        finalSamplesAsked = asked;
        finalInFlight = cut.getInFlight();
        if (cut.getSamplesCount() > 0) {
            finalResult = cut;
            finalStats = ThroughputStats.of(cut);
        }
    }

    /** How far an interrupted run got, one line: summary.json's failure reason. */
    String interruptedReason() {
        return Interruption.of(this).reason();
    }

    /** One probe of the search, answered at {@code answeredEpochMs} (the coordinator's clock). */
    void probed(ThroughputStats stats, String phase, long answeredEpochMs) {
        probes.add(new ThroughputRun.Probed(stats, phase, answeredEpochMs));
    }

    ThroughputRun.Outcome outcome() {
        return new ThroughputRun.Outcome(probes, finalAnsweredEpochMs, search, searchMethod, warmup, finalResult,
                finalStats, flowAgent, destination, failure, failedDuring, usageFailure, warnings, notes,
                Interruption.of(this));
    }
}
