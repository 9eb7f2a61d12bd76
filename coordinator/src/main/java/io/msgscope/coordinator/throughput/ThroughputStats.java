package io.msgscope.coordinator.throughput;

import io.msgscope.analysis.stats.BlockSpread;
import io.msgscope.analysis.stats.SampleSummary;
import io.msgscope.proto.FlowResult;
import org.HdrHistogram.Histogram;

import java.util.zip.DataFormatException;

/**
 * What one throughput probe (A7) measured, with the figures issue 17 asks for: the samples' median,
 * mean and standard deviation (M6) with a distribution-free 95 % interval for the median and the
 * stationarity checks ({@link SampleSummary}); the rate over the whole sampling period (messages /
 * time, the time-weighted mean that an independent count over the same period would give: the headline, issue 27)
 * with its interval and the medians of consecutive blocks ({@link BlockSpread}); the mean
 * number of messages in flight, counted and by Little's law (rate × mean latency); and the client's
 * CPU over the sampling period, time-weighted (CPU time / elapsed time) and per message.
 */
public record ThroughputStats(long inFlight, SampleSummary samples, double rateOverSampling, Histogram latency,
                              double countedInFlight, double littleInFlight, BlockSpread blocks, FlowResult raw) {

    public static ThroughputStats of(FlowResult r) {
        double[] values = r.getSamplesList().stream().mapToDouble(d -> d).toArray();
        SampleSummary s = SampleSummary.of(values);
        long[] spans = r.getSampleNsCount() == values.length ? r.getSampleNsList().stream().mapToLong(l -> l).toArray()
                : null; // an agent before issue 27 sent no spans: the delivered rate then has no interval
        double rate = r.getSamplingNs() > 0 ? r.getSampledMessages() * 1e9 / r.getSamplingNs() : Double.NaN;
        Histogram h = latency(r);
        double little = h != null && h.getTotalCount() > 0 && Double.isFinite(rate) ? rate * h.getMean() / 1e9
                : Double.NaN;
        double counted = r.getSamplingNs() > 0 ? r.getMeanInFlight() : Double.NaN;
        return new ThroughputStats(r.getInFlight(), s, rate, h, counted, little, BlockSpread.of(values, spans), r);
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
}
