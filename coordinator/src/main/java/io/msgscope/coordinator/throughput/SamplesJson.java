package io.msgscope.coordinator.throughput;

import static io.msgscope.coordinator.results.Json.finite;

import io.msgscope.analysis.stats.BlockSpread;
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

    /**
     * The headline of a measurement (issue 27): the rate delivered over the sampling period ({@code rate}, messages /
     * period) with its batch-means interval, then the median of the windows beside it, under its own name.
     */
    public static Map<String, Object> headline(Double rate, BlockSpread b, SampleSummary s, int size) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("delivered_msg_s", rate);
        m.put("delivered_ci95_msg_s", Double.isFinite(b.deliveredLow()) && rate != null
                ? List.of(b.deliveredLow(), b.deliveredHigh()) : null);
        m.put("delivered_bytes_s", rate == null ? null : rate * size);
        m.put("delivered_note", "the headline: messages delivered in the sampling period / its length (as "
                + "sampling_period.rate_msg_s); its 95% interval by batch means over " + BlockSpread.BLOCKS
                + " consecutive blocks, so drift within the run widens it (null below " + BlockSpread.MIN_SAMPLES
                + " samples or without the samples' spans)");
        m.put("window_median_msg_s", finite(s.median()));
        m.put("window_median_note", "the median of the samples (windows of >= the threshold): what a typical "
                + "window looks like, not the rate delivered; median_ci95_msg_s is its interval");
        return m;
    }

    /** Fields kept one release under their old meaning (issue 27), each with what to read instead. */
    public static Map<String, Object> deprecated() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("median_msg_s", "deprecated, removed in the next release: the median of the windows, no longer the "
                + "headline; read window_median_msg_s for it and delivered_msg_s for the rate delivered");
        return m;
    }

    /** The medians (and delivered rates) of consecutive blocks and where another run's median is expected. */
    public static Map<String, Object> blocks(BlockSpread b, int n) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("blocks", b.blocks());
        if (!b.computed()) {
            m.put("note", "fewer than " + BlockSpread.MIN_SAMPLES + " samples: no blocks");
            return m;
        }
        m.put("samples_per_block", n / b.blocks());
        m.put("block_medians_msg_s", java.util.Arrays.stream(b.blockMedians()).boxed().toList());
        m.put("block_median_range_msg_s", List.of(b.blockMedianMin(), b.blockMedianMax()));
        m.put("block_median_sd_msg_s", finite(b.blockMedianSd()));
        m.put("block_median_lag1", finite(b.blockLag1()));
        m.put("block_delivered_msg_s", b.blockRates().length == 0 ? null
                : java.util.Arrays.stream(b.blockRates()).boxed().toList());
        m.put("next_run_median_95_msg_s", List.of(b.nextRunMedianLow(), b.nextRunMedianHigh()));
        m.put("note", "median_ci95_msg_s answers: how precisely do these samples fix this run's median (noise, "
                + "widened for lag-1 autocorrelation)? next_run_median_95_msg_s answers: where would another run of "
                + "this length put its median, if the level drifts between runs as it did between these blocks "
                + "(median +- t(0.975, k-1) x sd of the block medians x sqrt(2/k x (1 + r)/(1 - r)), r = block_median_lag1)?");
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
            c.put("pettitt_effective_samples", st.pettittEffectiveN());
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
