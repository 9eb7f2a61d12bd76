package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.results.Json;
import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.proto.FlowResult;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a throughput probe measured over its own periods (issue 17), typed: its warm-up, its sampling period (the rate
 * over it, the time-weighted mean), the messages in flight (counted and by Little's law) and the client's CPU over the
 * sampling period. Immutable; {@link #toMap()} writes it in summary.json's order, inside the {@code result} section.
 *
 * @param warmupMessages    messages received before sampling began
 * @param warmupElapsedMs   from the probe's start to the first sample's
 * @param sampledMessages   messages counted in the samples
 * @param samplingElapsedMs from the first sample's start to the last one's end
 * @param rateMsgS          sampled messages over the sampling period; null when the period is empty
 * @param windowF           F, the most messages in flight
 * @param littlesLaw        the mean in flight by Little's law (rate x mean latency); null when unknown
 * @param countedAtArrivals the mean in flight as each sampled message arrived; null when not counted
 * @param cpu               the flow agent's CPU over the sampling period
 */
public record ProbePeriod(long warmupMessages, double warmupElapsedMs, long sampledMessages, double samplingElapsedMs,
                          Double rateMsgS, long windowF, Double littlesLaw, Double countedAtArrivals, Cpu cpu) {

    /** One CPU figure over the sampling period: the share of one core and the time per message, null when unknown. */
    public record CpuShare(String source, Double pctOfOneCore, Double nsPerMessage) {
        static CpuShare of(long cpuNs, long elapsedNs, long messages, String source) {
            boolean known = cpuNs >= 0 && elapsedNs > 0;
            return new CpuShare(source, known ? 100.0 * cpuNs / elapsedNs : null,
                    known && messages > 0 ? (double) cpuNs / messages : null);
        }

        /** A share as a summary wrote it; an absent figure is null. */
        static CpuShare read(JsonNode m) {
            return new CpuShare(m.path("source").isTextual() ? m.path("source").asText() : null,
                    m.path("pct_of_one_core").isNumber() ? m.path("pct_of_one_core").asDouble() : null,
                    m.path("ns_per_message").isNumber() ? m.path("ns_per_message").asDouble() : null);
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("source", source);
            m.put("pct_of_one_core", pctOfOneCore);
            m.put("ns_per_message", nsPerMessage);
            return m;
        }
    }

    /** The flow agent's process, its producer thread and the thread delivering the messages. */
    public record Cpu(CpuShare process, CpuShare producerThread, CpuShare consumerThread) {
        /** The {@code cpu} object of a summary's {@code result}, from any version that wrote one. */
        public static Cpu read(JsonNode cpu) {
            return new Cpu(CpuShare.read(cpu.path("process")), CpuShare.read(cpu.path("producer_thread")),
                    CpuShare.read(cpu.path("consumer_thread")));
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("weighting", "time-weighted over the sampling period: CPU time used / time elapsed");
            m.put("process", process.toMap());
            m.put("producer_thread", producerThread.toMap());
            m.put("consumer_thread", consumerThread.toMap());
            return m;
        }
    }

    public static ProbePeriod of(ThroughputStats st) {
        FlowResult raw = st.raw();
        long ns = raw.getSamplingNs();
        long msgs = raw.getSampledMessages();
        Cpu cpu = new Cpu(CpuShare.of(raw.getSamplingProcessCpuNs(), ns, msgs, "the flow agent process (10 ms ticks)"),
                CpuShare.of(raw.getSamplingProducerCpuNs(), ns, msgs, "the producer thread (ns)"),
                CpuShare.of(raw.getSamplingConsumerCpuNs(), ns, msgs,
                        "the thread delivering the messages (ns; the client library's I/O thread for push drivers)"));
        return new ProbePeriod(raw.getWarmupReceived(), raw.getWarmupElapsedNs() / 1e6, msgs, ns / 1e6,
                Json.finite(st.rateOverSampling()), st.inFlight(), Json.finite(st.littleInFlight()),
                Json.finite(st.countedInFlight()), cpu);
    }

    /** The fields {@code warmup}, {@code sampling_period}, {@code messages_in_flight} and {@code cpu}, in that order. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("messages", warmupMessages);
        w.put("elapsed_ms", warmupElapsedMs);
        m.put("warmup", w);
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("messages", sampledMessages);
        p.put("elapsed_ms", samplingElapsedMs);
        p.put("rate_msg_s", rateMsgS);
        p.put("note", "messages counted in the samples over the time they spanned: the time-weighted mean "
                + "throughput, comparable with an independent count over the same period; the median above "
                + "is the typical sample");
        m.put("sampling_period", p);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("window_f", windowF);
        f.put("littles_law", littlesLaw);
        f.put("counted_at_arrivals", countedAtArrivals);
        f.put("note", "littles_law: the time average, rate over the sampling period x mean latency (from the send "
                + "stamp); counted_at_arrivals: sent - received + 1 as each sampled message arrived, averaged over "
                + "arrivals, which see at least themselves (exactly 1 at F = 1). Below F, the producer set the pace");
        m.put("messages_in_flight", f);
        m.put("cpu", cpu.toMap());
        return m;
    }
}
