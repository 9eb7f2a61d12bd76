package io.msgscope.coordinator;

import io.msgscope.analysis.stats.MedianInterval;
import io.msgscope.analysis.stats.SampleSummary;
import io.msgscope.analysis.stats.Stationarity;
import io.msgscope.proto.FlowResult;
import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.DataFormatException;

/**
 * What one throughput probe (A7) measured, with the figures issue 17 asks for: the samples' median,
 * mean and standard deviation (M6) with a distribution-free 95 % interval for the median and the
 * stationarity checks ({@link SampleSummary}); the rate over the whole sampling period (messages /
 * time, the time-weighted mean that an independent count over the same period would give); the mean
 * number of messages in flight, counted and by Little's law (rate × mean latency); and the client's
 * CPU over the sampling period, time-weighted (CPU time / elapsed time) and per message.
 */
public record ThroughputStats(long inFlight, SampleSummary samples, double rateOverSampling, Histogram latency,
                              double countedInFlight, double littleInFlight, FlowResult raw) {

    public static ThroughputStats of(FlowResult r) {
        SampleSummary s = SampleSummary.of(r.getSamplesList().stream().mapToDouble(d -> d).toArray());
        double rate = r.getSamplingNs() > 0 ? r.getSampledMessages() * 1e9 / r.getSamplingNs() : Double.NaN;
        Histogram h = latency(r);
        double little = h != null && h.getTotalCount() > 0 && Double.isFinite(rate) ? rate * h.getMean() / 1e9
                : Double.NaN;
        double counted = r.getSamplingNs() > 0 ? r.getMeanInFlight() : Double.NaN;
        return new ThroughputStats(r.getInFlight(), s, rate, h, counted, little, r);
    }

    public double median() {
        return samples.median();
    }

    public int n() {
        return samples.n();
    }

    /** The probe as the search sees it. */
    public FSearch.Probe probe(String phase) {
        return new FSearch.Probe(inFlight, phase, raw.getSamplesList().stream().mapToDouble(d -> d).toArray(), latency,
                countedInFlight);
    }

    /** The one-line warning of the stationarity checks, empty when steady. */
    public String stationarityWarning() {
        String w = samples.stationarity().warning("msg/s");
        return w.isEmpty() ? "" : "at F = " + inFlight + ", " + w;
    }

    /**
     * A note when fewer than 90 % of F were in flight on average (Little's law, the time average; the
     * count at arrivals when there is no latency): the producer (or the client's send path), not the
     * window, set the pace.
     */
    public String inFlightNote() {
        double mean = Double.isFinite(littleInFlight) ? littleInFlight : countedInFlight;
        if (!Double.isFinite(mean) || mean >= 0.9 * inFlight) {
            return "";
        }
        return String.format(java.util.Locale.ROOT, "at F = %d only %.1f messages were in flight on average "
                + "(Little's law; %.1f seen by each arriving message): the producer, not the window, set the pace",
                inFlight, mean, countedInFlight);
    }

    /** The summary.json fields of a probe's samples: median, its interval, mean, sd, stationarity. */
    public static Map<String, Object> samplesJson(SampleSummary s) {
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

    public static Map<String, Object> stationarityJson(Stationarity st) {
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
            h.put("first_ci95_msg_s", List.of(st.firstHalf().lower(), st.firstHalf().upper()));
            h.put("second_median_msg_s", st.secondHalfMedian());
            h.put("second_ci95_msg_s", List.of(st.secondHalf().lower(), st.secondHalf().upper()));
            m.put("split_halves", h);
            Map<String, Object> c2 = new LinkedHashMap<>();
            c2.put("flagged", st.coldStart());
            if (st.firstTenth() == null) {
                c2.put("checked", false);
                m.put("cold_start", c2);
                m.put("rule", rule());
                return m;
            }
            c2.put("first_tenth_median_msg_s", st.firstTenthMedian());
            c2.put("first_tenth_ci95_msg_s", List.of(st.firstTenth().lower(), st.firstTenth().upper()));
            c2.put("rest_median_msg_s", st.restMedian());
            c2.put("rest_ci95_msg_s", List.of(st.rest().lower(), st.rest().upper()));
            m.put("cold_start", c2);
        }
        m.put("rule", rule());
        return m;
    }

    private static String rule() {
        return ("flagged when Pettitt's change point has p < " + Stationarity.ALPHA + ", or the 95% median "
                + "intervals of the halves (or of the first tenth and the rest) do not overlap, and the medians differ by >= "
                + Math.round(Stationarity.MIN_SHIFT * 100) + "% of the median; the first tenth needs n >= 100");
    }

    /** The result fields of summary.json beyond the samples: rate over the period, in flight, warm-up, CPU. */
    public Map<String, Object> periodJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("messages", raw.getWarmupReceived());
        w.put("elapsed_ms", raw.getWarmupElapsedNs() / 1e6);
        m.put("warmup", w);
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("messages", raw.getSampledMessages());
        p.put("elapsed_ms", raw.getSamplingNs() / 1e6);
        p.put("rate_msg_s", finite(rateOverSampling));
        p.put("note", "messages counted in the samples over the time they spanned: the time-weighted mean "
                + "throughput, comparable with an independent count over the same period; the median above "
                + "is the typical sample");
        m.put("sampling_period", p);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("window_f", inFlight);
        f.put("littles_law", finite(littleInFlight));
        f.put("counted_at_arrivals", finite(countedInFlight));
        f.put("note", "littles_law: the time average, rate over the sampling period x mean latency (from the send "
                + "stamp); counted_at_arrivals: sent - received + 1 as each sampled message arrived, averaged over "
                + "arrivals, which see at least themselves (exactly 1 at F = 1). Below F, the producer set the pace");
        m.put("messages_in_flight", f);
        m.put("cpu", cpuJson());
        return m;
    }

    private Map<String, Object> cpuJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        long ns = raw.getSamplingNs();
        long msgs = raw.getSampledMessages();
        m.put("weighting", "time-weighted over the sampling period: CPU time used / time elapsed");
        m.put("process", cpu(raw.getSamplingProcessCpuNs(), ns, msgs, "the flow agent process (10 ms ticks)"));
        m.put("producer_thread", cpu(raw.getSamplingProducerCpuNs(), ns, msgs, "the producer thread (ns)"));
        m.put("consumer_thread", cpu(raw.getSamplingConsumerCpuNs(), ns, msgs,
                "the thread delivering the messages (ns; the client library's I/O thread for push drivers)"));
        return m;
    }

    private static Map<String, Object> cpu(long cpuNs, long elapsedNs, long messages, String source) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source", source);
        boolean known = cpuNs >= 0 && elapsedNs > 0;
        m.put("pct_of_one_core", known ? 100.0 * cpuNs / elapsedNs : null);
        m.put("ns_per_message", known && messages > 0 ? (double) cpuNs / messages : null);
        return m;
    }

    static Histogram latency(FlowResult r) {
        if (r.getLatencyHistogram().isEmpty()) {
            return null;
        }
        try {
            return Histogram.decodeFromCompressedByteBuffer(r.getLatencyHistogram().asReadOnlyByteBuffer(), 0);
        } catch (DataFormatException e) {
            return null;
        }
    }

    static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }
}
