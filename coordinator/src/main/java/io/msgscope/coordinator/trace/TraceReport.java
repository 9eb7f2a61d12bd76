package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.faults.FaultSection;
import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.TraceFileCheck;
import io.msgscope.core.EnvironmentInfo;

import java.util.Objects;

/**
 * Trace mode's result as its writers read it (issue 30: one immutable result, one writer per format): the run as
 * judged, its analysis, and the parts summary.json and the other files are made of, each built once. {@link
 * TraceResults} builds it and hands it to the writers; {@link SummaryJson} writes it last.
 *
 * @param result       the run, with the coordinator's verdict (a loss, a duplicate, a missed rate, the self-check)
 * @param analysis     the analysis of its traces (M1-M12)
 * @param topology     who talks to whom, in the driver's words ({@link io.msgscope.core.driver.Driver#topology})
 * @param cpu          CPU and network per message (M3, M4); empty with sampling off
 * @param distribution the latency distribution and its peaks (M8, M11); null when they were not looked at (the
 *                     summary then has neither section)
 * @param fileCheck    trace.dat read back (M12), null until it is written and checked
 * @param environment  the coordinator's machine
 * @param startedAt    when the run started, ISO-8601 UTC
 * @param phases       each load phase's figures (issue 31), null for a run at one rate
 * @param faults       each fault's figures (issue 32), null for a run without faults
 */
public record TraceReport(TraceResult result, AnalysisResult analysis, String topology, CpuReport cpu,
                          DistributionReport distribution, TraceFileCheck fileCheck, EnvironmentInfo environment,
                          String startedAt, PhaseSection phases, FaultSection faults) {
    public TraceReport {
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(analysis, "analysis");
        Objects.requireNonNull(topology, "topology");
        Objects.requireNonNull(cpu, "cpu");
        Objects.requireNonNull(environment, "environment");
    }

    /** This report with trace.dat's check, which fails a run that had not failed otherwise. */
    TraceReport checked(TraceFileCheck check) {
        return new TraceReport(TraceVerdict.selfChecked(result, check), analysis, topology, cpu, distribution, check,
                environment, startedAt, phases, faults);
    }

    /** The M12 identity holds on the recorded arrays and, once it is checked, on trace.dat as written. */
    public boolean identityHolds() {
        return analysis.identity().holds() && (fileCheck == null || fileCheck.holds());
    }
}
