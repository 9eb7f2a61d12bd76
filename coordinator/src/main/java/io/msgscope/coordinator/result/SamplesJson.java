package io.msgscope.coordinator.result;

import static io.msgscope.coordinator.SummaryJson.finite;

import io.msgscope.analysis.stats.MedianInterval;
import io.msgscope.analysis.stats.SampleSummary;
import io.msgscope.analysis.stats.Stationarity;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON form of the analysis's typed sample figures in a throughput summary: a {@link SampleSummary} (median, its
 * 95 % interval, mean, sd, autocorrelation) and a {@link Stationarity} (the three checks and their rule). The
 * throughput result's records hold those values themselves; this is how their {@code toMap()} writes them.
 */
public final class SamplesJson {
    private SamplesJson() {
    }

    /** A probe's samples: median, its interval, mean, sd, lag-1 autocorrelation and the effective sample count. */
    public static Map<String, Object> samples(SampleSummary s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("median_msg_s", finite(s.median()));
        MedianInterval ci = s.medianInterval();
        m.put("median_ci95_msg_s", s.n() == 0 ? null : List.of(ci.lower(), ci.upper()));
        m.put("median_ci_confidence", finite(ci.confidence()));
        m.put("mean_msg_s", finite(s.mean()));
        m.put("stddev_msg_s", finite(s.stddev()));
        m.put("samples", s.n());
        m.put("lag1_autocorrelation", finite(s.lag1()));
        m.put("effective_samples", finite(s.effectiveN()));
        return m;
    }

    /** The stationarity checks: change point, split halves, cold start (each when checked), and the rule. */
    public static Map<String, Object> stationarity(Stationarity st) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("checked", st.checked());
        m.put("steady", st.steady());
        if (st.checked()) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("flagged", st.changePoint());
            c.put("from_sample", st.changeIndex());
            c.put("pettitt_p", st.pettittP());
            c.put("median_before_msg_s", st.medianBefore());
            c.put("median_after_msg_s", st.medianAfter());
            m.put("change_point", c);
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("flagged", st.halvesDisagree());
            h.put("first_median_msg_s", st.firstHalfMedian());
            h.put("first_ci95_msg_s", bounds(st.firstHalf()));
            h.put("second_median_msg_s", st.secondHalfMedian());
            h.put("second_ci95_msg_s", bounds(st.secondHalf()));
            m.put("split_halves", h);
            Map<String, Object> cold = new LinkedHashMap<>();
            cold.put("flagged", st.coldStart());
            if (st.firstTenth() == null) {
                cold.put("checked", false);
            } else {
                cold.put("first_tenth_median_msg_s", st.firstTenthMedian());
                cold.put("first_tenth_ci95_msg_s", bounds(st.firstTenth()));
                cold.put("rest_median_msg_s", st.restMedian());
                cold.put("rest_ci95_msg_s", bounds(st.rest()));
            }
            m.put("cold_start", cold);
        }
        m.put("rule", "flagged when Pettitt's change point has p < " + Stationarity.ALPHA + ", or the 95% median "
                + "intervals of the halves (or of the first tenth and the rest) do not overlap, and the medians differ "
                + "by >= " + Math.round(Stationarity.MIN_SHIFT * 100) + "% of the median; the first tenth needs n >= 100");
        return m;
    }

    private static List<Double> bounds(MedianInterval i) {
        return List.of(i.lower(), i.upper());
    }
}
