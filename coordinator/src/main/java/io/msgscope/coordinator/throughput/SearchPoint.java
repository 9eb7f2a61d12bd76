package io.msgscope.coordinator.throughput;

import io.msgscope.analysis.stats.MedianInterval;
import io.msgscope.analysis.stats.SampleSummary;
import org.HdrHistogram.Histogram;

/** Everything the F search (A6) measured at one F, pooled over its probes. */
public final class SearchPoint {
    private final long inFlight;
    private double[] samples = new double[0];
    private Histogram latency;
    private double inFlightSum;
    private long inFlightWeight;
    private int measurements;
    private SampleSummary summary;
    private double[] confirmSamples = new double[0];
    private SampleSummary confirmation;

    SearchPoint(long inFlight) {
        this.inFlight = inFlight;
    }

    void add(FSearch.Probe p) {
        double[] all = new double[samples.length + p.samples().length];
        System.arraycopy(samples, 0, all, 0, samples.length);
        System.arraycopy(p.samples(), 0, all, samples.length, p.samples().length);
        samples = all;
        if (p.latency() != null) {
            if (latency == null) {
                latency = p.latency().copy();
            } else {
                latency.add(p.latency());
            }
        }
        if (!Double.isNaN(p.meanInFlight())) {
            inFlightSum += p.meanInFlight() * p.samples().length;
            inFlightWeight += p.samples().length;
        }
        measurements++;
        summary = SampleSummary.of(samples);
    }

    void confirm(FSearch.Probe p) {
        double[] all = new double[confirmSamples.length + p.samples().length];
        System.arraycopy(confirmSamples, 0, all, 0, confirmSamples.length);
        System.arraycopy(p.samples(), 0, all, confirmSamples.length, p.samples().length);
        confirmSamples = all;
        confirmation = SampleSummary.of(confirmSamples);
    }

    public long inFlight() {
        return inFlight;
    }

    /**
     * The peak's fresh samples, taken after it was chosen and never used to choose it (so free of the
     * winner's curse), or null for any other point.
     */
    public SampleSummary confirmation() {
        return confirmation;
    }

    /** Median, interval, stationarity of the pooled samples (in the order taken, probe after probe). */
    public SampleSummary summary() {
        return summary;
    }

    public double median() {
        return summary.median();
    }

    public MedianInterval interval() {
        return summary.medianInterval();
    }

    /** The pooled latency histogram (ns), or null. */
    public Histogram latency() {
        return latency == null ? null : latency.copy();
    }

    /** The counted mean of messages in flight, weighted by samples; NaN when not counted. */
    public double meanInFlight() {
        return inFlightWeight == 0 ? Double.NaN : inFlightSum / inFlightWeight;
    }

    /** How many probes were pooled. */
    public int measurements() {
        return measurements;
    }

    public int sampleCount() {
        return samples.length;
    }
}
