package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.result.Envelope;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.core.Secrets;
import io.msgscope.core.driver.Fault;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Turns an {@link ScenarioOutcome} into the result model: Q4 latency fields (µs, from the actual
 * send time; the same from the intended send time with the prefix {@code intended_}), Q5 counters, Q6
 * rates over the measurement period only and delivery_rate = received / expected. Status: failed on
 * an agent failure, on any error, when a message was delivered more often than the scenario allows,
 * and — only where the messaging guarantees delivery (MQTT QoS >= 1, NATS JetStream) — when
 * delivery_rate < 1.0. At MQTT QoS 0 and core NATS a loss is reported, not failed.
 */
public final class ScenarioSummary {
    private ScenarioSummary() {
    }

    public static ScenarioResult build(ScenarioConfig c, ScenarioOutcome o, String qosLabel, boolean reliable) {
        return build(c, o, qosLabel, reliable, null);
    }

    /**
     * As {@link #build(ScenarioConfig, ScenarioOutcome, String, boolean)}; a run failed on missing deliveries also
     * names {@code lossHint}, the broker setting that drops them by default ({@code Driver.lossHint}, issue 18), when
     * it is not null.
     */
    public static ScenarioResult build(ScenarioConfig c, ScenarioOutcome o, String qosLabel, boolean reliable,
                                       String lossHint) {
        ScenarioResult r = new ScenarioResult();
        // what ran, after the envelope every mode shares (issue 15), which waits for the verdict below
        Map<String, Object> own = new LinkedHashMap<>();
        own.put("scenario", c.scenario().label());
        own.put("delivery", qosLabel);
        own.put("publishers", c.publishers());
        own.put("subscribers", c.subscribers());
        own.put("rate_per_publisher", c.rate());
        own.put("warmup_s", c.warmupMs() / 1000.0);
        own.put("duration_s", c.durationMs() / 1000.0);
        own.put("size", c.size());
        own.put("padding", c.randomPadding() ? "random" : "zeros");
        own.put("broker", new LinkedHashMap<>(o.broker));
        Map<String, Long> counters = o.counters();
        double seconds = c.durationMs() / 1000.0;
        long sent = counters.getOrDefault("messages_sent", o.sent);
        long received = counters.getOrDefault("messages_received", 0L);
        long expected = c.scenario().expected(sent, c.subscribers());
        long nominal = c.scenario().nominalExpected(c.publishers(), c.subscribers(), c.rate(), seconds);
        long errors = ScenarioCounters.errors(counters);
        double delivery = expected == 0 ? 0 : (double) received / expected;
        latency(r, "latency_", o.latency);
        latency(r, "intended_latency_", o.intended);
        r.fields.put("latency_clamped", counters.getOrDefault("latency_clamped", 0L));
        r.fields.put("messages_sent", sent);
        r.fields.put("messages_received", received);
        r.fields.put("messages_acked", counters.getOrDefault("messages_acked", 0L));
        r.fields.put("bytes_sent", counters.getOrDefault("bytes_sent", 0L));
        r.fields.put("bytes_received", counters.getOrDefault("bytes_received", 0L));
        r.fields.put("errors", errors);
        for (Fault.Kind k : Fault.Kind.values()) {
            r.fields.put(k.field(), counters.getOrDefault(k.field(), 0L));
        }
        r.fields.put("subscriptions_lost", counters.getOrDefault("subscriptions_lost", 0L));
        r.fields.put("publishers_stopped", counters.getOrDefault("publishers_stopped", 0L));
        r.fields.put("expected_messages", expected);
        r.fields.put("expected_nominal", nominal);
        r.fields.put("delivery_rate", delivery);
        r.fields.put("send_rate", sent / seconds);
        r.fields.put("receive_rate", received / seconds);
        r.fields.put("send_bytes_rate", counters.getOrDefault("bytes_sent", 0L) / seconds);
        r.fields.put("receive_bytes_rate", counters.getOrDefault("bytes_received", 0L) / seconds);
        long warmupSent = counters.getOrDefault("warmup_sent", 0L);
        long warmupExpected = c.scenario().expected(warmupSent, c.subscribers());
        long warmupReceived = counters.getOrDefault("warmup_received", 0L);
        r.fields.put("warmup_sent", warmupSent);
        r.fields.put("warmup_received", warmupReceived);
        // issue 16: what the broker dropped before the measurement is reported, not hidden (and not failed)
        r.fields.put("warmup_lost", Math.max(0, warmupExpected - warmupReceived));
        if (warmupReceived < warmupExpected) {
            r.notes.add("warm-up: " + (warmupExpected - warmupReceived) + " of " + warmupExpected + " deliveries never "
                    + "arrived (lost before the measurement began; reported, not failed: delivery_rate covers the "
                    + "measurement only)");
        }
        r.fields.put("in_flight_wait_ms", o.drainMs);
        r.fields.put("sends_deferred", counters.getOrDefault("sends_deferred", 0L));
        connections(r, own, o, counters);
        r.seconds.addAll(o.seconds);
        r.intervals.addAll(o.intervals);
        proxy(r, o, seconds);
        String failure = o.failure;
        if (failure == null && errors > 0) {
            failure = errors + " errors (" + byKind(counters) + ")"
                    + (o.firstErrors.isEmpty() ? "" : "; first: " + o.firstErrors.get(0));
        }
        if (received > expected && c.allowDuplicates()) {
            r.notes.add((received - expected) + " deliveries beyond the " + expected + " expected (duplicates or a "
                    + "message to more than one group member), accepted by --allow-duplicates");
        } else if (failure == null && received > expected) {
            failure = "received " + received + " deliveries, more than the " + expected + " the scenario allows"
                    + (c.scenario() == Scenario.ROUND_ROBIN ? " (a message reached more than one group member)" : "")
                    + "; --allow-duplicates accepts that at an at-least-once QoS";
        }
        if (failure == null && reliable && received < expected) {
            failure = "delivery_rate " + String.format(java.util.Locale.ROOT, "%.6f", delivery) + " < 1.0 at "
                    + qosLabel + ": " + (expected - received) + " deliveries missing after the 5 s in-flight wait"
                    + (lossHint == null ? "" : "; " + lossHint);
        }
        if (failure == null && sent < nominal / (c.scenario() == Scenario.FAN_OUT ? c.subscribers() : 1)) {
            failure = "the publishers sent " + sent + " of the " + nominal + " messages scheduled";
        }
        if (!reliable && received < expected) {
            r.notes.add("delivery_rate < 1.0 at " + qosLabel + " (no delivery guarantee): reported, not failed");
        }
        if (failure != null && c.driver().equals("nats") && "true".equalsIgnoreCase(c.options().get("jetstream"))) {
            r.notes.add("JetStream streams this run made (MSGSCOPE_<subject>) are deleted at its end while the server "
                    + "is there; if it went away, `msgscope clean --driver nats --uri URI` removes what is left");
        }
        Map<String, Object> spec = spec(c);
        r.envelope = Envelope.of("scenario", Long.toHexString(c.seed()), c.driver(), o.startedAt, failure,
                o.failedDuring != null ? o.failedDuring : "measurement", List.of(), spec, hash(spec), o.environment);
        r.header.putAll(r.envelope.toMap());
        r.header.putAll(own);
        r.header.put("missing_agents", o.missingAgents.isEmpty() ? null : String.join("; ", o.missingAgents));
        if (!o.firstErrors.isEmpty()) {
            r.header.put("first_errors", List.copyOf(o.firstErrors));
        }
        r.notes.add("latency_* from the actual send time (payload bytes 0-7, epoch ns); intended_latency_* from the "
                + "scheduled send time (bytes 16-23), which includes any time a publisher fell behind its schedule");
        r.notes.add("rates over the measurement period only; expected_messages from the messages actually sent "
                + "(expected_nominal = publishers x rate x duration" + (c.scenario() == Scenario.FAN_OUT ? " x subscribers" : "")
                + ")");
        return r;
    }

    /**
     * The connections (issue 13): how many were asked for, opened, failed by kind, never attempted; the
     * set-up time; connect time (TCP connect to the broker's answer; subscribers also to their
     * subscription's confirmation) with the Q4-style fields; the agents per role and, across boxes, each
     * agent's clock offset to the subscribers' box with its bound (R1).
     */
    private static void connections(ScenarioResult r, Map<String, Object> header, ScenarioOutcome o,
                                    Map<String, Long> counters) {
        r.fields.put("connections_target", counters.getOrDefault("connections_target", 0L));
        r.fields.put("connections_opened", counters.getOrDefault("connections_opened", 0L));
        r.fields.put("connections_failed", ScenarioCounters.failedConnections(counters));
        for (Fault.Kind k : Fault.Kind.values()) {
            String f = "connect_failed_" + k.name().toLowerCase(java.util.Locale.ROOT);
            if (counters.containsKey(f)) {
                r.fields.put(f, counters.get(f));
            }
        }
        r.fields.put("connections_not_attempted", counters.getOrDefault("connections_not_attempted", 0L));
        r.fields.put("setup_s", o.setupSeconds);
        latency(r, "connect_time_", o.connect);
        r.fields.put("publishers_agents", (long) o.publishersAgents);
        r.fields.put("subscribers_agents", (long) o.subscribersAgents);
        for (String role : new String[] {"publishers", "subscribers"}) {
            // at the final report, connections still open; summed over the role's agents
            r.fields.put(role + "_agent_threads", counters.get(role + "_agent_threads"));
            r.fields.put(role + "_agent_rss_kib", counters.get(role + "_agent_rss_kib"));
            r.fields.put(role + "_agent_heap_used_kib", counters.get(role + "_agent_heap_used_kib"));
            // process CPU from the reset after the warm-up to the final report (measurement, in-flight wait)
            Long end = counters.get(role + "_agent_cpu_ns");
            Long start = o.cpuAtReset.get(role + "_agent_cpu_ns");
            Double cpuMs = end == null || start == null ? null : (end - start) / 1e6;
            long msgs = counters.getOrDefault(role.equals("publishers") ? "messages_sent" : "messages_received", 0L);
            r.fields.put(role + "_agent_cpu_ms", cpuMs);
            r.fields.put(role + "_cpu_us_per_message", cpuMs == null || msgs == 0 ? null : cpuMs * 1e3 / msgs);
        }
        if (!o.connectFailures.isEmpty()) {
            header.put("connect_failures", List.copyOf(o.connectFailures));
        }
        header.put("cross_host", o.crossHost);
        if (o.crossHost) {
            Map<String, Object> offsets = new LinkedHashMap<>();
            o.clockOffsets.forEach((agent, off) -> offsets.put(agent, Map.of("offset_us", off.offsetNs() / 1e3,
                    "error_bound_us", off.errorNs() / 1e3)));
            header.put("clock_offsets_to_subscribers", offsets);
            r.notes.add("cross-host run: latency subtracts the publishers' epoch stamps from the subscribers' clock; "
                    + "clock_offsets_to_subscribers gives each agent's offset and its bound (R1), which the latencies "
                    + "are not corrected by");
        }
    }

    /** A middle box run by the broker-probe agent (ZeroMQ via=proxy): its counts and CPU per message (M3). */
    private static void proxy(ScenarioResult r, ScenarioOutcome o, double seconds) {
        Long forwarded = o.counters().get("proxy_forwarded");
        if (forwarded == null) {
            return;
        }
        long cpu = o.counters().getOrDefault("proxy_cpu_ns", 0L);
        r.fields.put("proxy_forwarded", forwarded);
        r.fields.put("proxy_cpu_pct", 100.0 * cpu / (seconds * 1e9));
        r.fields.put("proxy_cpu_ns_per_message", forwarded == 0 ? null : (double) cpu / forwarded);
        r.fields.put("proxy_short_frames", o.counters().getOrDefault("proxy_short_frames", 0L));
        r.notes.add("proxy_*: the broker-probe agent's forwarding thread over the measurement (CPU time of that "
                + "thread, % of one core; per message it forwarded)");
    }

    /** The run's spec as asked, secrets masked (issue 5): what {@code spec_hash} identifies. */
    static Map<String, Object> spec(ScenarioConfig c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario", c.scenario().label());
        m.put("driver", c.driver());
        m.put("uri", Secrets.uri(c.uri()));
        m.put("driver_options", Secrets.options(c.givenOptions())); // as given: the spec loads back (issue 18)
        m.put("publishers", c.publishers());
        m.put("subscribers", c.subscribers());
        m.put("rate", c.rate());
        m.put("warmup_ms", c.warmupMs());
        m.put("duration_ms", c.durationMs());
        m.put("size", c.size());
        m.put("padding", c.randomPadding() ? "random" : "zeros");
        m.put("topic_prefix", c.topicPrefix());
        m.put("io_threads", c.connections().ioThreads());
        m.put("connect_rate", c.connections().connectRate());
        m.put("source_addresses", c.connections().sourceAddresses());
        if (c.allowDuplicates()) {
            m.put("allow_duplicates", true); // only when given: earlier specs keep their hashes
        }
        return m;
    }

    /** SHA-256 (hex) of the spec's canonical JSON (sorted keys): equal specs, equal hashes, whatever the run id. */
    static String hash(Map<String, Object> spec) {
        try {
            byte[] json = new com.fasterxml.jackson.databind.ObjectMapper()
                    .configure(com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
                    .writeValueAsBytes(new java.util.TreeMap<>(spec));
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(json));
        } catch (Exception e) {
            throw new IllegalStateException("cannot hash the spec", e);
        }
    }

    private static String byKind(Map<String, Long> counters) {
        List<String> parts = new ArrayList<>();
        for (Fault.Kind k : Fault.Kind.values()) {
            long n = counters.getOrDefault(k.field(), 0L);
            if (n > 0) {
                parts.add(k.name().toLowerCase(java.util.Locale.ROOT) + " " + n);
            }
        }
        return String.join(", ", parts);
    }

    private static void latency(ScenarioResult r, String prefix, Histogram h) {
        boolean any = h != null && h.getTotalCount() > 0;
        r.fields.put(prefix + "min_us", any ? h.getMinValue() / 1e3 : null);
        r.fields.put(prefix + "max_us", any ? h.getMaxValue() / 1e3 : null);
        r.fields.put(prefix + "mean_us", any ? h.getMean() / 1e3 : null);
        r.fields.put(prefix + "p50_us", any ? h.getValueAtPercentile(50) / 1e3 : null);
        r.fields.put(prefix + "p95_us", any ? h.getValueAtPercentile(95) / 1e3 : null);
        r.fields.put(prefix + "p99_us", any ? h.getValueAtPercentile(99) / 1e3 : null);
        r.fields.put(prefix + "p999_us", any ? h.getValueAtPercentile(99.9) / 1e3 : null);
    }
}
