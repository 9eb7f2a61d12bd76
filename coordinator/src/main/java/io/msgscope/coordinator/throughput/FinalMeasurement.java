package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.LatencyFigures;
import io.msgscope.analysis.stats.BlockSpread;
import io.msgscope.analysis.stats.SampleSummary;
import io.msgscope.proto.FlowResult;
import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The {@code result} section of a throughput summary, typed: the final measurement at the chosen F (A7) — its samples
 * with their interval and stationarity, its periods and CPU, its counts, its latency and the raw sample values.
 * Immutable; {@link #toMap()} writes it in summary.json's order.
 *
 * @param inFlight               F of the final measurement
 * @param samples                median, interval, mean, sd and the stationarity checks of its samples
 * @param blocks                 the samples in consecutive blocks: the delivered rate's interval, the block medians
 * @param size                   the message size, bytes
 * @param medianBytesS           the median times the message size; null when there are no samples
 * @param period                 warm-up, sampling period, messages in flight, CPU
 * @param counters               the driver's counters, by name
 * @param latency                the latency over the measured messages, or null when none was recorded
 * @param clientProcessCpuNs     the flow agent's CPU over the whole probe
 * @param clientCpuNsPerMessage  that per message received; null when none was
 * @param producerAllocatedBytes what the producer thread allocated
 * @param sampleValues           the samples in msg/s, in the order taken
 */
public record FinalMeasurement(long inFlight, SampleSummary samples, BlockSpread blocks, int size,
                               Double medianBytesS, ProbePeriod period,
                               long messagesSent, long messagesReceived, SortedMap<String, Long> counters,
                               Latency latency, long clientProcessCpuNs, Double clientCpuNsPerMessage,
                               long producerAllocatedBytes, List<Double> sampleValues) {

    public FinalMeasurement {
        counters = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(counters));
        sampleValues = List.copyOf(sampleValues);
    }

    /** The latency of the final measurement (from the send stamp, one process): how many messages, the Q4 figures. */
    public record Latency(long count, LatencyFigures figures) {
        /** The latency of {@code h}, or null when it recorded nothing. */
        public static Latency of(Histogram h) {
            return h == null || h.getTotalCount() == 0 ? null : new Latency(h.getTotalCount(), LatencyFigures.of(h));
        }

        Map<String, Object> toMap() {
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("source", "epoch send time in the header vs receive time, one process (M1, Q1); "
                    + "messages from the end of the warm-up to the last sample");
            l.put("count", count);
            figures.putInto(l, "latency_");
            return l;
        }
    }

    /** The final measurement of messages of {@code size} bytes: what the agent reported and its statistics. */
    public static FinalMeasurement of(FlowResult r, ThroughputStats st, int size) {
        long received = r.getReceived();
        return new FinalMeasurement(r.getInFlight(), st.samples(), st.blocks(), size,
                Json.finite(st.median() * size),
                ProbePeriod.of(st), r.getSent(), received, new TreeMap<>(r.getCountersMap()), Latency.of(st.latency()),
                r.getProcessCpuNs(), received > 0 ? (double) r.getProcessCpuNs() / received : null,
                r.getHotThreadAllocatedBytes(), r.getSamplesList());
    }

    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("in_flight", inFlight);
        r.putAll(SamplesJson.headline(period.rateMsgS(), blocks, samples, size));
        r.putAll(SamplesJson.samples(samples));
        r.put("median_bytes_s", medianBytesS);
        r.put("deprecated", SamplesJson.deprecated());
        r.put("between_blocks", SamplesJson.blocks(blocks, samples.n()));
        r.put("stationarity", SamplesJson.stationarity(samples.stationarity()));
        r.putAll(period.toMap());
        r.put("messages_sent", messagesSent);
        r.put("messages_received", messagesReceived);
        r.put("counters", new TreeMap<>(counters));
        if (latency != null) {
            r.put("latency", latency.toMap());
        }
        r.put("client_process_cpu_ns", clientProcessCpuNs);
        r.put("client_cpu_ns_per_message", clientCpuNsPerMessage);
        r.put("client_cpu_note", "client_process_cpu_ns covers the whole probe (warm-up, sampling, drain) over "
                + "every message received; cpu above covers the sampling period only");
        r.put("producer_allocated_bytes", producerAllocatedBytes);
        r.put("sample_values_msg_s", sampleValues);
        return r;
    }
}
