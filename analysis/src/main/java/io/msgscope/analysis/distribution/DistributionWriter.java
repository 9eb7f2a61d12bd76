package io.msgscope.analysis.distribution;

import io.msgscope.analysis.output.GnuplotScripts;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Writes a {@link Histogram1D} as a gnuplot-readable data file and a ready gnuplot script that
 * plots it as boxes with the modes marked (M8, M9).
 *
 * <p>Data file (numbers independent of the default Locale, '.' as decimal point, UTF-8):
 * <pre>
 * # bin_low bin_high bin_center count density
 * # unit µs; bins 40 of width 5.0000 (overlap 2, step 2.5000); range [0.0000, 200.0000)
 * # total 1000; underflow 0; overflow 3; skipped 0
 * 0.0000 5.0000 2.5000 12 2.40000e-03
 * ...
 * </pre>
 * The edges and centres carry enough decimals to show the step with four significant digits;
 * the density ({@code count/(total·width)}, per unit) has six significant digits.
 */
public final class DistributionWriter {

    /** Header line of every data file. */
    public static final String HEADER = "# bin_low bin_high bin_center count density";

    private DistributionWriter() {
    }

    /** Writes {@code histogram} to {@code file}; {@code unit} (e.g. "µs") only goes into a comment. */
    public static Path write(Path file, Histogram1D histogram, String unit) throws IOException {
        Objects.requireNonNull(histogram, "histogram");
        try (Writer out = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 14)) {
            write(out, histogram, unit);
        }
        return file;
    }

    /** Writes the data file text to {@code out} (not closed). */
    public static void write(Writer out, Histogram1D h, String unit) throws IOException {
        int decimals = Num.decimalsFor(h.step());
        String u = unit == null || unit.isBlank() ? "(none)" : oneLine(unit);
        out.write(HEADER);
        out.write('\n');
        out.write("# unit " + u + "; bins " + h.binCount() + " of width " + Num.fixed(h.binWidth(), decimals)
                + " (overlap " + h.overlap() + ", step " + Num.fixed(h.step(), decimals) + "); range ["
                + Num.fixed(h.lo(), decimals) + ", " + Num.fixed(h.hi(), decimals) + ")\n");
        out.write("# total " + h.total() + "; underflow " + h.underflow() + "; overflow " + h.overflow()
                + "; skipped " + h.skipped() + "\n");
        long[] counts = h.counts();
        long total = h.total();
        double width = h.binWidth();
        StringBuilder line = new StringBuilder(96);
        for (int b = 0; b < counts.length; b++) {
            double low = h.binLow(b);
            double high = h.binHigh(b);
            double density = total == 0 ? 0 : counts[b] / (total * width);
            line.setLength(0);
            line.append(Num.fixed(low, decimals)).append(' ')
                    .append(Num.fixed(high, decimals)).append(' ')
                    .append(Num.fixed((low + high) / 2, decimals)).append(' ')
                    .append(counts[b]).append(' ')
                    .append(Num.scientific(density, 6)).append('\n');
            out.append(line);
        }
    }

    /**
     * Writes the gnuplot script {@code dir/scriptName} that draws {@code datFile} (written by
     * {@link #write}) as boxes and marks each of {@code modeMarks} (x positions in the data's
     * unit, e.g. {@link HumpinessResult#positions()}) with a vertical arrow and its value. With
     * overlapping bins each box is one step wide, centred on its bin, so the boxes tile the axis.
     * Run it from {@code dir}: {@code gnuplot scriptName}; pngcairo if available, else png.
     *
     * @return the script written
     */
    public static Path gnuplot(Path dir, String scriptName, String datFile, String pngName, String title,
            String xLabel, List<Double> modeMarks) throws IOException {
        return gnuplot(dir, scriptName, datFile, pngName, title, xLabel, modeMarks, MESSAGES);
    }

    /** The y axis of a histogram of one value per message. */
    public static final String MESSAGES = "messages per bin";
    /** The y axis of a histogram of one value per window of N messages (CPU, network). */
    public static final String WINDOWS = "windows per bin (one value per window of messages)";

    /** As above, with the y axis saying what is counted ({@link #MESSAGES} or {@link #WINDOWS}, issue 18). */
    public static Path gnuplot(Path dir, String scriptName, String datFile, String pngName, String title,
            String xLabel, List<Double> modeMarks, String yLabel) throws IOException {
        Path script = dir.resolve(checkFileName(scriptName, ".gp"));
        Files.writeString(script, script(scriptName, checkFileName(datFile, ""), checkFileName(pngName, ".png"),
                title, xLabel, modeMarks, yLabel), StandardCharsets.UTF_8);
        return script;
    }

    /** As above, for a histogram over [xLo, xHi] (the mode numbers drawn are thinned over that range, issue 29). */
    public static Path gnuplot(Path dir, String scriptName, String datFile, String pngName, String title,
            String xLabel, List<Double> modeMarks, double xLo, double xHi) throws IOException {
        Path script = dir.resolve(checkFileName(scriptName, ".gp"));
        Files.writeString(script, script(scriptName, checkFileName(datFile, ""), checkFileName(pngName, ".png"),
                title, xLabel, modeMarks, MESSAGES, xLo, xHi), StandardCharsets.UTF_8);
        return script;
    }

    static String script(String scriptName, String datFile, String pngName, String title, String xLabel,
            List<Double> modeMarks) {
        return script(scriptName, datFile, pngName, title, xLabel, modeMarks, MESSAGES);
    }

    static String script(String scriptName, String datFile, String pngName, String title, String xLabel,
            List<Double> modeMarks, String yLabel) {
        return script(scriptName, datFile, pngName, title, xLabel, modeMarks, yLabel, Double.NaN, Double.NaN);
    }

    /**
     * The script, the modes marked by arrows numbered on the plot and listed with their positions in the key outside
     * the frame (issue 29: a cluster of modes once piled its labels into an unreadable heap). A number is drawn only
     * when it stands at least {@link #LABEL_GAP} of the x range {@code [xLo, xHi]} from the last number drawn at the
     * same height (three heights in turn); NaN bounds take the marks' own span.
     */
    static String script(String scriptName, String datFile, String pngName, String title, String xLabel,
            List<Double> modeMarks, String yLabel, double xLo, double xHi) {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(xLabel, "xLabel");
        List<Double> marks = modeMarks == null ? List.of()
                : modeMarks.stream().filter(m -> m != null && Double.isFinite(m)).sorted().toList();
        double lo = Double.isNaN(xLo) ? (marks.isEmpty() ? 0 : marks.get(0)) : xLo;
        double hi = Double.isNaN(xHi) ? (marks.isEmpty() ? 0 : marks.get(marks.size() - 1)) : xHi;
        double gap = LABEL_GAP * (hi - lo);
        StringBuilder s = new StringBuilder(1024);
        s.append("# msgscope: ").append(oneLine(title)).append(" (from ").append(datFile).append(")\n");
        s.append("# Run from the folder of the data file: gnuplot ").append(scriptName).append('\n');
        s.append(GnuplotScripts.TERMINAL);
        s.append("set output ").append(quote(pngName)).append('\n');
        s.append("set datafile missing NaN\n");
        s.append("set grid\n");
        s.append("set title ").append(quote(title)).append('\n');
        s.append("set xlabel ").append(quote(xLabel)).append('\n');
        s.append("set ylabel ").append(quote(yLabel)).append('\n');
        s.append("set yrange [0:*]\n");
        s.append("set style fill solid 0.6 border -1\n");
        s.append(marks.isEmpty() ? "set key top right\n" : "set key outside right top\n");
        s.append("# box width = the step between bin centres (the bin width unless bins overlap)\n");
        s.append("stats ").append(quote(datFile)).append(" using 3 nooutput\n");
        s.append("step = (STATS_records > 1) ? (STATS_max - STATS_min) / (STATS_records - 1) : 0\n");
        double[] lastAt = new double[LABEL_HEIGHTS.length];
        java.util.Arrays.fill(lastAt, Double.NEGATIVE_INFINITY);
        int labels = 0;
        for (int i = 1; i <= marks.size(); i++) {
            String x = plain(marks.get(i - 1));
            s.append("set arrow ").append(i).append(" from first ").append(x).append(", graph 0.87 to first ")
                    .append(x).append(", graph 0 head filled lw 2 lc rgb \"#d62728\" front\n");
            int h = labels % LABEL_HEIGHTS.length;
            if (marks.get(i - 1) - lastAt[h] >= gap) {
                lastAt[h] = marks.get(i - 1);
                labels++;
                s.append("set label ").append(i).append(" ").append(quote(Integer.toString(i)))
                        .append(" at first ").append(x).append(", graph ").append(LABEL_HEIGHTS[h])
                        .append(" center tc rgb \"#d62728\" front\n");
            }
        }
        s.append("plot ").append(quote(datFile))
                .append(" using 3:4:(step > 0 ? step : $2 - $1) with boxes lc rgb \"#4c72b0\" title \"count\"");
        if (!marks.isEmpty()) {
            s.append(", \\\n     NaN with lines lw 2 lc rgb \"#d62728\" title \"modes (humpiness):\"");
            for (int i = 1; i <= marks.size(); i++) {
                s.append(", \\\n     NaN with lines lc rgb \"#ffffff\" title ")
                        .append(quote(i + ": " + Num.threeFigures(marks.get(i - 1)) + " " + unitOf(xLabel)));
            }
        }
        s.append('\n');
        return s.toString();
    }

    /** The smallest distance, as a share of the x range, between two mode numbers drawn at one height. */
    static final double LABEL_GAP = 0.03;

    /** The unit in an axis label "name [unit]", or "". */
    private static String unitOf(String axisLabel) {
        int a = axisLabel.lastIndexOf('[');
        int b = axisLabel.lastIndexOf(']');
        return a >= 0 && b > a ? axisLabel.substring(a + 1, b) : "";
    }

    /** A finite double as plain text gnuplot reads (shortest representation, no exponent). */
    private static final String[] LABEL_HEIGHTS = {"0.985", "0.94", "0.895"};

    static String plain(double v) {
        return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    /** A gnuplot double-quoted string (one definition: {@link io.msgscope.analysis.output.GnuplotScripts#quote}). */
    static String quote(String text) {
        return GnuplotScripts.quote(text);
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\R", " ");
    }

    static String checkFileName(String name, String suffix) {
        Objects.requireNonNull(name, "file name");
        if (!name.endsWith(suffix) || name.length() == suffix.length() || name.contains("/")
                || name.contains("\\") || name.contains("\"") || name.contains("'")) {
            throw new IllegalArgumentException("expected a plain file name ending in " + suffix + ", was \""
                    + name + "\"");
        }
        return name;
    }
}
