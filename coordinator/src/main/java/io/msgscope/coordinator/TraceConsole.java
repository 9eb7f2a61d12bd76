package io.msgscope.coordinator;

import io.msgscope.analysis.AnalysisResult;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Set;

/** What a trace run says on the console when it ends: the sentence, the distribution's verdict, the warnings. */
public final class TraceConsole {
    private TraceConsole() {
    }

    /** @param saidAtStart warnings already printed when the run started (summary.json has them all; each is said once) */
    public static void print(PrintWriter out, TraceResults.Written w, Set<String> saidAtStart, Path dir) {
        TraceResult outcome = w.result();
        AnalysisResult a = w.analysis();
        out.println(ConsoleSummary.sentence(outcome, a));
        if (a.latencyNs().n() >= 10) {
            out.println("latency distribution: " + w.distribution().humpiness().verdict());
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
        out.println((outcome.failed() ? "FAILED: " + outcome.failureReason() + "; " : "") + "results in " + dir);
        out.flush();
    }
}
