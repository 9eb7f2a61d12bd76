package io.msgscope.coordinator.capacity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The 95 % interval of the edge (the rate at which the objective is just met) from the repeated steps at the last
 * passing rate L and the first failing rate U. Pair i (the i-th run at L with the i-th at U) gives one estimate by
 * linear interpolation of the worst percentile-to-bound ratio x (a failed step counts at least 1): e_i = L + (U − L)·(1
 * − x_L)/(x_U − x_L), kept within [L − (U − L), U + (U − L)] (and e_i = U when x_U = x_L). The interval is the mean of
 * the K estimates ± t(0.975, K − 1)·s/√K (Student's t; s the estimates' sample standard deviation); null for K < 2.
 *
 * @param estimates e_i, msg/s
 * @param mean      their mean; null for none
 * @param low       the interval's lower end; null for K < 2
 * @param high      its upper end; null for K < 2
 */
public record EdgeInterval(List<Double> estimates, Double mean, Double low, Double high) {
    /** t(0.975, df) for df = 1..30; above 30, 1.96. */
    private static final double[] T975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
            2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
            2.052, 2.048, 2.045, 2.042};

    public EdgeInterval {
        estimates = List.copyOf(estimates);
    }

    /** t(0.975, df). */
    static double t975(int df) {
        return df <= T975.length ? T975[df - 1] : 1.96;
    }

    /** The interval from the ratios of the runs at {@code lo} and at {@code hi}, paired in order. */
    public static EdgeInterval of(double lo, double hi, List<Double> ratiosLo, List<Double> ratiosHi) {
        List<Double> e = new ArrayList<>();
        int k = Math.min(ratiosLo.size(), ratiosHi.size());
        double w = hi - lo;
        for (int i = 0; i < k; i++) {
            double xl = ratiosLo.get(i);
            double xu = ratiosHi.get(i);
            if (Double.isNaN(xl) || Double.isNaN(xu)) {
                continue;
            }
            double est = xu == xl ? hi : lo + w * (1 - xl) / (xu - xl);
            e.add(Math.max(lo - w, Math.min(hi + w, est)));
        }
        if (e.isEmpty()) {
            return new EdgeInterval(e, null, null, null);
        }
        double mean = e.stream().mapToDouble(Double::doubleValue).sum() / e.size();
        if (e.size() < 2) {
            return new EdgeInterval(e, mean, null, null);
        }
        double ss = 0;
        for (double v : e) {
            ss += (v - mean) * (v - mean);
        }
        double half = t975(e.size() - 1) * Math.sqrt(ss / (e.size() - 1)) / Math.sqrt(e.size());
        return new EdgeInterval(e, mean, mean - half, mean + half);
    }

    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("estimates_msg_s", estimates);
        m.put("mean_msg_s", mean);
        m.put("ci95_msg_s", low == null ? null : List.of(low, high));
        m.put("method", "per pair of runs at the last passing and first failing rate, the edge by linear "
                + "interpolation of the worst percentile/bound ratio to 1; mean ± t(0.975, K-1)·s/√K over the K pairs");
        return m;
    }
}
