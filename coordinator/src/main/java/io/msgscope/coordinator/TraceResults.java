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
import io.msgscope.core.RunSpec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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

    /** What the console and the command read once the files are written: the result as judged, and its analysis. */
    public record Written(TraceResult result, AnalysisResult analysis, DistributionReport distribution) {
    }

    /**
     * A result file could not be written: the folder's failure, with the result as judged by then, whose failure and
     * counts the failure summary keeps.
     */
    public static final class NotWritten extends IOException {
        private final transient TraceResult result;

        NotWritten(ResultsFolder.WriteFailed cause, TraceResult result) {
            super(cause.getMessage(), cause);
            this.result = result;
        }

        public ResultsFolder.WriteFailed failure() {
            return (ResultsFolder.WriteFailed) getCause();
        }

        /** What the failure summary adds to the folder's own fields: the measurement's failure and its counts. */
        public Map<String, Object> known() {
            Map<String, Object> known = new LinkedHashMap<>();
            known.put("measurement_failure", result.failureReason());
            Map<String, Object> counters = new LinkedHashMap<>();
            counters.put("messages_sent", result.counts().sent());
            counters.put("messages_received", result.counts().received());
            known.put("counters", counters);
            return known;
        }
    }

    /**
     * Analyses the run, judges it (a loss, a duplicate or a missed rate fails it) and writes every file, summary.json
     * last; the timing of each step goes to {@code log}.
     *
     * @throws NotWritten a file could not be written (the command writes the failure summary from it)
     */
    public static Written write(Path dir, ResultsFolder folder, TraceResult outcome, BrokerCpu brokerCpu, Options opt,
                                String startedAt, long startEpochMs, PrintStream log) throws IOException {
        long t0 = System.nanoTime();
        RunSpec spec = outcome.spec();
        Trace trace = outcome.trace();
        CpuReport cpu = CpuReport.build(outcome, brokerCpu);
        // trace.dat, the largest file, is written on a second thread while the analysis runs
        ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "msgscope-trace-dat"));
        final long minSpan = opt.minSpanNs();
        Future<?> traceDat = writer.submit(() -> {
            TraceDatWriter.write(dir.resolve(TraceDatWriter.FILE_NAME), trace, spec.window(), minSpan, cpu.columns());
            return null;
        });
        writer.shutdown();
        AnalysisResult a = TraceAnalysis.analyse(trace, spec.window(), minSpan);
        long tAnalysis = System.nanoTime();
        TraceResult judged = judge(outcome, a.lost(), a.sent(), opt.allowDuplicates());
        if (a.lost() > 0 && judged.failed() && judged.failureReason().endsWith(" messages lost")) {
            String hint = io.msgscope.core.driver.Drivers.load().get(spec.driver()).lossHint(spec.driverOptions());
            if (hint != null) {
                TraceResult.Failure f = judged.failure();
                judged = judged.withFailure(new TraceResult.Failure(f.reason() + "; " + hint, f.during(), f.usage()));
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
            try {
                writeFiles(dir, judged, trace, a, cpu, opt, envelope, startEpochMs, files, folder);
                tFiles = System.nanoTime();
                folder.write("the latency distribution and peaks files", () -> {
                    for (Path p : dist.write(dir, a, opt.bins(), opt.overlap(), envelope)) {
                        files.add(p.getFileName().toString());
                    }
                });
                tDist = System.nanoTime();
                folder.write("the series histograms", () -> {
                    for (Path p : DistributionReport.writeSeriesHistograms(dir, trace, spec.window(), minSpan,
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
            TraceFileCheck fileCheck = TraceFileCheck.check(dir.resolve(TraceDatWriter.FILE_NAME), a, spec.window(),
                    minSpan);
            if (!fileCheck.holds() && !judged.failed()) {
                judged = judged.withFailure(new TraceResult.Failure("the self-check on trace.dat failed: "
                        + fileCheck.firstProblem(), "analysis", false));
            }
            long tTraceDat = System.nanoTime();
            files.add(SummaryJson.FILE_NAME);
            Map<String, Object> summary = SummaryJson.build(judged, a, EnvironmentInfo.current(), startedAt, files);
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
            log.printf(Locale.ROOT, "analysis and output: %.2f s (series aggregates %.2f s, envelope/histogram/hdr/"
                            + "scripts %.2f s, distribution and peaks %.2f s, series histograms %.2f s, waiting for "
                            + "trace.dat %.2f s, summary %.2f s)%n", (tEnd - t0) / 1e9, (tAnalysis - t0) / 1e9,
                    (tFiles - tAnalysis) / 1e9, (tDist - tFiles) / 1e9, (tHist - tDist) / 1e9,
                    (tTraceDat - tHist) / 1e9, (tEnd - tTraceDat) / 1e9);
        } catch (ResultsFolder.WriteFailed e) {
            throw new NotWritten(e, judged);
        }
        return new Written(judged, a, dist);
    }

    /** The smaller result files, each through the folder so a failure names it. */
    private static void writeFiles(Path dir, TraceResult outcome, Trace trace, AnalysisResult a, CpuReport cpu,
                                   Options opt, boolean envelope, long startEpochMs, List<String> files,
                                   ResultsFolder folder)
            throws ResultsFolder.WriteFailed {
        if (envelope) {
            folder.write(TraceEnvelope.FILE_NAME, () -> TraceEnvelope.write(dir.resolve(TraceEnvelope.FILE_NAME), trace,
                    outcome.spec().window(), opt.minSpanNs(), cpu.columns(), opt.envelopeBuckets()));
            files.add(TraceEnvelope.FILE_NAME);
        }
        folder.write(HistogramWriter.FILE_NAME, () -> HistogramWriter.withBins(opt.bins())
                .write(dir.resolve(HistogramWriter.FILE_NAME), trace, a));
        files.add(HistogramWriter.FILE_NAME);
        folder.write(HdrOutput.HLOG_FILE_NAME + " and " + HdrOutput.HGRM_FILE_NAME,
                () -> {
                    HdrOutput.writeTraceIntervals(dir.resolve(HdrOutput.HLOG_FILE_NAME), trace,
                            outcome.measureEpochMs() > 0 ? outcome.measureEpochMs() : startEpochMs, HdrOutput.SECOND_NS);
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
    public static TraceResult judge(TraceResult out, long lost, long sent, boolean allowDuplicates) {
        if (out.failed()) {
            return out;
        }
        TraceResult.Counts n = out.counts();
        String failure = null;
        if (lost > 0) {
            failure = lost + " of " + sent + " messages lost";
        } else if (n.outOfRange() > 0) {
            failure = n.outOfRange() + " messages carried a sequence outside the run";
        } else if (n.duplicates() > 0 && !allowDuplicates) {
            failure = n.duplicates() + " messages delivered more than once (the first arrival is measured; "
                    + "--allow-duplicates accepts them, e.g. at MQTT QoS 1)";
        } else if (out.spec().rate() > 0) {
            double achieved = out.sendRate();
            if (achieved < 0.95 * out.spec().rate()) {
                failure = String.format(Locale.ROOT, "sender fell behind its rate: %.0f of %.0f msg/s",
                        achieved, out.spec().rate());
            }
        }
        // what the measurement recorded fails it, found when it is analysed
        return failure == null ? out : out.withFailure(new TraceResult.Failure(failure, "measurement", false));
    }
}
