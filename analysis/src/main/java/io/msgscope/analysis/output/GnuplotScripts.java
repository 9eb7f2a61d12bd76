package io.msgscope.analysis.output;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes the ready gnuplot scripts (M9) next to {@code trace.dat} and
 * {@code latency-histogram.dat}. Each script is self-contained and is run from the run folder,
 * e.g. {@code gnuplot latency.gp}; it prefers the pngcairo terminal and falls back to png.
 */
public final class GnuplotScripts {

    public static final String LATENCY = "latency.gp";
    public static final String LATENCY_HISTOGRAM = "latency-histogram.gp";
    public static final String THROUGHPUT = "throughput.gp";

    private GnuplotScripts() {
    }

    /**
     * Writes {@code latency.gp}, {@code latency-histogram.gp} and {@code throughput.gp} into
     * {@code dir}.
     *
     * @param hasCorrected whether trace.dat has the rate-mode columns (intended send time and
     *     coordinated-omission corrected latency); the latency plot then shows both latencies
     * @return the scripts written
     */
    public static List<Path> writeAll(Path dir, boolean hasCorrected) throws IOException {
        Path latency = write(dir.resolve(LATENCY), latencyScript(hasCorrected));
        Path histogram = write(dir.resolve(LATENCY_HISTOGRAM), histogramScript());
        Path throughput = write(dir.resolve(THROUGHPUT), throughputScript());
        return List.of(latency, histogram, throughput);
    }

    private static Path write(Path file, String text) throws IOException {
        return Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    private static String preamble(String what, String png) {
        return "# msgscope: " + what + "\n"
                + "# Run from the run folder: gnuplot " + png.replace(".png", ".gp") + "\n"
                + "set encoding utf8\n"
                + "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
                + "    set terminal pngcairo size 1200,700 noenhanced font \"sans,10\"\n"
                + "} else {\n"
                + "    set terminal png size 1200,700 noenhanced\n"
                + "}\n"
                + "set output \"" + png + "\"\n"
                + "set datafile missing NaN\n"
                + "set grid\n";
    }

    static String latencyScript(boolean hasCorrected) {
        StringBuilder s = new StringBuilder(preamble("latency per message (from trace.dat)", "latency.png"));
        s.append("set title \"Latency per message\"\n");
        s.append("set xlabel \"message number\"\n");
        s.append("set ylabel \"latency [µs]\"\n");
        s.append("set key top left\n");
        s.append("plot \"trace.dat\" using 1:($4/1000.0) with points pt 7 ps 0.3 title \"latency I_n - O_n\"");
        if (hasCorrected) {
            s.append(", \\\n     \"trace.dat\" using 1:($8/1000.0) with points pt 7 ps 0.3 ")
                    .append("title \"latency corrected for coordinated omission (I_n - intended_n)\"");
        }
        s.append('\n');
        return s.toString();
    }

    static String histogramScript() {
        return preamble("latency histogram (from latency-histogram.dat)", "latency-histogram.png")
                + "set title \"Latency histogram (min to p99.9; overflow count in the data file)\"\n"
                + "set xlabel \"latency [µs]\"\n"
                + "set ylabel \"messages per bin\"\n"
                + "set style fill solid 0.6 border -1\n"
                + "set key top right\n"
                + "plot \"latency-histogram.dat\" using 3:4:($2-$1) with boxes title \"messages\"\n";
    }

    static String throughputScript() {
        return preamble("sender and receiver throughput per message (from trace.dat)", "throughput.png")
                + "set title \"Sender throughput ST and receiver throughput RT per message\"\n"
                + "set xlabel \"message number\"\n"
                + "set ylabel \"throughput [msg/s]\"\n"
                + "set format y \"%.0f\"\n"
                + "set key top right\n"
                + "plot \"trace.dat\" using 1:5 with lines lw 1 title \"ST (sent)\", \\\n"
                + "     \"trace.dat\" using 1:6 with lines lw 1 title \"RT (received)\"\n";
    }
}
