package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.SeriesStats;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.distribution.DistributionWriter;
import io.msgscope.analysis.distribution.Histogram1D;
import io.msgscope.analysis.distribution.Humpiness;
import io.msgscope.analysis.distribution.HumpinessResult;
import io.msgscope.analysis.distribution.PeakAnalysis;
import io.msgscope.analysis.distribution.PeakPlots;

import io.msgscope.analysis.output.GnuplotScripts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The latency distribution of a run (M8) and its peaks (M11): a histogram with the modes found by
 * the humpiness metric marked, the verdict in words, and how often, how high and where latency
 * exceeds k × the median — the files and the summary.json sections.
 */
public final class DistributionReport {
    private final HumpinessResult humps;
    private final PeakAnalysis.Result peaks;
    private final long[] latencyNs;
    private final int n;

    private DistributionReport(HumpinessResult humps, PeakAnalysis.Result peaks, long[] latencyNs, int n) {
        this.humps = humps;
        this.peaks = peaks;
        this.latencyNs = latencyNs;
        this.n = n;
    }

    public static DistributionReport of(Trace trace, AnalysisResult a) {
        long[] lat = PeakAnalysis.latencies(trace);
        int n = (int) trace.count();
        HumpinessResult h = Humpiness.ofNanos(lat, n);
        SeriesStats l = a.latencyNs();
        PeakAnalysis.Result p = l.isEmpty() ? null : PeakAnalysis.analyse(lat, n, (long) l.median(),
                PeakAnalysis.DEFAULT_FACTORS, PeakAnalysis.DEFAULT_TOP, Math.max(1, n / 1000));
        return new DistributionReport(h, p, lat, n);
    }

    public HumpinessResult humpiness() {
        return humps;
    }

    /**
     * Histograms of ST, RT (msg/s, per message; over windows of at least {@code minSpanNs}, {@link
     * io.msgscope.analysis.RateWindow}) and of every CPU step series (%, per window) (M8), each over [min, p99] with
     * {@code bins} bins and {@code overlap} sliding bins per bin width.
     */
    public static List<Path> writeSeriesHistograms(Path dir, Trace trace, int window, long minSpanNs,
                                                   List<io.msgscope.analysis.cpu.StepSeries> steps, int bins,
                                                   int overlap) throws IOException {
        List<Path> files = new ArrayList<>();
        int n = (int) trace.count();
        double[] v = new double[n];
        String windows = io.msgscope.analysis.RateWindow.describe(window, minSpanNs);
        files.addAll(histogram(dir, "st", "ST, sender throughput per message (" + windows + ")", "msg/s",
                v, throughputs(trace.sendNs(), n, window, minSpanNs, v), bins, overlap));
        files.addAll(histogram(dir, "rt", "RT, receiver throughput per message (" + windows + ")", "msg/s",
                v, throughputs(trace.recvNs(), n, window, minSpanNs, v), bins, overlap));
        for (io.msgscope.analysis.cpu.StepSeries s : steps) {
            double[] w = s.values();
            int m = 0;
            for (double x : w) {
                if (!Double.isNaN(x)) {
                    w[m++] = x;
                }
            }
            String unit = s.name().endsWith("_pct") ? "%" : "per s";
            files.addAll(histogram(dir, s.name(), s.name() + " per window of " + s.every() + " messages", unit, w, m,
                    bins, overlap, DistributionWriter.WINDOWS));
        }
        return files;
    }

    /** ST_n or RT_n = k·1e9 / (T_n − T_{n−k}) into {@code out}, defined positive values only; returns their count. */
    private static int throughputs(long[] t, int n, int window, long minSpanNs, double[] out) {
        io.msgscope.analysis.RateWindow w = new io.msgscope.analysis.RateWindow(t, window, minSpanNs);
        int m = 0;
        for (int i = window; i < n; i++) {
            double r = w.rateAt(i);
            if (r > 0 && !Double.isInfinite(r)) {
                out[m++] = r;
            }
        }
        return m;
    }

    private static List<Path> histogram(Path dir, String name, String title, String unit, double[] values, int n,
                                        int bins, int overlap) throws IOException {
        return histogram(dir, name, title, unit, values, n, bins, overlap, DistributionWriter.MESSAGES);
    }

    private static List<Path> histogram(Path dir, String name, String title, String unit, double[] values, int n,
                                        int bins, int overlap, String counted) throws IOException {
        if (n < 2) {
            return List.of();
        }
        double[] sorted = java.util.Arrays.copyOf(values, n);
        java.util.Arrays.sort(sorted);
        double lo = sorted[0];
        double hi = sorted[SeriesStats.nearestRankIndex(99, n)];
        if (!(hi > lo)) {
            hi = sorted[n - 1] > lo ? sorted[n - 1] : lo + 1;
        }
        Histogram1D h = Histogram1D.withBinCount(lo, hi, bins, overlap).addAll(values, n);
        String dat = name + "-histogram.dat";
        return List.of(DistributionWriter.write(dir.resolve(dat), h, unit),
                DistributionWriter.gnuplot(dir, name + "-histogram.gp", dat, name + "-histogram.png",
                        "Histogram of " + title + " up to p99", unit, List.of(), counted));
    }

    /**
     * Writes latency-distribution.dat/.gp (modes marked, {@code bins} bins with {@code overlap} sliding bins per bin
     * width, M8) and peaks.dat/latency-peaks.gp, drawn over trace-envelope.dat with {@code envelope}, else over every
     * message; returns the files.
     */
    public List<Path> write(Path dir, AnalysisResult a, int bins, int overlap, boolean envelope) throws IOException {
        List<Path> files = new ArrayList<>();
        SeriesStats l = a.latencyNs();
        if (l.isEmpty() || !(l.p99() > l.min())) {
            return files;
        }
        // the bulk up to p99: a long tail would squeeze the interesting part into one bin
        double hi = l.p99() / 1e3;
        Histogram1D hist = Histogram1D.withBinCount(l.min() / 1e3, hi, bins, overlap).addAll(latencyNs, n, 1e-3);
        files.add(DistributionWriter.write(dir.resolve(ResultFiles.LATENCY_DISTRIBUTION_DAT), hist, "us"));
        List<Double> marks = new ArrayList<>();
        for (double p : humps.positions()) {
            if (p / 1e3 <= hi) {
                marks.add(p / 1e3);
            }
        }
        files.add(DistributionWriter.gnuplot(dir, ResultFiles.LATENCY_DISTRIBUTION_GP,
                ResultFiles.LATENCY_DISTRIBUTION_DAT,
                "latency-distribution.png", "Latency distribution up to p99 (" + humps.modeCount()
                        + (humps.modeCount() == 1 ? " mode" : " modes") + "; see summary.json distribution)",
                "latency [us]", marks, l.min() / 1e3, hi));
        if (peaks != null) {
            files.add(PeakPlots.writeMarks(dir.resolve(ResultFiles.PEAKS_DAT), peaks.topPeaks()));
            files.add(envelope
                    ? PeakPlots.gnuplotOver(dir, ResultFiles.LATENCY_PEAKS_GP, GnuplotScripts.envelopeElement(5, "",
                            "latency I_n - O_n", "#6baed6", "#08519c"), ResultFiles.PEAKS_DAT, "latency-peaks.png", peaks)
                    : PeakPlots.gnuplot(dir, ResultFiles.LATENCY_PEAKS_GP, ResultFiles.TRACE_DAT, ResultFiles.PEAKS_DAT,
                            "latency-peaks.png",
                            peaks));
        }
        return files;
    }

    public Map<String, Object> summary() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("verdict", humps.verdict());
        d.put("mode_count", humps.modeCount());
        List<Map<String, Object>> modes = new ArrayList<>();
        for (HumpinessResult.Mode m : humps.modes()) {
            Map<String, Object> mm = new LinkedHashMap<>();
            mm.put("position_us", m.position() / 1e3);
            mm.put("share", m.share());
            modes.add(mm);
        }
        d.put("modes", modes);
        d.put("minor_bumps_us", humps.minorBumps().stream().map(m -> m.position() / 1e3).toList());
        d.put("bimodality_coefficient", Json.finite(humps.bimodalityCoefficient()));
        d.put("method", "modes of a Gaussian kernel density estimate of log latency (Silverman bandwidth), "
                + "kept when their prominence exceeds 4 standard errors and they hold >= 1 % of the messages; "
                + "Sarle's bimodality coefficient alongside");
        return d;
    }

    public Map<String, Object> peaksSummary() {
        Map<String, Object> p = new LinkedHashMap<>();
        if (peaks == null) {
            return p;
        }
        p.put("median_us", peaks.medianNs() / 1e3);
        p.put("max_us", peaks.maxNs() / 1e3);
        p.put("max_at_message", peaks.maxIndex());
        List<Map<String, Object>> ex = new ArrayList<>();
        for (PeakAnalysis.Exceedance e : peaks.exceedances()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("factor", e.factor());
            m.put("threshold_us", e.thresholdNs() / 1e3);
            m.put("count", e.count());
            m.put("highest_us", e.count() > 0 ? e.maxNs() / 1e3 : null);
            m.put("in_first_5pct", e.inFirst());
            m.put("in_middle", e.inMiddle());
            m.put("in_last_5pct", e.inLast());
            ex.add(m);
        }
        p.put("above_k_times_median", ex);
        List<Map<String, Object>> top = new ArrayList<>();
        for (PeakAnalysis.Peak pk : peaks.topPeaks()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("message", pk.index());
            m.put("latency_us", pk.latencyNs() / 1e3);
            top.add(m);
        }
        p.put("top_peaks", top);
        return p;
    }
}
