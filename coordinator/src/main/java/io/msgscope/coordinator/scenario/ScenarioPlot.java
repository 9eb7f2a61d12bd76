package io.msgscope.coordinator.scenario;

import java.util.List;
import java.util.Locale;

/**
 * A scenario run's time series as gnuplot input (issue 30: one writer per format): timeseries.dat, one row per second
 * of the measurement, and timeseries.gp, which draws timeseries.png (rate and latency p50/p99 against the second).
 */
final class ScenarioPlot {
    private ScenarioPlot() {
    }

    /** timeseries.dat. */
    static String data(ScenarioResult r) {
        return timeseries(r.seconds());
    }

    private static String timeseries(List<ScenarioResult.Second> seconds) {
        StringBuilder b = new StringBuilder("# msgscope scenario time series, one row per second of the measurement\n"
                + "# second rate_msg_s p50_us p99_us\n");
        for (ScenarioResult.Second s : seconds) {
            b.append(String.format(Locale.ROOT, "%d %.3f %.3f %.3f%n", s.second(), s.rate(), s.p50Us(), s.p99Us()));
        }
        return b.toString();
    }

    /** timeseries.gp: rate and latency from 0 (issue 29), titled with the scenario and the driver. */
    static String script(ScenarioResult r) {
        return "# gnuplot timeseries.gp  ->  timeseries.png\n"
                + "set terminal pngcairo size 1000,600\n"
                + "set output 'timeseries.png'\n"
                + "set title '" + r.setup().scenario() + " (" + r.envelope().driver() + ")'\n"
                + "set xlabel 'second of the measurement'\n"
                + "set ylabel 'msg/s'\n"
                + "set y2label 'latency (us)'\n"
                + "set ytics nomirror\nset y2tics\nset key outside\n"
                // issue 29: a rate and a latency from 0, so 386-402 msg/s reads as steady, not as a zigzag
                + "set yrange [0:*]\nset y2range [0:*]\n"
                + (r.phases() == null ? "" : r.phases().bands())
                + (r.faults() == null ? "" : r.faults().plotLines()) // issue 32: a line at each fault
                + "plot 'timeseries.dat' using 1:2 with lines title 'rate', \\\n"
                + "     '' using 1:3 axes x1y2 with lines title 'p50', \\\n"
                + "     '' using 1:4 axes x1y2 with lines title 'p99'\n";
    }
}
