package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.agents.AgentPlan;
import io.msgscope.coordinator.results.JobOutcome;
import io.msgscope.coordinator.results.JobOutcome.Ending;
import io.msgscope.coordinator.results.LiveMetrics;
import io.msgscope.coordinator.results.ResultsFolder;
import io.msgscope.coordinator.results.Signals;
import io.msgscope.core.driver.Driver;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A scenario from its results folder to its verdict (issue 30, as {@code trace.TraceJob}): the folder reserved when
 * summary.json is asked for, the publishers' and subscribers' agents planned, the run with its progress line, the
 * typed {@link ScenarioResult} built and written in each format asked, and the answer said.
 *
 * @param cfg           the checked scenario
 * @param driver        its driver
 * @param qosLabel      the delivery guarantee as the results name it
 * @param reliable      whether a missing delivery fails the run
 * @param formats       json, csv, md
 * @param brokerProcess the broker process whose CPU and memory are read, or null
 * @param agents        the agent plan, opened at the start and closed at the end
 * @param dir           the results folder, prepared by the command
 * @param verbose       the per-second table on the console too
 * @param clockLimit    {@code --max-clock-error} (issue 33)
 * @param faults        the faults the broker-probe agent applies (issue 32 item 5); null for none
 */
public record ScenarioJob(ScenarioConfig cfg, Driver driver, String qosLabel, boolean reliable, List<String> formats,
                          String brokerProcess, Supplier<AgentPlan> agents, Path dir, boolean verbose,
                          io.msgscope.coordinator.agents.ClockErrorLimit clockLimit, ScenarioFaults.Setup faults) {

    /**
     * Runs, writes and says the result; the progress line goes to {@code err}; {@code interrupts} installs Ctrl-C's
     * handler around the run (issue 29: the publishers stop and what was measured is written, interrupted).
     */
    public JobOutcome run(PrintWriter out, PrintWriter err, LiveMetrics metrics, boolean terminal, Signals interrupts)
            throws IOException {
        // with summary.json asked, a failed placeholder first: a crash or a full disk leaves it readable (issue 16)
        ResultsFolder folder = null;
        if (formats.contains("json")) {
            folder = ResultsFolder.reserveOrSay(dir, "scenario", dir.getFileName().toString(),
                    Instant.now().toString(), out);
            if (folder == null) {
                return JobOutcome.unwritten(Ending.FAILED, null);
            }
        }
        ProgressLine progress = new ProgressLine(err, terminal, cfg.scenario().label() + " @ " + qosLabel);
        out.printf(Locale.ROOT, "%s on %s (%s): %d publishers %s, %d subscribers, %s s warm-up + %s s%n",
                cfg.scenario().label(), driver.name(), qosLabel, cfg.publishers(), cfg.timeline() != null
                        ? "on phases " + cfg.timeline() + " (msg/s in all)"
                        : "x " + ScenarioWriters.number(cfg.rate()) + " msg/s",
                cfg.subscribers(), ScenarioWriters.number(cfg.warmupMs() / 1000.0),
                ScenarioWriters.number(cfg.durationMs() / 1000.0));
        out.flush();
        BrokerStats broker = brokerProcess == null ? null : BrokerStats.start(brokerProcess);
        ScenarioOutcome o;
        try (AgentPlan plan = agents.get()) {
            ScenarioRun run = new ScenarioRun(cfg, progress).metrics(metrics).clockLimit(clockLimit)
                    .faults(faults);
            try (AutoCloseable signals = interrupts.install(run::interrupt)) {
                o = run.run(plan);
            }
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        } finally {
            if (broker != null) {
                broker.close();
            }
        }
        if (o.usage()) {
            return JobOutcome.unwritten(Ending.USAGE, o.failure());
        }
        if (o.failure() != null && o.interruption() == null) {
            err.println("msgscope scenario: run failed during " + o.failedDuring() + ": " + o.failure());
            err.flush();
        }
        // issue 18: a run failed on missing deliveries names the broker setting that drops them
        ScenarioResult r = ScenarioSummary.build(cfg, o, qosLabel, reliable, driver,
                broker == null ? null : broker.figures(), faults == null ? null : faults.plan());
        List<Path> files;
        try {
            files = ScenarioWriters.write(r, dir, formats, folder);
        } catch (ResultsFolder.WriteFailed e) {
            if (folder == null) {
                throw e;
            }
            folder.sayFailed(e, Map.of("results", r.results().toMap()), out);
            return JobOutcome.unwritten(Ending.FAILED, null);
        }
        out.println(ScenarioAnswer.sentence(r));
        if (r.phases() != null) {
            r.phases().consoleLines().forEach(out::println); // one line per load phase (issue 31)
            if (r.phases().backlog() != null) {
                r.phases().backlog().consoleLines().forEach(out::println);
            }
        }
        if (r.faults() != null) {
            r.faults().consoleLines().forEach(out::println); // one line per fault (issue 32 item 5)
        }
        if (verbose) { // the per-second table is summary.md's (issue 29)
            out.print(ScenarioWriters.markdown(r));
        }
        out.println("status: " + r.envelope().status()
                + (r.envelope().failed() ? " (" + r.envelope().failureReason() + ")" : ""));
        out.println("results: " + dir + " (" + files.size() + " files)");
        out.flush();
        return JobOutcome.written(r.envelope().interrupted() ? Ending.INTERRUPTED
                : r.envelope().failed() ? Ending.FAILED : Ending.OK);
    }
}
