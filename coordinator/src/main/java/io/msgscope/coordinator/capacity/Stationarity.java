package io.msgscope.coordinator.capacity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether a step's latency and backlog are stationary (issue 31 item 4), from its 1-second windows k = 1..n: q_k, the
 * p99 of the latency from the intended send time of the messages due in window k, and F_k = Σ_{j≤k} (s_j − r_j), the
 * messages in flight at the end of window k (s_j sent and r_j received within window j's span). With b_q and b_F the
 * least-squares slopes of q_k and F_k over k, the rise across the hold is ΔQ = b_q·(n − 1) and the backlog's growth
 * ΔF = b_F·(n − 1) messages, which at the asked rate R adds ΔF/R of waiting to every later message. The step is
 * stationary when ΔQ ≤ τ and ΔF/R ≤ τ, τ being a tenth of the objective's tightest bound: a drift that would take
 * the hold ten times over to use up the objective. A window in which nothing arrived (q_k unknown) is not stationary.
 */
public final class Stationarity {
    /** The share of the tightest bound a step's latency or backlog may drift by across its hold. */
    public static final double TOLERANCE = 0.1;

    private Stationarity() {
    }

    /**
     * One 1-second window of a step.
     *
     * @param p99Us      p99 of the latency from the intended send time of the window's messages, µs; NaN when none
     *                   arrived
     * @param sentInSpan messages sent within the window's span
     * @param receivedInSpan messages received within it
     */
    public record Window(double p99Us, long sentInSpan, long receivedInSpan) {
    }

    /**
     * The test's figures and verdict.
     *
     * @param stationary    ΔQ ≤ τ and ΔF/R ≤ τ
     * @param latencyRiseUs ΔQ, µs (NaN when a window had no latency)
     * @param backlogGrowth ΔF, messages
     * @param backlogGrowthUs ΔF/R, µs
     * @param toleranceUs   τ, µs
     * @param inFlight      F_k of every window
     * @param why           the reason when not stationary, else null
     */
    public record Verdict(boolean stationary, double latencyRiseUs, double backlogGrowth, double backlogGrowthUs,
                          double toleranceUs, List<Long> inFlight, String why) {
        public Verdict {
            inFlight = List.copyOf(inFlight);
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("stationary", stationary);
            m.put("latency_p99_rise_us", io.msgscope.coordinator.results.Json.finite(latencyRiseUs));
            m.put("backlog_growth_messages", io.msgscope.coordinator.results.Json.finite(backlogGrowth));
            m.put("backlog_growth_us", io.msgscope.coordinator.results.Json.finite(backlogGrowthUs));
            m.put("tolerance_us", toleranceUs);
            m.put("in_flight_at_window_end", inFlight);
            m.put("reason", why);
            return m;
        }
    }

    /** The test on {@code windows} (at least 2) of a step at {@code rate} msg/s, with tolerance {@code toleranceUs}. */
    public static Verdict test(List<Window> windows, double rate, double toleranceUs) {
        int n = windows.size();
        if (n < 2) {
            throw new IllegalArgumentException("the stationarity test needs at least 2 windows, got " + n);
        }
        double[] q = new double[n];
        double[] f = new double[n];
        List<Long> inFlight = new ArrayList<>();
        long open = 0;
        boolean unknown = false;
        for (int k = 0; k < n; k++) {
            Window w = windows.get(k);
            q[k] = w.p99Us();
            unknown |= Double.isNaN(w.p99Us());
            open += w.sentInSpan() - w.receivedInSpan();
            f[k] = open;
            inFlight.add(open);
        }
        double rise = unknown ? Double.NaN : slope(q) * (n - 1);
        double growth = slope(f) * (n - 1);
        double growthUs = growth / rate * 1e6;
        String why = null;
        if (unknown) {
            why = "a window received nothing";
        } else if (rise > toleranceUs) {
            why = "p99 from the intended time rose " + us(rise) + " across the hold (tolerance " + us(toleranceUs) + ")";
        } else if (growthUs > toleranceUs) {
            why = String.format(Locale.ROOT, "the backlog grew by %.0f messages across the hold, %s of waiting at the "
                    + "rate asked (tolerance %s)", growth, us(growthUs), us(toleranceUs));
        }
        return new Verdict(why == null, rise, growth, growthUs, toleranceUs, inFlight, why);
    }

    private static String us(double v) {
        return io.msgscope.analysis.output.HumanFormat.duration(v * 1e3);
    }

    /** Least-squares slope of {@code y} over its index 1..n: Σ(k − k̄)(y − ȳ) / Σ(k − k̄)². */
    static double slope(double[] y) {
        int n = y.length;
        double kMean = (n + 1) / 2.0;
        double yMean = 0;
        for (double v : y) {
            yMean += v / n;
        }
        double num = 0;
        double den = 0;
        for (int k = 0; k < n; k++) {
            double d = k + 1 - kMean;
            num += d * (y[k] - yMean);
            den += d * d;
        }
        return num / den;
    }
}
