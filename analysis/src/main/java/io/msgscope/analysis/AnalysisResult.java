package io.msgscope.analysis;

import java.util.LinkedHashMap;
import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * Everything {@link TraceAnalysis#analyse} derives from one {@link Trace}. Immutable: the latency
 * histogram is handed out as a copy.
 */
public final class AnalysisResult {

    private final int window;
    private final long count;
    private final long sent;
    private final long received;
    private final long lost;
    private final long receivedWithoutSend;
    private final SeriesStats latencyNs;
    private final long clampedNegative;
    private final SeriesStats latencyCorrectedNs;
    private final long clampedNegativeCorrected;
    private final SeriesStats soNs;
    private final SeriesStats roNs;
    private final SeriesStats stMsgPerSec;
    private final SeriesStats rtMsgPerSec;
    private final long zeroSendOverhead;
    private final long zeroReceiveOverhead;
    private final IdentityCheck identity;
    private final Histogram latencyHistogram;
    private final long aboveRange;
    private final long rateWindowMinNs;
    private final long stExtended;
    private final long rtExtended;
    private final long stUndefined;
    private final long rtUndefined;

    AnalysisResult(Builder b) {
        this.window = b.window;
        this.count = b.count;
        this.sent = b.sent;
        this.received = b.received;
        this.lost = b.lost;
        this.receivedWithoutSend = b.receivedWithoutSend;
        this.latencyNs = Objects.requireNonNull(b.latencyNs);
        this.clampedNegative = b.clampedNegative;
        this.latencyCorrectedNs = b.latencyCorrectedNs;
        this.clampedNegativeCorrected = b.clampedNegativeCorrected;
        this.soNs = Objects.requireNonNull(b.soNs);
        this.roNs = Objects.requireNonNull(b.roNs);
        this.stMsgPerSec = Objects.requireNonNull(b.stMsgPerSec);
        this.rtMsgPerSec = Objects.requireNonNull(b.rtMsgPerSec);
        this.zeroSendOverhead = b.zeroSendOverhead;
        this.zeroReceiveOverhead = b.zeroReceiveOverhead;
        this.identity = Objects.requireNonNull(b.identity);
        this.latencyHistogram = Objects.requireNonNull(b.latencyHistogram);
        this.aboveRange = b.aboveRange;
        this.rateWindowMinNs = b.rateWindowMinNs;
        this.stExtended = b.stExtended;
        this.rtExtended = b.rtExtended;
        this.stUndefined = b.stUndefined;
        this.rtUndefined = b.rtUndefined;
    }

    /** The minimum span of the SO/RO/ST/RT windows ({@link RateWindow}); 0 = M2's windows of M messages. */
    public long rateWindowMinNs() {
        return rateWindowMinNs;
    }

    /** ST windows that needed more than M messages to span the minimum time. */
    public long stExtended() {
        return stExtended;
    }

    /** RT windows that needed more than M messages to span the minimum time. */
    public long rtExtended() {
        return rtExtended;
    }

    /** Messages n ≥ M with a send time but no ST window (the run had not yet spanned the minimum time). */
    public long stUndefined() {
        return stUndefined;
    }

    /** The same for RT. */
    public long rtUndefined() {
        return rtUndefined;
    }

    /** The throughput window M used for SO/RO/ST/RT and the identity check. */
    public int window() {
        return window;
    }

    /** Number of sequences in the trace. */
    public long count() {
        return count;
    }

    /** Messages with a send time. */
    public long sent() {
        return sent;
    }

    /** Messages with a receive time. */
    public long received() {
        return received;
    }

    /** Messages sent but not received. */
    public long lost() {
        return lost;
    }

    /** Messages with a receive time but no send time (a recorder fault); they have no latency. */
    public long receivedWithoutSend() {
        return receivedWithoutSend;
    }

    /** Latency L_n = I_n − O_n in ns over messages sent and received, negatives clamped to 0. */
    public SeriesStats latencyNs() {
        return latencyNs;
    }

    /** How many latencies were negative and clamped to 0 (clock errors, Q2). */
    public long clampedNegative() {
        return clampedNegative;
    }

    /**
     * Coordinated-omission corrected latency I_n − intended_n in ns (rate mode), negatives
     * clamped to 0; {@code null} when the trace has no intended send times.
     */
    public SeriesStats latencyCorrectedNs() {
        return latencyCorrectedNs;
    }

    /** How many corrected latencies were negative and clamped to 0 (0 outside rate mode). */
    public long clampedNegativeCorrected() {
        return clampedNegativeCorrected;
    }

    /** Sending overhead SO_n = (O_n − O_{n−M})/M in ns, n ≥ M, both endpoints present. */
    public SeriesStats soNs() {
        return soNs;
    }

    /** Receiving overhead RO_n = (I_n − I_{n−M})/M in ns, n ≥ M, both endpoints present. */
    public SeriesStats roNs() {
        return roNs;
    }

    /** Sender throughput ST_n = 1e9/SO_n in msg/s; zero SO excluded (see {@link #zeroSendOverhead()}). */
    public SeriesStats stMsgPerSec() {
        return stMsgPerSec;
    }

    /** Receiver throughput RT_n = 1e9/RO_n in msg/s; zero RO excluded (see {@link #zeroReceiveOverhead()}). */
    public SeriesStats rtMsgPerSec() {
        return rtMsgPerSec;
    }

    /** How many SO_n were 0, leaving ST_n undefined. */
    public long zeroSendOverhead() {
        return zeroSendOverhead;
    }

    /** How many RO_n were 0, leaving RT_n undefined. */
    public long zeroReceiveOverhead() {
        return zeroReceiveOverhead;
    }

    /** The M12 identity check. */
    public IdentityCheck identity() {
        return identity;
    }

    /**
     * A copy of the latency histogram (ns, 1 µs to 10 s, 3 significant digits, Q3); values above
     * 10 s are recorded at 10 s and counted in {@link #aboveRange()}.
     */
    public Histogram latencyHistogram() {
        return latencyHistogram.copy();
    }

    /** Latencies above the histogram's highest trackable value. */
    public long aboveRange() {
        return aboveRange;
    }

    /**
     * The Q4 fields, in µs, from the exact latency series (not from the histogram): keys
     * latency_min_us, latency_max_us, latency_mean_us, latency_p50_us, latency_p95_us,
     * latency_p99_us, latency_p999_us, in that order. NaN when nothing was received.
     */
    public LinkedHashMap<String, Double> q4Fields() {
        return q4Fields(latencyNs);
    }

    /** Q4's latency fields of a latency series in ns, in µs: min, max, mean, p50, p95, p99, p99.9. */
    public static LinkedHashMap<String, Double> q4Fields(SeriesStats l) {
        LinkedHashMap<String, Double> fields = new LinkedHashMap<>();
        fields.put("latency_min_us", l.min() / 1_000d);
        fields.put("latency_max_us", l.max() / 1_000d);
        fields.put("latency_mean_us", l.mean() / 1_000d);
        fields.put("latency_p50_us", l.p50() / 1_000d);
        fields.put("latency_p95_us", l.p95() / 1_000d);
        fields.put("latency_p99_us", l.p99() / 1_000d);
        fields.put("latency_p999_us", l.p999() / 1_000d);
        return fields;
    }

    @Override
    public String toString() {
        return "AnalysisResult{count=" + count + ", window=" + window + ", sent=" + sent
                + ", received=" + received + ", lost=" + lost + ", clampedNegative=" + clampedNegative
                + ", latencyNs=" + latencyNs + ", identity=" + identity + '}';
    }

    /** Mutable assembly area, package-private: only {@link TraceAnalysis} builds results. */
    static final class Builder {
        int window;
        long count;
        long sent;
        long received;
        long lost;
        long receivedWithoutSend;
        SeriesStats latencyNs;
        long clampedNegative;
        SeriesStats latencyCorrectedNs;
        long clampedNegativeCorrected;
        SeriesStats soNs;
        SeriesStats roNs;
        SeriesStats stMsgPerSec;
        SeriesStats rtMsgPerSec;
        long zeroSendOverhead;
        long zeroReceiveOverhead;
        IdentityCheck identity;
        Histogram latencyHistogram;
        long aboveRange;
        long rateWindowMinNs;
        long stExtended;
        long rtExtended;
        long stUndefined;
        long rtUndefined;

        AnalysisResult build() {
            return new AnalysisResult(this);
        }
    }
}
