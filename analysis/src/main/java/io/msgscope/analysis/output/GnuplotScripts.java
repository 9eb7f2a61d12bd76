package io.msgscope.analysis.output;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes the ready gnuplot scripts (M9) next to {@code trace.dat} and
 * {@code latency-histogram.dat}. Each script is self-contained and is run from the run folder,
 * e.g. {@code gnuplot latency.gp}; it prefers the pngcairo terminal and falls back to png.
 */
public final class GnuplotScripts {

    public static final String LATENCY = "latency.gp";
    public static final String LATENCY_HISTOGRAM = "latency-histogram.gp";
    public static final String THROUGHPUT = "throughput.gp";

    /** The terminal every msgscope script uses: 1200x700 PNG, pngcairo when gnuplot has it, else png; UTF-8. */
    public static final String TERMINAL = "set encoding utf8\n"
            + "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
            + "    set terminal pngcairo size 1200,700 noenhanced font \"sans,10\"\n"
            + "} else {\n"
            + "    set terminal png size 1200,700 noenhanced\n"
            + "}\n";

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
        return writeAll(dir, hasCorrected, false);
    }

    /**
     * As {@link #writeAll(Path, boolean)}; with {@code envelope} the per-message plots read
     * {@link TraceEnvelope#FILE_NAME} (min-max band and median per bucket) instead of every row of
     * trace.dat, so that gnuplot draws a few thousand rows rather than millions.
     */
    public static List<Path> writeAll(Path dir, boolean hasCorrected, boolean envelope) throws IOException {
        return writeAll(dir, hasCorrected, envelope, ThroughputAxis.PLAIN);
    }

    /**
     * How the ST/RT plot is labelled and scaled (issue 17): the windows the values span, and an upper
     * limit of the y axis with the reason, so that bursts parsed at once (RT over M messages of a
     * receiver reading many per system call) do not flatten the plot.
     *
     * @param windows what each value spans, e.g. "M = 100 messages"; empty = say nothing
     * @param yMax    the top of the y axis, NaN = automatic
     * @param note    why the axis is clipped (shown in the title); empty when not clipped
     */
    public record ThroughputAxis(String windows, double yMax, String note, boolean empty) {
        public static final ThroughputAxis PLAIN = new ThroughputAxis("", Double.NaN, "");

        public ThroughputAxis(String windows, double yMax, String note) {
            this(windows, yMax, note, false);
        }

        /**
         * No ST or RT value at all (a run too short or too fast for one window of M messages and the minimum
         * span): the plot says so instead of failing in gnuplot on a file with no valid points.
         */
        public static ThroughputAxis none(String windows) {
            return new ThroughputAxis(windows, Double.NaN, "", true);
        }
    }

    /** As {@link #writeAll(Path, boolean, boolean)}, the ST/RT plot labelled and scaled by {@code axis}. */
    public static List<Path> writeAll(Path dir, boolean hasCorrected, boolean envelope, ThroughputAxis axis)
            throws IOException {
        Path latency = write(dir.resolve(LATENCY), envelope ? latencyEnvelopeScript(hasCorrected)
                : latencyScript(hasCorrected));
        Path histogram = HistogramWriter.writeScript(dir, false);
        Path throughput = write(dir.resolve(THROUGHPUT), axis.empty() ? noThroughputScript(axis.windows())
                : withAxis(envelope ? throughputEnvelopeScript() : throughputScript(), axis));
        return List.of(latency, histogram, throughput);
    }

    /**
     * One load phase as the per-message plots mark it (issue 31): messages {@code firstSeq .. endSeq-1} (none for a
     * pause, drawn as a dashed line where it falls).
     */
    public record PhaseBand(String name, long firstSeq, long endSeq) {
    }

    /**
     * As {@link #writeAll(Path, boolean, boolean, ThroughputAxis)}, with the load phases drawn behind the latency and
     * ST/RT plots: every other phase shaded, each named at the top of its band; a pause is a dashed line.
     */
    public static List<Path> writeAll(Path dir, boolean hasCorrected, boolean envelope, ThroughputAxis axis,
                                      List<PhaseBand> phases) throws IOException {
        List<Path> written = writeAll(dir, hasCorrected, envelope, axis);
        if (phases != null && !phases.isEmpty()) {
            for (Path p : List.of(dir.resolve(LATENCY), dir.resolve(THROUGHPUT))) {
                java.nio.file.Files.writeString(p, withPhases(java.nio.file.Files.readString(p), phases));
            }
        }
        return written;
    }

    /** One fault as the per-message plots mark it (issue 32): a labelled vertical line at the message due then. */
    public record FaultLine(String label, long seq) {
    }

    /** Adds a labelled vertical line per fault to the latency and ST/RT scripts already written in {@code dir}. */
    public static void addFaults(Path dir, List<FaultLine> faults) throws IOException {
        if (faults == null || faults.isEmpty()) {
            return;
        }
        for (Path p : List.of(dir.resolve(LATENCY), dir.resolve(THROUGHPUT))) {
            java.nio.file.Files.writeString(p, withFaults(java.nio.file.Files.readString(p), faults));
        }
    }

    /** {@code script} with a red vertical line and its label per fault set before its first {@code plot} line. */
    static String withFaults(String script, List<FaultLine> faults) {
        StringBuilder s = new StringBuilder("# faults (issue 32): a line at the message due when each was applied\n");
        for (FaultLine f : faults) {
            s.append(String.format(java.util.Locale.ROOT, "set arrow from first %d, graph 0 to first %d, graph 1 "
                    + "nohead lw 2 lc rgb \"#cb181d\" front%n", f.seq(), f.seq()));
            s.append(String.format(java.util.Locale.ROOT, "set label %s at first %d, graph 0.90 right rotate by 90 "
                    + "offset -0.4,0 font \",9\" tc rgb \"#cb181d\" front%n", quote(f.label()), f.seq()));
        }
        int plot = script.startsWith("plot ") ? 0 : script.indexOf("\nplot ") + 1;
        if (plot <= 0 && !script.startsWith("plot ")) {
            return script + s;
        }
        return script.substring(0, plot) + s + script.substring(plot);
    }

    /** {@code script} with the phases' bands and names set before its first {@code plot} line. */
    static String withPhases(String script, List<PhaseBand> phases) {
        StringBuilder s = new StringBuilder("# load phases (issue 31): shaded bands of messages, a pause dashed\n");
        int shaded = 0;
        for (int k = 0; k < phases.size(); k++) {
            PhaseBand b = phases.get(k);
            String name = quote(b.name());
            if (b.endSeq() <= b.firstSeq()) {
                s.append(String.format(java.util.Locale.ROOT, "set arrow from first %d, graph 0 to first %d, graph 1 "
                        + "nohead dt 2 lc rgb \"#737373\" back%n", b.firstSeq(), b.firstSeq()));
                s.append(String.format(java.util.Locale.ROOT, "set label %s at first %d, graph 0.93 left offset 0.3,0 "
                        + "font \",9\" tc rgb \"#525252\" front%n", name, b.firstSeq()));
                continue;
            }
            if (shaded++ % 2 == 0) {
                s.append(String.format(java.util.Locale.ROOT, "set object rect from first %d, graph 0 to first %d, "
                        + "graph 1 fc rgb \"#d9d9d9\" fs solid 0.35 noborder behind%n", b.firstSeq(), b.endSeq()));
            }
            s.append(String.format(java.util.Locale.ROOT, "set label %s at first %d, graph 0.97 left offset 0.3,0 "
                    + "font \",9\" tc rgb \"#525252\" front%n", name, b.firstSeq()));
        }
        int plot = script.startsWith("plot ") ? 0 : script.indexOf("\nplot ") + 1;
        if (plot <= 0 && !script.startsWith("plot ")) {
            return script + s; // no plot line (a script that only says there is nothing to plot)
        }
        return script.substring(0, plot) + s + script.substring(plot);
    }

    /** The throughput script with the windows in its title and, when given, a clipped y axis. */
    static String withAxis(String script, ThroughputAxis axis) {
        if (axis.windows().isEmpty() && Double.isNaN(axis.yMax())) {
            return script;
        }
        String extra = (axis.windows().isEmpty() ? "" : " over windows of " + axis.windows())
                + (axis.note().isEmpty() ? "" : "\n" + axis.note());
        int title = script.indexOf("set title \"") + "set title \"".length();
        int close = script.indexOf('"', title);
        String out = script.substring(0, close) + extra.replace("\"", "'").replace("\n", "\\n")
                + script.substring(close);
        if (!Double.isNaN(axis.yMax())) {
            out = out.replace("set format y", String.format(java.util.Locale.ROOT, "set yrange [0:%.1f]%nset format y",
                    axis.yMax()));
        }
        return out;
    }

    /**
     * A plot element (no leading {@code plot}) drawing one series of the envelope: its min-max band per
     * bucket, filled, and its median as a line; columns are 1-based (min, median = min + 1, max = min + 2).
     */
    public static String envelopeElement(int minColumn, String scale, String label, String bandColour,
                                         String lineColour) {
        String q = TraceEnvelope.FILE_NAME;
        String c0 = col(minColumn, scale);
        String c1 = col(minColumn + 1, scale);
        String c2 = col(minColumn + 2, scale);
        return "\"" + q + "\" using 4:" + c0 + ":" + c2 + " with filledcurves fc rgb \"" + bandColour
                + "\" fs transparent solid 0.35 noborder title " + quote(label + " min-max per bucket") + ", \\\n"
                + "     \"" + q + "\" using 4:" + c1 + " with lines lw 1 lc rgb \"" + lineColour + "\" title "
                + quote(label + " median per bucket");
    }

    private static String col(int c, String scale) {
        return scale.isEmpty() ? Integer.toString(c) : "($" + c + scale + ")";
    }

    static String latencyEnvelopeScript(boolean hasCorrected) {
        StringBuilder s = new StringBuilder(preamble("latency per message, envelope of buckets (from "
                + TraceEnvelope.FILE_NAME + ")", "latency.png"));
        s.append("set title \"Latency per message: min, median and max of each bucket of consecutive messages\"\n");
        s.append("set xlabel \"message number\"\n");
        s.append("set ylabel \"latency [µs]\"\n");
        s.append("set key below\n");
        s.append("plot ").append(envelopeElement(5, "", "latency I_n - O_n", "#6baed6", "#08519c"));
        if (hasCorrected) {
            s.append(", \\\n     ").append(envelopeElement(14, "", "latency corrected for coordinated omission",
                    "#fdae6b", "#a63603"));
        }
        return s.append('\n').toString();
    }

    static String throughputEnvelopeScript() {
        return preamble("sender and receiver throughput per message, envelope of buckets (from "
                + TraceEnvelope.FILE_NAME + ")", "throughput.png")
                + "set title \"Sender throughput ST and receiver throughput RT: min, median and max per bucket\"\n"
                + "set xlabel \"message number\"\n"
                + "set ylabel \"throughput [msg/s]\"\n"
                + "set format y \"%.0f\"\n"
                + "set key below\n"
                // issue 29: RT first and wide, ST over it thin: where they agree, both stay visible; bands see-through
                + "plot " + envelopeElement(11, "", "RT (received)", "#fdd0a2", "#d94801").replace("lw 1", "lw 4")
                + ", \\\n     " + envelopeElement(8, "", "ST (sent)", "#a1d99b", "#006d2c") + "\n";
    }

    static Path write(Path file, String text) throws IOException {
        return Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    /**
     * Writes a script {@code dir/scriptName} that plots trace.dat columns against the message
     * number (column 1) {@code with steps}, one line per entry, for per-window series such as CPU
     * usage or network rate (M3, M4, M9). The y axis starts at 0; an undefined (NaN) window shows
     * as a gap, not bridged by the neighbouring values. Get the column numbers from
     * {@link TraceDatWriter#columnOf}.
     *
     * @param scriptName file name ending in {@code .gp} (no directory)
     * @param pngName output file name ending in {@code .png} (no directory)
     * @param labelToTraceDatColumn legend label → 1-based trace.dat column, in plotting order
     * @return the script written
     */
    public static Path writeSteps(Path dir, String scriptName, String pngName, String title, String yLabel,
            LinkedHashMap<String, Integer> labelToTraceDatColumn) throws IOException {
        return writeSteps(dir, scriptName, pngName, title, yLabel, labelToTraceDatColumn, false);
    }

    /**
     * As {@link #writeSteps(Path, String, String, String, String, LinkedHashMap)}; with {@code envelope}
     * the columns are those of {@link TraceEnvelope} (get them from {@link TraceEnvelope#columnOf}) and
     * the x axis is each bucket's middle message.
     */
    public static Path writeSteps(Path dir, String scriptName, String pngName, String title, String yLabel,
            LinkedHashMap<String, Integer> columns, boolean envelope) throws IOException {
        return write(dir.resolve(checkFileName(scriptName, ".gp")),
                stepsScript(scriptName, checkFileName(pngName, ".png"), title, yLabel, columns,
                        envelope ? TraceEnvelope.FILE_NAME : TraceDatWriter.FILE_NAME, envelope ? 4 : 1));
    }

    static String stepsScript(String scriptName, String pngName, String title, String yLabel,
            Map<String, Integer> columns) {
        return stepsScript(scriptName, pngName, title, yLabel, columns, TraceDatWriter.FILE_NAME, 1);
    }

    static String stepsScript(String scriptName, String pngName, String title, String yLabel,
            Map<String, Integer> columns, String dataFile, int xColumn) {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(yLabel, "yLabel");
        Objects.requireNonNull(columns, "labelToTraceDatColumn");
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("no columns to plot in " + scriptName);
        }
        String what = title.replaceAll("\\R", " ") + " (from " + dataFile + ")";
        // NaN (an unmeasured window) must break the line: "missing" points would be bridged.
        StringBuilder s = new StringBuilder(preamble(what, scriptName, pngName)
                .replace("set datafile missing NaN\n", "# NaN = unmeasured window: the line breaks there\n"));
        s.append("set title ").append(quote(title)).append('\n');
        s.append("set xlabel \"message number\"\n");
        s.append("set ylabel ").append(quote(yLabel)).append('\n');
        s.append("set yrange [0:*]\n");
        s.append("set key top right\n");
        String separator = "plot ";
        for (Map.Entry<String, Integer> e : columns.entrySet()) {
            Integer column = e.getValue();
            if (column == null || column < 2 || column == xColumn) {
                throw new IllegalArgumentException(dataFile + " column for \"" + e.getKey()
                        + "\" must be >= 2 and not the message-number column " + xColumn + ", was " + column);
            }
            s.append(separator).append('"').append(dataFile).append("\" using ").append(xColumn).append(':')
                    .append(column.intValue())
                    .append(" with steps lw 1 title ").append(quote(Objects.requireNonNull(e.getKey(), "label")));
            separator = ", \\\n     ";
        }
        s.append('\n');
        return s.toString();
    }

    /** A gnuplot double-quoted string (backslash escapes are interpreted inside): quotes and backslashes escaped, line breaks made spaces. */
    public static String quote(String text) {
        StringBuilder q = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                q.append('\\').append(c);
            } else if (c == '\n' || c == '\r') {
                q.append(' ');
            } else {
                q.append(c);
            }
        }
        return q.append('"').toString();
    }

    private static String checkFileName(String name, String suffix) {
        Objects.requireNonNull(name, "file name");
        if (!name.endsWith(suffix) || name.length() == suffix.length() || name.contains("/")
                || name.contains("\\") || name.contains("\"") || name.contains("'")) {
            throw new IllegalArgumentException("expected a plain file name ending in " + suffix + ", was \""
                    + name + "\"");
        }
        return name;
    }

    static String preamble(String what, String png) {
        return preamble(what, png.replace(".png", ".gp"), png);
    }

    private static String preamble(String what, String script, String png) {
        return "# msgscope: " + what + "\n"
                + "# Run from the run folder: gnuplot " + script + "\n"
                + TERMINAL
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

    /** An empty frame that says why there is no ST/RT curve. */
    static String noThroughputScript(String windows) {
        return preamble("sender and receiver throughput: no value to plot", "throughput.png")
                + "set title \"Sender throughput ST and receiver throughput RT: no value\"\n"
                + "set xrange [0:1]\nset yrange [0:1]\nunset xtics\nunset ytics\n"
                + "set label 1 \"no window of " + (windows.isEmpty() ? "M messages" : windows).replace("\"", "'")
                + " in this run (too short or too fast): see --window and --window-min-time\" at graph 0.5, graph 0.5 center\n"
                + "plot 2 notitle\n";
    }

    static String throughputScript() {
        return preamble("sender and receiver throughput per message (from trace.dat)", "throughput.png")
                + "set title \"Sender throughput ST and receiver throughput RT per message\"\n"
                + "set xlabel \"message number\"\n"
                + "set ylabel \"throughput [msg/s]\"\n"
                + "set format y \"%.0f\"\n"
                + "set key top right\n"
                // issue 29: RT first, wide and see-through; ST over it thin, so neither hides the other
                + "plot \"trace.dat\" using 1:6 with lines lw 4 lc rgb \"#60d94801\" title \"RT (received)\", \\\n"
                + "     \"trace.dat\" using 1:5 with lines lw 1 lc rgb \"#006d2c\" title \"ST (sent)\"\n";
    }
}
