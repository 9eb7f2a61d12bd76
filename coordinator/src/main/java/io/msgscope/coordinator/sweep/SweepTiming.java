package io.msgscope.coordinator.sweep;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where a sweep's time went: measuring (each run's messages over its receive rate, or each throughput point's wall
 * time), the runs' own analysis and output, plotting and the sweep's tables, against the wall time.
 *
 * @param throughput the points are throughput runs (their measuring time is their wall time)
 */
public record SweepTiming(double measuringS, boolean throughput, double analysisS, double plotS, double tablesS,
                          double wallS) {

    /** What the sweep spent after measuring. */
    public double postProcessingS() {
        return analysisS + plotS + tablesS;
    }

    /** sweep.json's {@code timing}. */
    Map<String, Object> toMap() {
        Map<String, Object> timing = new LinkedHashMap<>();
        timing.put("measuring_s", measuringS);
        timing.put("measuring_source", throughput ? "wall time of each throughput point (agent start-up included)"
                : "messages received / receive rate of each run");
        timing.put("analysis_and_output_s", analysisS);
        timing.put("plotting_s", plotS);
        timing.put("sweep_tables_s", tablesS);
        timing.put("wall_s", wallS);
        timing.put("post_processing_share_of_measuring", measuringS > 0 ? postProcessingS() / measuringS : null);
        return timing;
    }

    /** The console's account of it, one line. */
    public String line() {
        double post = postProcessingS();
        return String.format(Locale.ROOT, "time: measuring %.1f s; analysis and output %.2f s, plotting %.2f s, sweep "
                        + "tables %.3f s = %.2f s (%.0f %% of measuring); wall %.1f s (the rest: JVM and agent start-up, "
                        + "warm-up, handshakes)", measuringS, analysisS, plotS, tablesS, post,
                measuringS > 0 ? 100 * post / measuringS : Double.NaN, wallS);
    }
}
