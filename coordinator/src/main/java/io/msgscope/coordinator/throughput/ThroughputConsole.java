package io.msgscope.coordinator.throughput;

import io.msgscope.analysis.output.HumanFormat;
import io.msgscope.analysis.stats.BlockSpread;
import io.msgscope.analysis.stats.MedianInterval;
import io.msgscope.analysis.stats.SampleSummary;
import io.msgscope.coordinator.results.LiveMetrics;
import org.HdrHistogram.Histogram;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * What a throughput run says on the console: what it measures, each probe as it ends, and when it ends the search's
 * peak and knee, the result, its latency.
 */
public final class ThroughputConsole {
    private ThroughputConsole() {
    }

    /** Before the first probe: the warm-up, when there is one, and whether F is searched for or given. */
    public static void start(PrintWriter out, double warmupMs, long warmupMessages, long inFlight) {
        if (warmupMs > 0 || warmupMessages > 0) {
            out.printf(Locale.ROOT, "warming up (discarded): at least %s ms and %s messages at F = %s%n",
                    HumanFormat.count(Math.round(warmupMs)), HumanFormat.count(warmupMessages),
                    HumanFormat.count(inFlight > 0 ? inFlight : ThroughputRun.WARMUP_IN_FLIGHT));
        }
        out.println(inFlight == 0 ? "searching for F (A6): steps F = 1, 10, 100, ..., golden-section narrowing, "
                + "then the knee; overlapping probes measured again" : "measuring at F = " + inFlight);
        out.flush();
    }

    /**
     * The progress of a run (issue 18): each probe as it ends, numbered against the search's budget ({@code maxProbes},
     * shown when {@code inFlight} is 0, a search), with the time since this was called; each probe's median and latency
     * also go to {@code served}, the live metrics, when they are served (else null).
     */
    public static Consumer<FSearch.Probe> progress(PrintWriter out, long inFlight, int maxProbes, LiveMetrics served) {
        long searchStart = System.nanoTime();
        int[] probes = {0};
        return p -> {
            SampleSummary s = p.summary();
            probes[0]++;
            if (served != null) {
                served.interval(s.median(), p.latency()); // the last probe's median and latency
            }
            out.printf(Locale.ROOT, "  probe %d%s  F = %-10s %-6s median %s msg/s [95%%: %s, %s] (mean %s, sd %s, "
                            + "%d samples)%s  %.0f s%n", probes[0], inFlight == 0 ? "/" + maxProbes + " max" : "",
                    HumanFormat.count(p.inFlight()), p.phase(), HumanFormat.rate(s.median()),
                    HumanFormat.rate(s.medianInterval().lower()), HumanFormat.rate(s.medianInterval().upper()),
                    HumanFormat.rate(s.mean()), HumanFormat.rate(s.stddev()), s.n(),
                    s.stationarity().steady() ? "" : " not steady", (System.nanoTime() - searchStart) / 1e9);
            out.flush();
        };
    }

    public static void print(PrintWriter out, String driver, ThroughputResults.Given g, ThroughputRun.Outcome o,
                             Path dir) {
        if (o.search() != null) {
            SampleSummary pc = o.search().peakThroughput();
            out.println("peak: " + describe(o.search().peak()) + String.format(Locale.ROOT,
                    "; confirmed by fresh probes: median %s msg/s [95%%: %s, %s]", HumanFormat.rate(pc.median()),
                    HumanFormat.rate(pc.medianInterval().lower()), HumanFormat.rate(pc.medianInterval().upper()))
                    + "\nknee: " + (o.search().knee() == o.search().peak() ? "the peak" : describe(o.search().knee()))
                    + "\n  " + o.search().kneeRule() + fitted(o.search().fit())
                    + "\nthe final measurement uses the " + (g.parsedPick() == ThroughputRun.Pick.KNEE ? "knee" : "peak")
                    + " (--pick); the search stopped: " + o.search().stopReason());
        }
        if (o.finalStats() != null && o.finalStats().n() > 0) {
            out.println(finalLine(driver, g.size(), o.finalStats()));
        }
        Histogram lat = o.finalStats() == null ? null : o.finalStats().latency();
        if (lat != null && lat.getTotalCount() > 0) {
            long sampled = o.finalResult().getSampledMessages();
            long samplingNs = o.finalResult().getSamplingNs();
            long pcpu = o.finalResult().getSamplingProcessCpuNs();
            out.println("latency at that F: p50 " + HumanFormat.duration(lat.getValueAtPercentile(50)) + ", p99 "
                    + HumanFormat.duration(lat.getValueAtPercentile(99)) + "; client process CPU over the sampling "
                    + "period " + (pcpu >= 0 && samplingNs > 0 && sampled > 0
                    ? String.format(Locale.ROOT, "%.1f %% of a core, %s per message", 100.0 * pcpu / samplingNs,
                    HumanFormat.duration((double) pcpu / sampled)) : "n/a"));
        }
        for (String n : o.notes()) {
            out.println("note: " + n);
        }
        for (String w : o.warnings()) {
            out.println("warning: " + w);
        }
        String verdict = o.interruption() != null ? "INTERRUPTED: " : "FAILED: ";
        out.println((o.failure() != null ? verdict + o.failure() + "; " : "") + "results in " + dir);
        out.flush();
    }

    /**
     * The final measurement in one line (issue 27): the headline is the rate delivered over the sampling period
     * (messages / period) with its interval; the median of the windows follows as what a typical window looks like,
     * then where another run's median is expected from the blocks' drift.
     */
    static String finalLine(String driver, int size, ThroughputStats fs) {
        MedianInterval ci = fs.samples().medianInterval();
        BlockSpread b = fs.blocks();
        String interval = Double.isFinite(b.deliveredLow()) ? String.format(Locale.ROOT, " [95%% interval %s, %s]",
                HumanFormat.rate(b.deliveredLow()), HumanFormat.rate(b.deliveredHigh())) : "";
        String next = b.computed() ? String.format(Locale.ROOT, "; from the drift between %d blocks another run's "
                + "median is expected in [%s, %s]", b.blocks(), HumanFormat.rate(b.nextRunMedianLow()),
                HumanFormat.rate(b.nextRunMedianHigh())) : "";
        return String.format(Locale.ROOT, "%s messages of %d B, F = %s in flight at most (on average %s by Little's "
                        + "law, %s at arrivals): delivered %s msg/s%s (%s B/s) over the sampling period; a typical "
                        + "window: median %s msg/s [95%% interval %s, %s], mean %s, sd %s over %d samples%s",
                driver, size, HumanFormat.count(fs.inFlight()), oneDecimal(fs.littleInFlight()),
                oneDecimal(fs.countedInFlight()), HumanFormat.rate(fs.rateOverSampling()), interval,
                HumanFormat.rate(fs.rateOverSampling() * size), HumanFormat.rate(fs.median()),
                HumanFormat.rate(ci.lower()), HumanFormat.rate(ci.upper()), HumanFormat.rate(fs.samples().mean()),
                HumanFormat.rate(fs.samples().stddev()), fs.n(), next);
    }

    /** A point of the search for the console: F, median with interval, latency, in flight. */
    static String describe(SearchPoint p) {
        MedianInterval ci = p.interval();
        Histogram h = p.latency();
        boolean lat = h != null && h.getTotalCount() > 0;
        return String.format(Locale.ROOT, "F = %s, median %s msg/s [95%%: %s, %s] over %d samples, latency %s, "
                        + "mean in flight %s (Little's law)", HumanFormat.count(p.inFlight()), HumanFormat.rate(p.median()),
                HumanFormat.rate(ci.lower()), HumanFormat.rate(ci.upper()), p.sampleCount(),
                lat ? "p50 " + HumanFormat.duration(h.getValueAtPercentile(50))
                        + ", p99 " + HumanFormat.duration(h.getValueAtPercentile(99)) : "n/a",
                lat ? oneDecimal(p.median() * h.getMean() / 1e9) : "n/a");
    }

    /** The fitted curve in a line: its plateau, the asymptotes' crossover, how far the points lie from it. */
    private static String fitted(io.msgscope.analysis.stats.SaturationFit f) {
        return f == null ? "" : String.format(Locale.ROOT, "\n  fitted curve: plateau %s msg/s, asymptotes cross at "
                + "F = %.1f, corner k = %.2f%s, half the points within %.1f %% of it; 90 %% of the plateau at F = %s "
                + "[95%% interval %s, %s]", HumanFormat.rate(f.plateau()), f.crossover(), f.sharpness(),
                f.atBound() ? " (at the grid's bound: the data did not fix the corner)" : "", f.typicalErrorPercent(),
                HumanFormat.rate(f.kneeAt(1 - FSearch.KNEE_MARGIN)), HumanFormat.rate(f.kneeLow()),
                HumanFormat.rate(f.kneeHigh()));
    }

    private static String oneDecimal(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.1f", v) : "n/a";
    }
}
