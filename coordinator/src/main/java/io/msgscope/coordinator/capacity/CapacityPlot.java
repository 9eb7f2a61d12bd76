package io.msgscope.coordinator.capacity;

import java.util.Locale;

/**
 * The hockey stick as gnuplot input (issue 31 item 4): {@code capacity.dat}, one row per run in the order taken, and
 * {@code capacity.gp}, which draws {@code capacity.png}: each objective percentile (from the intended send time)
 * against the rate asked, on a log latency axis, each bound a horizontal line, the found rate a vertical one.
 */
public final class CapacityPlot {
    public static final String DAT = "capacity.dat";
    public static final String GP = "capacity.gp";

    private CapacityPlot() {
    }

    /** capacity.dat: index, rate asked and achieved, pass (1/0), decides (0: superseded by a longer hold), hold, then each percentile in ms. */
    static String data(CapacityResult r) {
        StringBuilder sb = new StringBuilder("# index rate_asked_msg_s rate_achieved_msg_s pass decides hold_s");
        for (Objective.Bound b : r.objective().bounds()) {
            sb.append(' ').append(b.name()).append("_ms");
        }
        sb.append("\n# latency from the intended send time over the step; NaN = unknown; one row per run in the order "
                + "taken\n");
        int i = 0;
        for (CapacitySearch.Taken t : r.search().steps()) {
            Step s = t.step();
            sb.append(String.format(Locale.ROOT, "%d %.0f %s %d %d %d", ++i, s.rateAsked(),
                    s.rateAchieved() == null ? "NaN" : String.format(Locale.ROOT, "%.1f", s.rateAchieved()),
                    s.pass() ? 1 : 0, t.decides() ? 1 : 0, s.holdS()));
            for (Objective.Bound b : r.objective().bounds()) {
                Double v = s.percentilesUs().get(b.name());
                sb.append(' ').append(v == null ? "NaN" : String.format(Locale.ROOT, "%.4f", v / 1e3));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    static String script(CapacityResult r) {
        StringBuilder marks = new StringBuilder();
        StringBuilder plots = new StringBuilder();
        int col = 7;
        int n = 0;
        for (Objective.Bound b : r.objective().bounds()) {
            n++;
            marks.append(String.format(Locale.ROOT, "set arrow %d from graph 0, first %.6g to graph 1, first %.6g "
                    + "nohead dashtype 2 lc %d%n", n, b.boundUs() / 1e3, b.boundUs() / 1e3, n));
            marks.append(String.format(Locale.ROOT, "set label %d \"%s bound\" at graph 0.01, first %.6g offset 0,0.6%n",
                    n, b.name(), b.boundUs() / 1e3));
            plots.append(n == 1 ? "plot " : ", \\\n     ");
            plots.append(String.format(Locale.ROOT, "\"%s\" using 2:($5 == 1 ? $%d : 1/0) with points lc %d pt 7 "
                    + "title \"%s (each run that decided)\", \"%s\" using 2:($5 == 1 ? $%d : 1/0) smooth unique with "
                    + "lines lc %d title \"%s (mean per rate)\", \"%s\" using 2:($5 == 0 ? $%d : 1/0) with points lc "
                    + "%d pt 6 title \"%s (held longer)\"", DAT, col, n, b.name(), DAT, col, n, b.name(), DAT, col, n,
                    b.name()));
            col++;
        }
        if (r.search().found() != null) {
            n++;
            double max = r.search().steps().stream().mapToDouble(t -> t.step().rateAsked()).max().orElse(1);
            double min = r.search().steps().stream().mapToDouble(t -> t.step().rateAsked()).min().orElse(1);
            boolean right = r.search().found() > (min + max) / 2; // the word inside the frame (as search.gp's marks)
            marks.append(String.format(Locale.ROOT, "set arrow %d from first %.1f, graph 0 to first %.1f, graph 1 "
                    + "nohead lw 2 lc rgb \"#008800\"%nset label %d \"found %.0f msg/s\" at first %.1f, graph 0.5 "
                    + "%s offset %s,0%n", n, r.search().found(), r.search().found(), n, r.search().found(),
                    r.search().found(), right ? "right" : "left", right ? "-0.5" : "0.5"));
        }
        return "# msgscope capacity: latency from the intended send time against the rate asked (the hockey stick)\n"
                + "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) { set terminal pngcairo size 1200,700 } "
                + "else { set terminal png size 1200,700 }\n"
                + "set output \"capacity.png\"\n"
                + "set title \"Latency against the open-loop rate (dashed: the objective; green: the rate found)\"\n"
                + "set xlabel \"rate asked [msg/s]\"\nset ylabel \"latency from the intended send time [ms]\"\n"
                + "set logscale y\nset grid\nset key bottom right\nset offsets graph 0.05, graph 0.05, graph 0.1, graph 0.05\n" + marks + plots + "\n";
    }
}
