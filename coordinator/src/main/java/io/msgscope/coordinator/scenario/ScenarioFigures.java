package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.results.LatencyFigures;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code results} section of a scenario's summary, typed (issue 15): Q4 latency from the actual and from the
 * intended send time, Q5 counters with the errors by kind, Q6 rates and the delivery rate, the warm-up, the
 * connections and each role's agents, and — when they ran — a ZeroMQ proxy's and the broker process's figures.
 * Immutable; {@link #toMap()} writes it in summary.json's order, which is also the CSV's and the Markdown's.
 *
 * @param latency        Q4 from the actual send time
 * @param intended       Q4 from the scheduled send time
 * @param latencyClamped negative latencies clamped to 0
 * @param inFlightWaitMs how long the in-flight wait took after the publishers stopped: until drained, or until no
 *                       delivery for --drain-timeout (Q9, issue 31 item 1; {@link DrainWait})
 * @param proxy          the middle box's figures, or null when none ran
 * @param broker         the broker process's figures, or null when it was not sampled
 */
public record ScenarioFigures(LatencyFigures latency, LatencyFigures intended, long latencyClamped, Counts counts,
                              Delivery delivery, Warmup warmup, long inFlightWaitMs, long sendsDeferred,
                              Connections connections, Proxy proxy, BrokerStats.Figures broker) {

    /** Q5: messages and bytes, the errors in all and by kind (each kind's field, in {@code Fault.Kind}'s order). */
    public record Counts(long messagesSent, long messagesReceived, long messagesAcked, long bytesSent,
                         long bytesReceived, long errors, Map<String, Long> errorsByKind, long subscriptionsLost,
                         long publishersStopped) {
        public Counts {
            errorsByKind = Collections.unmodifiableMap(new LinkedHashMap<>(errorsByKind));
        }
    }

    /** Q6 over the measurement: what was expected (from what was sent, and nominally), the delivery rate, rates. */
    public record Delivery(long expectedMessages, long expectedNominal, double deliveryRate, double sendRate,
                           double receiveRate, double sendBytesRate, double receiveBytesRate) {
    }

    /** The warm-up's deliveries: what never arrived of them is reported, not failed (issue 16). */
    public record Warmup(long sent, long received, long lost) {
    }

    /** One role's agents at the final report, summed: threads, memory, CPU over the measurement; null when unknown. */
    public record AgentUse(Long threads, Long rssKib, Long heapUsedKib, Double cpuMs, Double cpuUsPerMessage) {
        void putInto(Map<String, Object> m, String role) {
            m.put(role + "_agent_threads", threads);
            m.put(role + "_agent_rss_kib", rssKib);
            m.put(role + "_agent_heap_used_kib", heapUsedKib);
            m.put(role + "_agent_cpu_ms", cpuMs);
            m.put(role + "_cpu_us_per_message", cpuUsPerMessage);
        }
    }

    /**
     * The connections (issue 13): asked for, opened, failed (in all and by the kinds that occurred), never attempted;
     * the set-up time and the connect time; the agents per role and what they used; with {@code --opt reconnect=true}
     * (issue 32) the connections the clients got back and the publishes sent again, by their names in
     * {@link io.msgscope.core.driver.Reconnects} (null where the driver does not count them; empty without the option).
     */
    public record Connections(long target, long opened, long failed, Map<String, Long> failedByKind, long notAttempted,
                              double setupS, LatencyFigures connectTime, long publishersAgents, long subscribersAgents,
                              AgentUse publishers, AgentUse subscribers, Map<String, Long> reconnects) {
        public Connections {
            failedByKind = Collections.unmodifiableMap(new LinkedHashMap<>(failedByKind));
            reconnects = Collections.unmodifiableMap(new LinkedHashMap<>(reconnects));
        }
    }

    /** A middle box run by the broker-probe agent (ZeroMQ via=proxy): forwarded, CPU of its thread, short frames. */
    public record Proxy(long forwarded, double cpuPct, Double cpuNsPerMessage, long shortFrames) {
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        latency.putInto(m, "latency_");
        intended.putInto(m, "intended_latency_");
        m.put("latency_clamped", latencyClamped);
        m.put("messages_sent", counts.messagesSent());
        m.put("messages_received", counts.messagesReceived());
        m.put("messages_acked", counts.messagesAcked());
        m.put("bytes_sent", counts.bytesSent());
        m.put("bytes_received", counts.bytesReceived());
        m.put("errors", counts.errors());
        m.putAll(counts.errorsByKind());
        m.put("subscriptions_lost", counts.subscriptionsLost());
        m.put("publishers_stopped", counts.publishersStopped());
        m.put("expected_messages", delivery.expectedMessages());
        m.put("expected_nominal", delivery.expectedNominal());
        m.put("delivery_rate", delivery.deliveryRate());
        m.put("send_rate", delivery.sendRate());
        m.put("receive_rate", delivery.receiveRate());
        m.put("send_bytes_rate", delivery.sendBytesRate());
        m.put("receive_bytes_rate", delivery.receiveBytesRate());
        m.put("warmup_sent", warmup.sent());
        m.put("warmup_received", warmup.received());
        m.put("warmup_lost", warmup.lost());
        m.put("in_flight_wait_ms", inFlightWaitMs);
        m.put("sends_deferred", sendsDeferred);
        m.put("connections_target", connections.target());
        m.put("connections_opened", connections.opened());
        m.put("connections_failed", connections.failed());
        m.putAll(connections.failedByKind());
        m.put("connections_not_attempted", connections.notAttempted());
        m.putAll(connections.reconnects());
        m.put("setup_s", connections.setupS());
        connections.connectTime().putInto(m, "connect_time_");
        m.put("publishers_agents", connections.publishersAgents());
        m.put("subscribers_agents", connections.subscribersAgents());
        connections.publishers().putInto(m, "publishers");
        connections.subscribers().putInto(m, "subscribers");
        if (proxy != null) {
            m.put("proxy_forwarded", proxy.forwarded());
            m.put("proxy_cpu_pct", proxy.cpuPct());
            m.put("proxy_cpu_ns_per_message", proxy.cpuNsPerMessage());
            m.put("proxy_short_frames", proxy.shortFrames());
        }
        if (broker != null) {
            broker.putInto(m);
        }
        return m;
    }
}
