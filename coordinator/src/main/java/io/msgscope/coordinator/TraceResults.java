package io.msgscope.coordinator;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import io.msgscope.analysis.TraceFileCheck;
import io.msgscope.analysis.output.GnuplotScripts;
import io.msgscope.analysis.output.HdrOutput;
import io.msgscope.analysis.output.HistogramWriter;
import io.msgscope.analysis.output.TraceDatWriter;
import io.msgscope.analysis.output.TraceEnvelope;
import io.msgscope.core.EnvironmentInfo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Trace mode's results (M1-M12, Q4): the analysis of the uploaded traces, the verdict, and every file of the run
 * (trace.dat on its own thread while the analysis runs, the envelope, histograms, HdrHistogram logs, gnuplot
 * scripts, the distribution and peaks, the series histograms) with summary.json last, each through the
 * {@link ResultsFolder} so a failure names its file. The command plans the run and calls this (issue 15);
 * {@link TraceConsole} says the outcome.
 */
public final class TraceResults {
    private TraceResults() {
    }

    /**
     * How the files are cut, as given on the command line.
     *
     * @param minSpanNs       the least time an ST/RT window spans (M5, issue 17)
     * @param envelopeAbove   more messages than this are plotted through trace-envelope.dat
     * @param envelopeBuckets the envelope's buckets
     * @param bins            latency histogram bins
     * @param overlap         the series histograms' overlap
     * @param allowDuplicates whether duplicates pass the verdict
     */
    public record Options(long minSpanNs, long envelopeAbove, int envelopeBuckets, int bins, int overlap,
                          boolean allowDuplicates) {
    }

    /** What the console needs of the analysis. */
    public record Written(AnalysisResult analysis, DistributionReport distribution) {
    }

    /**
     * Analyses the run, judges it (a loss, a duplicate or a missed rate fails it) and writes every file, summary.json
     * last; the timing of each step goes to {@code log}.
     */
    public static Written write(Path dir, ResultsFolder folder, RunOutcome outcome, BrokerCpu brokerCpu, Options opt,
                                String startedAt, long startEpochMs, PrintStream log) throws IOException {
        long t0 = System.nanoTime();
        Trace trace = new Trace(outcome.spec.count(), outcome.sendNs, outcome.intendedNs, outcome.recvNs);
        CpuReport cpu = CpuReport.build(outcome, brokerCpu);
        // trace.dat, the largest file, is written on a second thread while the analysis runs
        ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "msgscope-trace-dat"));
        final long minSpan = opt.minSpanNs();
        Future<?> traceDat = writer.submit(() -> {
            TraceDatWriter.write(dir.resolve(TraceDatWriter.FILE_NAME), trace, outcome.spec.window(), minSpan,
                    cpu.columns());
            return null;
        });
        writer.shutdown();
        AnalysisResult a = TraceAnalysis.analyse(trace, outcome.spec.window(), minSpan);
        long tAnalysis = System.nanoTime();
        judge(outcome, a.lost(), a.sent(), opt.allowDuplicates());
        if (a.lost() > 0 && outcome.failure != null && outcome.failure.endsWith(" messages lost")) {
            String hint = io.msgscope.core.driver.Drivers.load().get(outcome.spec.driver())
                    .lossHint(outcome.spec.driverOptions());
            if (hint != null) {
                outcome.failure += "; " + hint;
            }
        }
        List<String> files = new ArrayList<>();
        files.add(TraceDatWriter.FILE_NAME);
        boolean envelope = trace.count() > opt.envelopeAbove();
        long tFiles;
        long tDist;
        long tHist;
        DistributionReport dist = DistributionReport.of(trace, a);
        try {
            writeFiles(dir, outcome, trace, a, cpu, opt, envelope, startEpochMs, files, folder);
            tFiles = System.nanoTime();
            folder.write("the latency distribution and peaks files", () -> {
                for (Path p : dist.write(dir, a, opt.bins(), opt.overlap(), envelope)) {
                    files.add(p.getFileName().toString());
                }
            });
            tDist = System.nanoTime();
            folder.write("the series histograms", () -> {
                for (Path p : DistributionReport.writeSeriesHistograms(dir, trace, outcome.spec.window(), minSpan,
                        cpu.columns(), opt.bins(), opt.overlap())) {
                    files.add(p.getFileName().toString());
                }
            });
            tHist = System.nanoTime();
        } catch (ResultsFolder.WriteFailed e) {
            // trace.dat is written on its own thread: wait for it, so the failure summary says whether it is whole
            try {
                folder.write(TraceDatWriter.FILE_NAME, () -> awaitTraceDat(traceDat));
            } catch (ResultsFolder.WriteFailed alsoTraceDat) {
                // listed in partial_files
            }
            throw e;
        }
        folder.write(TraceDatWriter.FILE_NAME, () -> awaitTraceDat(traceDat));
        // the self-check on the values as written (M12, issue 17): trace.dat read back, independently
        TraceFileCheck fileCheck = TraceFileCheck.check(dir.resolve(TraceDatWriter.FILE_NAME), a,
                outcome.spec.window(), minSpan);
        if (!fileCheck.holds() && !outcome.failed()) {
            outcome.failure = "the self-check on trace.dat failed: " + fileCheck.firstProblem();
        }
        long tTraceDat = System.nanoTime();
        files.add(SummaryJson.FILE_NAME);
        Map<String, Object> summary = SummaryJson.build(outcome, a, EnvironmentInfo.current(), startedAt, files);
        @SuppressWarnings("unchecked")
        Map<String, Object> identity = (Map<String, Object>) summary.get("identity_check");
        identity.put("trace_dat", fileCheck.toMap());
        identity.put("holds", a.identity().holds() && fileCheck.holds());
        if (!cpu.summary().isEmpty()) {
            summary.put("cpu", cpu.summary());
        }
        if (!cpu.network().isEmpty()) {
            summary.put("network", cpu.network());
        }
        summary.put("distribution", dist.summary());
        summary.put("peaks", dist.peaksSummary());
        folder.commit(summary);
        long tEnd = System.nanoTime();
        log.printf(Locale.ROOT, "analysis and output: %.2f s (series aggregates %.2f s, envelope/histogram/hdr/scripts"
                        + " %.2f s, distribution and peaks %.2f s, series histograms %.2f s, waiting for trace.dat %.2f s,"
                        + " summary %.2f s)%n", (tEnd - t0) / 1e9, (tAnalysis - t0) / 1e9, (tFiles - tAnalysis) / 1e9,
                (tDist - tFiles) / 1e9, (tHist - tDist) / 1e9, (tTraceDat - tHist) / 1e9, (tEnd - tTraceDat) / 1e9);
        return new Written(a, dist);
    }

    /** The smaller result files, each through the folder so a failure names it. */
    private static void writeFiles(Path dir, RunOutcome outcome, Trace trace, AnalysisResult a, CpuReport cpu,
                                   Options opt, boolean envelope, long startEpochMs, List<String> files,
                                   ResultsFolder folder)
            throws ResultsFolder.WriteFailed {
        if (envelope) {
            folder.write(TraceEnvelope.FILE_NAME, () -> TraceEnvelope.write(dir.resolve(TraceEnvelope.FILE_NAME), trace,
                    outcome.spec.window(), opt.minSpanNs(), cpu.columns(), opt.envelopeBuckets()));
            files.add(TraceEnvelope.FILE_NAME);
        }
        folder.write(HistogramWriter.FILE_NAME, () -> HistogramWriter.withBins(opt.bins())
                .write(dir.resolve(HistogramWriter.FILE_NAME), trace, a));
        files.add(HistogramWriter.FILE_NAME);
        folder.write(HdrOutput.HLOG_FILE_NAME + " and " + HdrOutput.HGRM_FILE_NAME,
                () -> {
                    HdrOutput.writeTraceIntervals(dir.resolve(HdrOutput.HLOG_FILE_NAME), trace,
                            outcome.measureEpochMs > 0 ? outcome.measureEpochMs : startEpochMs, HdrOutput.SECOND_NS);
                    HdrOutput.writeHgrm(dir.resolve(HdrOutput.HGRM_FILE_NAME), a.latencyHistogram());
                });
        files.add(HdrOutput.HLOG_FILE_NAME);
        files.add(HdrOutput.HGRM_FILE_NAME);
        folder.write("the gnuplot scripts (*.gp)", () -> {
            for (Path p : GnuplotScripts.writeAll(dir, trace.hasIntended(), envelope,
                    ConsoleSummary.throughputAxis(outcome, a))) {
                files.add(p.getFileName().toString());
            }
            for (Path p : cpu.writeScripts(dir, trace, envelope)) {
                files.add(p.getFileName().toString());
            }
        });
    }

    private static void awaitTraceDat(Future<?> f) throws IOException {
        try {
            f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing " + TraceDatWriter.FILE_NAME, e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io
                    : new IOException("writing " + TraceDatWriter.FILE_NAME + " failed: " + e.getCause(), e.getCause());
        }
    }

    /**
     * A run that lost messages, delivered one twice or missed its rate is failed, visibly (STYLE "Results"; the
     * duplicates rule is every mode's, issue 16: {@code --allow-duplicates} accepts them where the system promises
     * no more than at-least-once).
     */
    public static void judge(RunOutcome out, long lost, long sent, boolean allowDuplicates) {
        if (out.failed()) {
            return;
        }
        if (lost > 0) {
            out.failure = lost + " of " + sent + " messages lost";
        } else if (out.outOfRange > 0) {
            out.failure = out.outOfRange + " messages carried a sequence outside the run";
        } else if (out.duplicates > 0 && !allowDuplicates) {
            out.failure = out.duplicates + " messages delivered more than once (the first arrival is measured; "
                    + "--allow-duplicates accepts them, e.g. at MQTT QoS 1)";
        } else if (out.spec.rate() > 0) {
            double achieved = SummaryJson.rate(out.sendNs, out.sent);
            if (achieved < 0.95 * out.spec.rate()) {
                out.failure = String.format(Locale.ROOT, "sender fell behind its rate: %.0f of %.0f msg/s",
                        achieved, out.spec.rate());
            }
        }
        if (out.failed()) {
            out.failedDuring = "measurement"; // what the measurement recorded fails it, found when it is analysed
        }
    }
}
