package io.msgscope.coordinator.throughput;

import io.msgscope.analysis.output.GnuplotScripts;
import io.msgscope.analysis.stats.SampleSummary;
import io.msgscope.analysis.stats.Stationarity;
import io.msgscope.coordinator.results.ResultFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The throughput samples of a {@code msgscope throughput} run (A7) as gnuplot input:
 * {@code samples.dat} ({@code sample msg_s}, in the order taken) and {@code samples.gp}, which draws
 * {@code samples.png} (each sample against its number, the median as a line) and
 * {@code samples-histogram.png} (their distribution, M8/M9 "throughput histograms").
 */
public final class ThroughputSamples {
    private ThroughputSamples() {
    }

    /** The same from the sample values alone (the report re-draws a summary.json's samples). */
    public static List<String> write(Path dir, List<Double> samples, double median) throws IOException {
        return write(dir, samples, SampleSummary.of(samples.stream().mapToDouble(Double::doubleValue).toArray()));
    }

    /**
     * Writes samples.dat and samples.gp into dir; nothing when there are no samples. Returns the file
     * names. The plot draws the median with its 95 % interval as a band and, when the stationarity
     * check flagged a change point, a vertical line where it found it.
     */
    public static List<String> write(Path dir, List<Double> samples, SampleSummary summary) throws IOException {
        double median = summary.median();
        if (samples.isEmpty()) {
            return List.of();
        }
        StringBuilder sb = new StringBuilder("# msgscope throughput: one sample per group of messages spanning at "
                + "least the threshold (A7)\n# sample msg_s\n");
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < samples.size(); i++) {
            double v = samples.get(i);
            sb.append(i).append(' ').append(String.format(Locale.ROOT, "%.1f", v)).append('\n');
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        Files.writeString(dir.resolve(ResultFiles.SAMPLES_DAT), sb.toString(), StandardCharsets.US_ASCII);
        int bins = Math.max(1, Math.min(50, samples.size() / 4));
        double width = max > min ? (max - min) / bins : Math.max(1, Math.abs(max) * 0.01);
        String gp = String.format(Locale.ROOT, """
                # msgscope: the throughput samples (A7) in order and as a histogram (from samples.dat)
                # Run from the results folder: gnuplot samples.gp
                %sset grid
                set output "samples.png"
                set title "Throughput samples in the order taken (median %.0f msg/s)"
                set xlabel "sample"
                set ylabel "throughput [msg/s]"
                set format y "%%.0f"
                set yrange [0:*]
                set key outside right top
                set object 1 rectangle from graph 0, first %.3f to graph 1, first %.3f fillcolor rgb "#dddddd" fillstyle solid 0.5 noborder behind
                %s
                plot "samples.dat" using 1:2 with linespoints pt 7 ps 0.6 title "sample", \\
                     %.3f with lines lw 2 dt 2 title "median (band: its 95%% interval)"
                set output "samples-histogram.png"
                set title "Distribution of the throughput samples (%d bins of %.0f msg/s)"
                set xlabel "throughput [msg/s]"
                set ylabel "samples per bin"
                set format x "%%.0f"
                set format y "%%g"
                unset object 1
                unset arrow 1
                set autoscale
                set xrange [%.3f:%.3f]
                set yrange [0:*]
                set style fill solid 0.6 border -1
                width = %.6f
                set boxwidth width
                last = %d
                k(x) = floor((x - %.6f) / width)
                bin(x) = width * (k(x) < last ? k(x) : last) + %.6f + width / 2
                plot "samples.dat" using (bin($2)):(1.0) smooth frequency with boxes title "samples"
                """, GnuplotScripts.TERMINAL, median, summary.medianInterval().lower(), summary.medianInterval().upper(),
                changeMark(summary.stationarity()), median, bins, width,
                // issue 29: a rate's axis never below 0 (autoscale once began it at -50,000 msg/s); one bin of margin
                Math.max(0, min - width), max + width, width,
                // the last bin holds its upper edge: the largest sample is in bin bins - 1, not a bin of its own
                bins - 1, min, min);
        Files.writeString(dir.resolve(ResultFiles.SAMPLES_GP), gp, StandardCharsets.UTF_8);
        return List.of(ResultFiles.SAMPLES_DAT, ResultFiles.SAMPLES_GP);
    }

    private static String changeMark(Stationarity st) {
        if (!st.changePoint()) {
            return "";
        }
        return String.format(Locale.ROOT, "set arrow 1 from first %.1f, graph 0 to first %.1f, graph 1 nohead lw 2 "
                + "lc rgb \"red\"\nset label 2 \"change point (not steady)\" at first %.1f, graph 0.95 offset 1,0",
                st.changeIndex() - 0.5, st.changeIndex() - 0.5, st.changeIndex() - 0.5);
    }
}
