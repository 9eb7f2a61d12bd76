package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.agents.AgentPlan;
import io.msgscope.coordinator.agents.CorePlan;
import io.msgscope.coordinator.results.JobOutcome;
import io.msgscope.coordinator.results.JobOutcome.Ending;
import io.msgscope.coordinator.results.LiveMetrics;
import io.msgscope.coordinator.results.ResultsFolder;
import io.msgscope.core.RunSpec;
import io.msgscope.core.driver.Driver;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A trace run from its results folder to its verdict (issue 30: the command parses options and calls this; the walk of
 * a result crosses each package once): the folder reserved with its failed placeholder, the agents planned, the run,
 * the results written through {@link TraceResults} and said by {@link TraceConsole}.
 *
 * @param spec          the checked run spec
 * @param driver        its driver
 * @param brokerCpu     how the broker's CPU is measured
 * @param cores         the pinning plan (its warnings already said)
 * @param agents        the agent plan, opened when the run starts and closed at its end (local agents stopped)
 * @param dir           the results folder, prepared by the command
 * @param relay         the relay's data ports asked (0 = any)
 * @param files         how the files are cut
 * @param verbose       a failed run says its counts and warnings too
 * @param forcePingPong the test-only ping-pong of the relay's clock offset
 * @param saidAtStart   warnings already printed
 * @param faults        the faults the broker-probe agent applies (issue 32); empty for none
 * @param clockLimit    {@code --max-clock-error}: sender and receiver on two boxes warn above it (issue 33 item 3)
 */
public record TraceJob(RunSpec spec, Driver driver, BrokerCpu brokerCpu, CorePlan cores, Supplier<AgentPlan> agents,
                       Path dir, Ports relay, TraceResults.Options files, boolean verbose, boolean forcePingPong,
                       Set<String> saidAtStart, io.msgscope.core.fault.FaultPlan faults,
                       io.msgscope.coordinator.agents.ClockErrorLimit clockLimit) {
    /** The relay's data ports, 0 = any free. */
    public record Ports(int ingress, int egress) {
    }

    /** Where what a failed run would log goes without --verbose. */
    private static final PrintStream QUIET = new PrintStream(java.io.OutputStream.nullOutputStream());

    /** Runs, writes and says the result; {@code interrupts} installs Ctrl-C's handler around the measurement. */
    public JobOutcome run(PrintWriter out, PrintStream log, String runId, LiveMetrics metrics,
                          io.msgscope.coordinator.results.Signals interrupts)
            throws Exception {
        String startedAt = Instant.now().toString();
        long startEpochMs = System.currentTimeMillis();
        // summary.json first, as a failed placeholder: a crash, a kill or a full disk from here on leaves it (issue 16)
        ResultsFolder folder = ResultsFolder.reserveOrSay(dir, "trace", runId, startedAt, out);
        if (folder == null) {
            return JobOutcome.unwritten(Ending.FAILED, null);
        }
        TraceResult outcome;
        try (AgentPlan plan = agents.get()) {
            TraceRun.Endpoints endpoints;
            try {
                endpoints = TraceRun.Endpoints.of(plan, driver.usesRelay(spec.driverOptions()),
                        brokerCpu.mode() == BrokerCpu.Mode.SIDECAR);
            } catch (IOException e) {
                outcome = TraceRun.notStarted(spec, runId, "cannot start the agents: " + e.getMessage());
                return finish(out, log, outcome, startedAt, startEpochMs, folder);
            }
            TraceRun run = new TraceRun(spec, brokerCpu, cores, relay.ingress(), relay.egress(), log)
                    .credentials(plan.credentials()).verbose(verbose).forcePingPong(forcePingPong).metrics(metrics)
                    .faults(faults).clockLimit(clockLimit);
            try (AutoCloseable signals = interrupts.install(run::interrupt)) {
                outcome = run.run(endpoints, runId);
            }
        }
        return finish(out, log, outcome, startedAt, startEpochMs, folder);
    }

    private JobOutcome finish(PrintWriter out, PrintStream log, TraceResult outcome, String startedAt, long startEpochMs,
                           ResultsFolder folder) throws IOException {
        if (outcome.failed() && outcome.failure().usage()) {
            // bad input an agent found (e.g. --opt port taken): one line, exit 2, and no results folder (issue 29)
            return JobOutcome.unwritten(Ending.USAGE, outcome.failureReason());
        }
        // the analysis timing of a failed run only with --verbose
        PrintStream analysisLog = outcome.failed() && !outcome.interrupted() && !verbose ? QUIET : log;
        TraceReport written;
        try {
            written = TraceResults.write(dir, folder, outcome, brokerCpu, files, startedAt, startEpochMs, analysisLog);
        } catch (TraceResults.NotWritten e) {
            folder.sayFailed(e.failure(), e.known(), out);
            return JobOutcome.unwritten(Ending.FAILED, null);
        }
        TraceConsole.print(out, written, saidAtStart, dir, verbose);
        TraceResult judged = written.result();
        Ending ending = judged.interrupted() ? Ending.INTERRUPTED : !judged.failed() ? Ending.OK
                : judged.failure().usage() ? Ending.USAGE : Ending.FAILED;
        return JobOutcome.written(ending);
    }
}
