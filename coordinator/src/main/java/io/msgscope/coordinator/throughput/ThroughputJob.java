package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.agents.AgentEndpoint;
import io.msgscope.coordinator.agents.AgentPlan;
import io.msgscope.coordinator.agents.CorePlan;
import io.msgscope.coordinator.results.JobOutcome;
import io.msgscope.coordinator.results.JobOutcome.Ending;
import io.msgscope.coordinator.results.LiveMetrics;
import io.msgscope.coordinator.results.ResultsFolder;
import io.msgscope.coordinator.results.Signals;
import io.msgscope.core.RunSpec;
import io.msgscope.core.driver.Driver;
import io.msgscope.proto.Role;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A throughput run from its results folder to its verdict (issue 30, as {@code trace.TraceJob}): the folder reserved,
 * the flow client (and the relay) planned, the search or the fixed-F measurement, the results written through
 * {@link ThroughputResults} and said by {@link ThroughputConsole}.
 *
 * @param spec     the checked spec (message, driver)
 * @param driver   its driver
 * @param settings the search's settings
 * @param given    the options as given, for the results
 * @param cores    the pinning plan
 * @param agents   the agent plan, opened at the start and closed at the end
 * @param dir      the results folder, prepared by the command
 */
public record ThroughputJob(RunSpec spec, Driver driver, ThroughputRun.Settings settings, ThroughputResults.Given given,
                            CorePlan cores, Supplier<AgentPlan> agents, Path dir) {

    /**
     * Runs, writes and says the result; {@code metrics} (or null) follows the probes; {@code interrupts} installs
     * Ctrl-C's handler around the run (issue 29: the run stops and what was measured is written, interrupted).
     */
    public JobOutcome run(PrintWriter out, PrintStream log, LiveMetrics metrics, Signals interrupts) throws IOException {
        String startedAt = Instant.now().toString();
        ResultsFolder folder = ResultsFolder.reserveOrSay(dir, "throughput", dir.getFileName().toString(), startedAt,
                out);
        if (folder == null) {
            return JobOutcome.unwritten(Ending.FAILED, null);
        }
        long f = given.requestedInFlight();
        if (metrics != null) {
            metrics.phase(f == 0 ? "search" : "measurement");
        }
        ThroughputRun.Outcome o;
        try (AgentPlan plan = agents.get()) {
            AgentEndpoint relay;
            AgentEndpoint flow;
            try {
                boolean relayed = driver.usesRelay(spec.driverOptions());
                plan.prepare(relayed ? List.of(Role.RELAY, Role.FLOW) : List.of(Role.FLOW));
                relay = relayed ? plan.agent(Role.RELAY) : null;
                flow = plan.agent(Role.FLOW);
            } catch (IOException e) {
                o = ThroughputRun.Outcome.failed("cannot start the agents: " + e.getMessage(), "set-up");
                return finish(out, o, startedAt, folder);
            }
            ThroughputConsole.start(out, given.warmupMs(), given.warmupMessages(), f);
            ThroughputRun run = new ThroughputRun(spec, settings, cores, log).credentials(plan.credentials());
            try (AutoCloseable signals = interrupts.install(run::interrupt)) {
                o = run.run(flow, relay, f, ThroughputConsole.progress(out, f, given.maxProbes(), metrics));
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
        return finish(out, o, startedAt, folder);
    }

    private JobOutcome finish(PrintWriter out, ThroughputRun.Outcome o, String startedAt, ResultsFolder folder)
            throws IOException {
        try {
            ThroughputResults.write(dir, folder, spec, given, o, startedAt);
        } catch (ResultsFolder.WriteFailed e) {
            folder.sayFailed(e, Map.of("measurement_failure", String.valueOf(o.failure())), out);
            return JobOutcome.unwritten(Ending.FAILED, null);
        }
        ThroughputConsole.print(out, spec.driver(), given, o, dir);
        return JobOutcome.written(o.interruption() != null ? Ending.INTERRUPTED : o.failure() == null ? Ending.OK
                : o.usageFailure() ? Ending.USAGE : Ending.FAILED);
    }
}
