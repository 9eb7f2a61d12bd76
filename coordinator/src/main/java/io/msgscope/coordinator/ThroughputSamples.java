package io.msgscope.coordinator;

import io.msgscope.analysis.output.GnuplotScripts;

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
    public static final String DAT = "samples.dat";
    public static final String GP = "samples.gp";

    private ThroughputSamples() {
    }

    /** Writes samples.dat and samples.gp into dir; nothing when there are no samples. Returns the file names. */
    public static List<String> write(Path dir, List<Double> samples, double median) throws IOException {
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
        Files.writeString(dir.resolve(DAT), sb.toString(), StandardCharsets.US_ASCII);
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
                set key top right
                plot "samples.dat" using 1:2 with linespoints pt 7 ps 0.6 title "sample", \\
                     %.3f with lines lw 2 dt 2 title "median"
                set output "samples-histogram.png"
                set title "Distribution of the throughput samples (%d bins of %.0f msg/s)"
                set xlabel "throughput [msg/s]"
                set ylabel "samples per bin"
                set format x "%%.0f"
                set format y "%%g"
                set autoscale
                set yrange [0:*]
                set style fill solid 0.6 border -1
                width = %.6f
                bin(x) = width * floor((x - %.6f) / width) + %.6f + width / 2
                plot "samples.dat" using (bin($2)):(1.0) smooth frequency with boxes title "samples"
                """, GnuplotScripts.TERMINAL, median, median, bins, width, width, min, min);
        Files.writeString(dir.resolve(GP), gp, StandardCharsets.UTF_8);
        return List.of(DAT, GP);
    }
}
