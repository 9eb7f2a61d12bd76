package io.msgscope.coordinator.throughput;

import io.msgscope.analysis.stats.SampleSummary;
import io.msgscope.coordinator.results.ResultFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The F search (A6) as gnuplot input, from the typed {@link ThroughputResult}: {@code search.dat} (one row per probe,
 * in the order taken) and {@code search.gp}, which draws {@code search.png} (median against F on a log axis, the peak
 * and the knee marked, the peak's 95 % interval shaded, the fitted curve the knee was read off dashed). The JSON writer is the result's own; this is the gnuplot one.
 */
public final class SearchPlot {
    private SearchPlot() {
    }

    /** Writes search.dat and search.gp into dir and returns their names; nothing when no probe was taken. */
    public static List<String> write(Path dir, ThroughputResult r) throws IOException {
        if (r.probes().isEmpty()) {
            return List.of();
        }
        Files.writeString(dir.resolve(ResultFiles.SEARCH_DAT), data(r.probes()), StandardCharsets.US_ASCII);
        long minF = r.probes().stream().mapToLong(ThroughputResult.Probe::inFlight).min().orElse(1);
        long maxF = r.probes().stream().mapToLong(ThroughputResult.Probe::inFlight).max().orElse(1);
        Files.writeString(dir.resolve(ResultFiles.SEARCH_GP), script(r.search(), minF, maxF), StandardCharsets.US_ASCII);
        return List.of(ResultFiles.SEARCH_DAT, ResultFiles.SEARCH_GP);
    }

    static String data(List<ThroughputResult.Probe> probes) {
        StringBuilder sb = new StringBuilder("# in_flight median_msg_s mean_msg_s stddev_msg_s samples phase "
                + "ci_low_msg_s ci_high_msg_s latency_p50_us mean_in_flight\n"
                + "# mean_in_flight: Little's law, rate over the sampling period x mean latency\n"
                + "# one row per probe in the order taken; ci = distribution-free 95% interval of the median\n");
        for (ThroughputResult.Probe pr : probes) {
            SampleSummary p = pr.samples();
            sb.append(String.format(Locale.ROOT, "%d %.1f %.1f %.1f %d %s %.1f %.1f %s %s%n", pr.inFlight(), p.median(),
                    p.mean(), p.stddev(), p.n(), pr.phase(), p.medianInterval().lower(), p.medianInterval().upper(),
                    oneDecimal(pr.latencyP50Us()), oneDecimal(pr.littlesLaw())));
        }
        return sb.toString();
    }

    /** Whether F lies in the right half of the log axis over [minF, maxF]. */
    private static boolean rightHalf(long f, long minF, long maxF) {
        return Math.log(Math.max(1, f)) > (Math.log(Math.max(1, minF)) + Math.log(Math.max(1, maxF))) / 2;
    }

    /** The label's justification: its text ends at the mark in the right half, starts there in the left. */
    private static String side(long f, long minF, long maxF) {
        return rightHalf(f, minF, maxF) ? "right" : "left";
    }

    private static String offset(long f, long minF, long maxF) {
        return rightHalf(f, minF, maxF) ? "-1" : "1";
    }

    /** A figure with one decimal, NaN when it was not measured (gnuplot skips it). */
    private static String oneDecimal(Double v) {
        return v == null ? "NaN" : String.format(Locale.ROOT, "%.1f", v);
    }

    static String script(SearchSection s) {
        return s == null ? script(null, 1, 1) : script(s, Math.min(s.knee().inFlight(), s.peak().inFlight()),
                Math.max(s.knee().inFlight(), s.peak().inFlight()));
    }

    /**
     * search.gp for probes of F in [minF, maxF]. Issue 29: a mark in the right half of the log axis has its word on
     * its left, so "peak" and "knee" stay inside the frame (they were cut off at the right edge); the y axis starts
     * at 0 (a rate) and leaves room above the highest bar for the words.
     */
    static String script(SearchSection s, long minF, long maxF) {
        String marks = "set yrange [0:*]\nset offsets 0, 0, graph 0.12, 0\n";
        if (s != null) {
            marks += String.format(Locale.ROOT, """
                    set label 1 "peak" at first %d, first %.1f %s point pt 6 ps 2 offset %s,1
                    set label 2 "knee" at first %d, first %.1f %s point pt 8 ps 2 offset %s,-1
                    set object 1 rectangle from graph 0, first %.1f to graph 1, first %.1f fillcolor rgb "#dddddd" fillstyle solid 0.4 noborder behind
                    """, s.peak().inFlight(), s.peak().median(), side(s.peak().inFlight(), minF, maxF),
                    offset(s.peak().inFlight(), minF, maxF), s.knee().inFlight(), s.knee().median(),
                    side(s.knee().inFlight(), minF, maxF), offset(s.knee().inFlight(), minF, maxF),
                    s.peak().samples().medianInterval().lower(), s.peak().samples().medianInterval().upper());
        }
        String curve = "";
        if (s != null && s.fit() != null) {
            // the curve the knee was read off (issue 17), drawn over the probes
            marks += String.format(Locale.ROOT, "P = %.6g; F0 = %.6g; k = %.6g%ncurve(x) = P * x / (x**k + F0**k)**(1.0/k)%n",
                    s.fit().plateau(), s.fit().crossover(), s.fit().sharpness());
            curve = ", \\\n     curve(x) with lines dashtype 2 title \"fitted curve (the knee: where it reaches 90% of P)\"";
        }
        return """
                # msgscope: median throughput against the in-flight count F (A6), log x axis
                if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1200,700 } else { set terminal png size 1200,700 }
                set output "search.png"
                set title "Throughput against messages in flight (F search; grey band: the peak's 95% interval)"
                set xlabel "F (messages in flight)"
                set ylabel "median throughput [msg/s]"
                set logscale x
                set grid
                set key top left
                """ + marks + """
                plot "search.dat" using 1:2:7:8 with yerrorbars title "median per probe (bar: 95% interval)", \
                     "search.dat" using 1:2 smooth unique with lines title \"\"""" + curve + "\n";
    }
}
