package io.msgscope.coordinator.trace;

import io.msgscope.analysis.AnalysisResult;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Set;

/** What a trace run says on the console when it ends: the sentence, the distribution's verdict, the warnings. */
public final class TraceConsole {
    private TraceConsole() {
    }

    /**
     * @param saidAtStart warnings already printed when the run started (summary.json has them all; each is said once)
     * @param verbose     a failed run says its counts and warnings too; otherwise its cause, then where the results are
     */
    public static void print(PrintWriter out, TraceReport w, Set<String> saidAtStart, Path dir, boolean verbose) {
        TraceResult outcome = w.result();
        AnalysisResult a = w.analysis();
        if (outcome.interrupted()) {
            out.println("INTERRUPTED: " + outcome.failureReason());
        } else if (outcome.failed()) {
            out.println("FAILED: " + outcome.failureReason());
            if (!verbose) {
                out.println("results in " + dir + " (summary.json; --verbose prints the counts and warnings)");
                out.flush();
                return;
            }
        }
        boolean color = System.console() != null; // guarantee violations in red on a terminal (issue 32 item 3)
        out.println(ConsoleSummary.sentence(outcome, a, color));
        if (outcome.clocks() != null) {
            out.println(outcome.clocks().consoleLine());
        }
        if (a.latencyNs().n() >= 10) {
            out.println("latency distribution: " + w.distribution().humpiness().verdict());
        }
        if (w.phases() != null) {
            w.phases().consoleLines().forEach(out::println);
        }
        if (w.faults() != null) {
            w.faults().consoleLines(color).forEach(out::println);
        }
        String paced = PacedSenderCpu.consoleLine(outcome);
        if (paced != null) {
            out.println(paced);
        }
        for (String warning : outcome.warnings()) {
            if (!saidAtStart.contains(warning)) {
                out.println("warning: " + warning);
            }
        }
        if (!a.identity().holds()) {
            out.println("warning: the M12 identity RO-SO = L'(n) does not hold on " + a.identity().violations()
                    + " windows");
        }
        out.println("results in " + dir);
        out.flush();
    }
}
