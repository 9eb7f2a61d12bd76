package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.faults.FaultSection;
import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.coordinator.results.ResultsFolder;
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
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.Drivers;

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
 * Trace mode's results (M1-M12, Q4): the analysis of the uploaded traces, the verdict ({@link TraceVerdict}), the
 * one immutable {@link TraceReport} built from them, and every file of the run written from it, each by its own
 * writer (trace.dat on its own thread while the analysis runs, the envelope, histograms, HdrHistogram logs, gnuplot
 * scripts, the distribution and peaks, the series histograms) with summary.json ({@link SummaryJson}) last, each
 * through the {@link ResultsFolder} so a failure names its file. The command plans the run and calls this (issue
 * 15); {@link TraceConsole} says the outcome.
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
                          boolean allowDuplicates, boolean logHistogram) {
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
     * Analyses the run, judges it (a loss, a duplicate or a missed rate fails it), builds its {@link TraceReport} and
     * hands it to each file's writer, summary.json last; the timing of each step goes to {@code log}.
     *
     * @throws NotWritten a file could not be written (the command writes the failure summary from it)
     */
    public static TraceReport write(Path dir, ResultsFolder folder, TraceResult outcome, BrokerCpu brokerCpu,
                                    Options opt, String startedAt, long startEpochMs, PrintStream log)
            throws IOException {
        long t0 = System.nanoTime();
        RunSpec spec = outcome.spec();
        Driver driver = Drivers.load().get(spec.driver());
        Trace trace = outcome.trace();
        CpuReport cpu = CpuReport.build(outcome, brokerCpu, driver);
        // trace.dat, the largest file, is written on a second thread while the analysis runs
        ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "msgscope-trace-dat"));
        Future<?> traceDat = writer.submit(() -> {
            TraceDatWriter.write(dir.resolve(ResultFiles.TRACE_DAT), trace, spec.window(), opt.minSpanNs(),
                    cpu.columns(), spec.timeline() == null ? null : i -> spec.timeline().phaseOf(i));
            return null;
        });
        writer.shutdown();
        AnalysisResult a = TraceAnalysis.analyse(trace, spec.window(), opt.minSpanNs());
        long tAnalysis = System.nanoTime();
        TraceResult judged = TraceVerdict.judge(outcome, a.lost(), a.sent(), opt.allowDuplicates(), driver);
        if (outcome.clocks() != null) { // a clock bound wider than --max-clock-error (issue 33 item 3)
            judged = judged.withWarning(outcome.clocks().warning(a));
        }
        TraceReport report = new TraceReport(judged, a, driver.topology(spec.uriForDisplay(), spec.driverOptions(), outcome.destination()), cpu,
                DistributionReport.of(trace, a), null, EnvironmentInfo.current(), startedAt,
                spec.timeline() == null || !trace.hasIntended() ? null : PhaseSection.of(spec.timeline(), trace,
                        outcome.samples().series(), spec.cpuEvery()), FaultSection.of(outcome.faults(), trace,
                        outcome.guarantee()));
        List<String> files = new ArrayList<>();
        files.add(ResultFiles.TRACE_DAT);
        boolean envelope = trace.count() > opt.envelopeAbove();
        long tFiles;
        long tDist;
        long tHist;
        try {
            try {
                writeFiles(dir, report, brokerCpu, trace, opt, envelope, startEpochMs, files, folder);
                tFiles = System.nanoTime();
                folder.write("the latency distribution and peaks files", () -> names(files,
                        report.distribution().write(dir, a, opt.bins(), opt.overlap(), envelope)));
                tDist = System.nanoTime();
                folder.write("the series histograms", () -> names(files, DistributionReport.writeSeriesHistograms(
                        dir, trace, spec.window(), opt.minSpanNs(), cpu.columns(), opt.bins(), opt.overlap())));
                tHist = System.nanoTime();
            } catch (ResultsFolder.WriteFailed e) {
                // trace.dat is written on its own thread: wait for it, so the failure summary says whether it is whole
                try {
                    folder.write(ResultFiles.TRACE_DAT, () -> awaitTraceDat(traceDat));
                } catch (ResultsFolder.WriteFailed alsoTraceDat) {
                    // listed in partial_files
                }
                throw e;
            }
            folder.write(ResultFiles.TRACE_DAT, () -> awaitTraceDat(traceDat));
        } catch (ResultsFolder.WriteFailed e) {
            throw new NotWritten(e, report.result());
        }
        // the self-check on the values as written (M12, issue 17): trace.dat read back, independently
        TraceReport checked = report.checked(TraceFileCheck.check(dir.resolve(ResultFiles.TRACE_DAT), a,
                spec.window(), opt.minSpanNs()));
        long tTraceDat = System.nanoTime();
        files.add(ResultFiles.SUMMARY);
        try {
            folder.commit(SummaryJson.build(checked, files));
        } catch (ResultsFolder.WriteFailed e) {
            throw new NotWritten(e, checked.result());
        }
        long tEnd = System.nanoTime();
        log.printf(Locale.ROOT, "analysis and output: %.2f s (series aggregates %.2f s, envelope/histogram/hdr/"
                        + "scripts %.2f s, distribution and peaks %.2f s, series histograms %.2f s, waiting for "
                        + "trace.dat %.2f s, summary %.2f s)%n", (tEnd - t0) / 1e9, (tAnalysis - t0) / 1e9,
                (tFiles - tAnalysis) / 1e9, (tDist - tFiles) / 1e9, (tHist - tDist) / 1e9,
                (tTraceDat - tHist) / 1e9, (tEnd - tTraceDat) / 1e9);
        return checked;
    }

    /** The smaller result files, each through the folder so a failure names it. */
    private static void writeFiles(Path dir, TraceReport report, BrokerCpu brokerCpu, Trace trace, Options opt,
                                   boolean envelope, long startEpochMs, List<String> files, ResultsFolder folder)
            throws ResultsFolder.WriteFailed {
        TraceResult outcome = report.result();
        AnalysisResult a = report.analysis();
        CpuReport cpu = report.cpu();
        if (envelope) {
            folder.write(ResultFiles.TRACE_ENVELOPE, () -> TraceEnvelope.write(dir.resolve(ResultFiles.TRACE_ENVELOPE),
                    trace, outcome.spec().window(), opt.minSpanNs(), cpu.columns(), opt.envelopeBuckets()));
            files.add(ResultFiles.TRACE_ENVELOPE);
        }
        folder.write(ResultFiles.LATENCY_HISTOGRAM, () -> (opt.logHistogram() ? HistogramWriter.withLogBins(opt.bins())
                : HistogramWriter.withBins(opt.bins()))
                .write(dir.resolve(ResultFiles.LATENCY_HISTOGRAM), trace, a));
        files.add(ResultFiles.LATENCY_HISTOGRAM);
        folder.write(ResultFiles.LATENCY_HLOG + " and " + ResultFiles.LATENCY_HGRM, () -> {
            io.msgscope.core.timeline.Timeline timeline = outcome.spec().timeline();
            HdrOutput.writeTraceIntervals(dir.resolve(ResultFiles.LATENCY_HLOG), trace,
                    outcome.measureEpochMs() > 0 ? outcome.measureEpochMs() : startEpochMs, HdrOutput.SECOND_NS,
                    timeline == null ? null : i -> timeline.phaseOf(i), timeline == null ? null
                            : timeline.phases().stream().map(io.msgscope.core.timeline.LoadPhase::name).toList());
            HdrOutput.writeHgrm(dir.resolve(ResultFiles.LATENCY_HGRM), a.latencyHistogram());
        });
        files.add(ResultFiles.LATENCY_HLOG);
        files.add(ResultFiles.LATENCY_HGRM);
        folder.write("the gnuplot scripts (*.gp)", () -> {
            names(files, GnuplotScripts.writeAll(dir, trace.hasIntended(), envelope,
                    ConsoleSummary.throughputAxis(outcome, a), report.phases() == null ? null
                            : report.phases().bands()));
            if (opt.logHistogram()) {
                HistogramWriter.writeScript(dir, true);
            }
            if (report.faults() != null) {
                GnuplotScripts.addFaults(dir, report.faults().lines());
            }
            names(files, CpuScripts.write(dir, cpu, outcome, brokerCpu, trace, envelope));
            if (report.phases() != null) {
                names(files, report.phases().writeBacklog(dir));
            }
        });
        if (report.faults() != null) {
            folder.write(ResultFiles.FAULTS_DAT, () -> io.msgscope.core.SafeFiles.write(dir.resolve(ResultFiles.FAULTS_DAT),
                    report.faults().dat().getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            files.add(ResultFiles.FAULTS_DAT);
        }
    }

    /** Adds the names of the files written to the folder's list. */
    private static void names(List<String> files, List<Path> written) {
        for (Path p : written) {
            files.add(p.getFileName().toString());
        }
    }

    private static void awaitTraceDat(Future<?> f) throws IOException {
        try {
            f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing " + ResultFiles.TRACE_DAT, e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io
                    : new IOException("writing " + ResultFiles.TRACE_DAT + " failed: " + e.getCause(), e.getCause());
        }
    }
}
