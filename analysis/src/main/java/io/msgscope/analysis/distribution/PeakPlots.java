package io.msgscope.analysis.distribution;

import io.msgscope.analysis.output.GnuplotScripts;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The files that show {@link PeakAnalysis}'s result (M11): peaks.dat (the top peaks) and the gnuplot script that
 * draws latency per message with the k × median lines and the peaks circled and numbered. Analysis and writing are
 * kept apart (issue 15).
 */
public final class PeakPlots {
    /** Header of the marks data file. */
    public static final String MARKS_HEADER = "# seq latency_us";

    private PeakPlots() {
    }

    /** Writes the marks file: {@value #MARKS_HEADER}, one line per peak (index, latency in µs, 3 decimals). */
    public static Path writeMarks(Path file, List<PeakAnalysis.Peak> peaks) throws IOException {
        try (Writer out = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
            out.write(MARKS_HEADER);
            out.write('\n');
            for (PeakAnalysis.Peak p : peaks) {
                out.write(p.index() + " " + Num.fixed(p.latencyNs() / 1_000d, 3) + "\n");
            }
        }
        return file;
    }

    /**
     * A gnuplot plot element that draws the marks file over a per-message latency plot in µs,
     * meant to follow another element of a {@code plot} command: it starts with
     * {@code ", \"} and a newline, e.g.
     * {@code plot "trace.dat" using 1:($4/1000.0) ...} + fragment.
     */
    public static String plotFragment(String marksDat) {
        String dat = DistributionWriter.quote(DistributionWriter.checkFileName(marksDat, ""));
        return ", \\\n     " + dat + " using 1:2 with points pt 6 ps 2.5 lw 2 lc rgb \"#d62728\" title \"top peaks\""
                + ", \\\n     " + dat + " using 1:2:(sprintf(\"#%d\", $1)) with labels offset 0,1.2 tc rgb \"#d62728\""
                + " notitle";
    }

    /**
     * gnuplot commands (one per line) that draw a dashed horizontal line at each k × median of
     * {@code result}, in µs, labelled "k × median"; put them before the {@code plot} command.
     */
    public static String thresholdLines(PeakAnalysis.Result result) {
        StringBuilder s = new StringBuilder();
        if (result.present() == 0) {
            return "";
        }
        int tag = 100;
        for (PeakAnalysis.Exceedance e : result.exceedances()) {
            String y = Num.fixed(e.thresholdNs() / 1_000d, 3);
            s.append("set arrow ").append(tag).append(" from graph 0, first ").append(y).append(" to graph 1, first ")
                    .append(y).append(" nohead dt 2 lc rgb \"#7f7f7f\" front\n");
            s.append("set label ").append(tag).append(' ')
                    .append(DistributionWriter.quote(Num.threeFigures(e.factor()) + " × median"))
                    .append(" at graph 0.995, first ").append(y).append(" right offset 0,0.6 tc rgb \"#7f7f7f\" front\n");
            tag++;
        }
        return s.toString();
    }

    /**
     * Writes a complete script {@code dir/scriptName}: latency per message from {@code traceDat}
     * (trace.dat, latency in ns in column 4), the k × median lines and the peaks of
     * {@code marksDat} (see {@link #writeMarks}) circled and numbered. pngcairo if available,
     * else png.
     */
    public static Path gnuplot(Path dir, String scriptName, String traceDat, String marksDat, String pngName,
            PeakAnalysis.Result result) throws IOException {
        String trace = DistributionWriter.quote(DistributionWriter.checkFileName(traceDat, ""));
        return gnuplotOver(dir, scriptName, trace + " using 1:($4/1000.0) with points pt 7 ps 0.3 title "
                + "\"latency I_n - O_n\"", marksDat, pngName, result);
    }

    /**
     * As {@link #gnuplot}, with the per-message latency drawn by {@code latencyElement}, a gnuplot plot
     * element in µs against the message number (e.g. the envelope's min-max band and median, used for
     * long runs so that the plot stays fast).
     */
    public static Path gnuplotOver(Path dir, String scriptName, String latencyElement, String marksDat,
            String pngName, PeakAnalysis.Result result) throws IOException {
        String script = DistributionWriter.checkFileName(scriptName, ".gp");
        String png = DistributionWriter.checkFileName(pngName, ".png");
        StringBuilder s = new StringBuilder(1024);
        s.append("# msgscope: latency per message with the top peaks marked (M11)\n");
        s.append("# Run from the run folder: gnuplot ").append(script).append('\n');
        s.append(GnuplotScripts.TERMINAL);
        s.append("set output ").append(DistributionWriter.quote(png)).append('\n');
        s.append("set datafile missing NaN\n");
        s.append("set grid\n");
        s.append("set title \"Latency per message and its peaks\"\n");
        s.append("set xlabel \"message number\"\n");
        s.append("set ylabel \"latency [µs]\"\n");
        s.append("set key top left\n");
        s.append(thresholdLines(result));
        s.append("plot ").append(latencyElement);
        s.append(plotFragment(marksDat)).append('\n');
        Path file = dir.resolve(script);
        Files.writeString(file, s.toString(), StandardCharsets.UTF_8);
        return file;
    }
}
