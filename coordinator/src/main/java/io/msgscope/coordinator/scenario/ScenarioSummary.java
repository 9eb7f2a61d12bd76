package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.results.Envelope;
import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.LatencyFigures;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.core.Secrets;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.Fault;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns an {@link ScenarioOutcome} into the result model: Q4 latency fields (µs, from the actual
 * send time; the same from the intended send time with the prefix {@code intended_}), Q5 counters, Q6
 * rates over the measurement period only and delivery_rate = received / expected. Status: failed on
 * an agent failure, on any error, when a message was delivered more often than the scenario allows,
 * and — only where the messaging guarantees delivery (MQTT QoS >= 1, NATS JetStream) — when
 * delivery_rate < 1.0. At MQTT QoS 0 and core NATS a loss is reported, not failed; at any QoS, a loss is failed
 * when the broker's count, read after the in-flight wait on backlog phases, says it still held messages
 * ({@link #stillHeld}).
 */
public final class ScenarioSummary {
    private ScenarioSummary() {
    }

    public static ScenarioResult build(ScenarioConfig c, ScenarioOutcome o, String qosLabel, boolean reliable) {
        return build(c, o, qosLabel, reliable, null, null);
    }

    /**
     * As {@link #build(ScenarioConfig, ScenarioOutcome, String, boolean)} with what the run's {@code driver} knows
     * (null: nothing): a run failed on missing deliveries also names the broker setting that drops them by default
     * ({@link Driver#lossHint}, issue 18), a failed run says what it may have left on the broker
     * ({@link Driver#failureNote}), and the notes carry the driver's {@link Driver#latencyCaveat}; {@code broker}, the
     * broker process's figures when it was sampled (Q7), else null, ends the results and the notes.
     */
    public static ScenarioResult build(ScenarioConfig c, ScenarioOutcome o, String qosLabel, boolean reliable,
                                       Driver driver, BrokerStats.Figures broker) {
        return build(c, o, qosLabel, reliable, driver, broker, null);
    }

    /** The same, the spec recording the run's {@code faults} (null or empty: none) so that it loads back. */
    public static ScenarioResult build(ScenarioConfig c, ScenarioOutcome o, String qosLabel, boolean reliable,
                                       Driver driver, BrokerStats.Figures broker,
                                       io.msgscope.core.fault.FaultPlan faults) {
        String lossHint = driver == null ? null : driver.lossHint(c.options());
        List<String> notes = new ArrayList<>();
        Map<String, Long> counters = o.counters();
        // an interrupted run's rates are over the seconds it measured (issue 29)
        double seconds = o.interruption() != null && o.interruption().measuredS() != null
                ? o.interruption().measuredS() : o.timeline(c.timeline()) != null
                ? o.timeline(c.timeline()).durationNs() / 1e9 : c.durationMs() / 1000.0; // a word phase's run as long as it ran
        long sent = counters.getOrDefault("messages_sent", o.sent());
        long received = counters.getOrDefault("messages_received", 0L);
        long expected = c.scenario().expected(sent, c.subscribers());
        long nominal = c.timeline() != null ? c.scenario().expected(o.timeline(c.timeline()).messages(), c.subscribers())
                : c.scenario().nominalExpected(c.publishers(), c.subscribers(), c.rate(), seconds);
        long errors = ScenarioCounters.errors(counters);
        double delivery = expected == 0 ? 0 : (double) received / expected;
        Map<String, Long> byKind = new LinkedHashMap<>();
        for (Fault.Kind k : Fault.Kind.values()) {
            byKind.put(k.field(), counters.getOrDefault(k.field(), 0L));
        }
        ScenarioFigures.Counts counts = new ScenarioFigures.Counts(sent, received,
                counters.getOrDefault("messages_acked", 0L), counters.getOrDefault("bytes_sent", 0L),
                counters.getOrDefault("bytes_received", 0L), errors, byKind,
                counters.getOrDefault("subscriptions_lost", 0L), counters.getOrDefault("publishers_stopped", 0L));
        ScenarioFigures.Delivery rates = new ScenarioFigures.Delivery(expected, nominal, delivery, sent / seconds,
                received / seconds, counters.getOrDefault("bytes_sent", 0L) / seconds,
                counters.getOrDefault("bytes_received", 0L) / seconds);
        long warmupSent = counters.getOrDefault("warmup_sent", 0L);
        long warmupExpected = c.scenario().expected(warmupSent, c.subscribers());
        long warmupReceived = counters.getOrDefault("warmup_received", 0L);
        // issue 16: what the broker dropped before the measurement is reported, not hidden (and not failed)
        ScenarioFigures.Warmup warmup = new ScenarioFigures.Warmup(warmupSent, warmupReceived,
                Math.max(0, warmupExpected - warmupReceived));
        if (warmupReceived < warmupExpected) {
            notes.add("warm-up: " + (warmupExpected - warmupReceived) + " of " + warmupExpected + " deliveries never "
                    + "arrived (lost before the measurement began; reported, not failed: delivery_rate covers the "
                    + "measurement only)");
        }
        ScenarioClockFigures clocks = o.clockTrack() == null ? null
                : ScenarioClockFigures.of(o.clockTrack(), o.intervals(), o.clockTrack().limit());
        if (o.crossHost()) {
            notes.add(clocks == null ? "cross-host run: latency subtracts the publishers' epoch stamps from the "
                    + "subscribers' clock; clock_offsets_to_subscribers gives each agent's offset and its bound (R1), "
                    + "which the latencies are not corrected by" : ScenarioClockFigures.NOTE);
        }
        ScenarioFigures.Proxy proxy = proxy(o, seconds);
        if (proxy != null) {
            notes.add("proxy_*: the broker-probe agent's forwarding thread over the measurement (CPU time of that "
                    + "thread, % of one core; per message it forwarded)");
        }
        ScenarioFigures figures = new ScenarioFigures(LatencyFigures.of(o.latency()),
                LatencyFigures.of(o.intended()), counters.getOrDefault("latency_clamped", 0L), counts, rates,
                warmup, o.drainMs(), counters.getOrDefault("sends_deferred", 0L), connections(o, counters, c.options()), proxy,
                broker);
        List<String> warnings = new ArrayList<>();
        String behind = ScenarioCaveats.fellBehind(figures.sendsDeferred(), figures.latency(), figures.intended());
        if (behind != null) {
            warnings.add(behind);
            notes.add("warning: " + behind);
        }
        String clockWarning = clocks == null ? null : clocks.warning();
        if (clockWarning != null) {
            warnings.add(clockWarning);
            notes.add("warning: " + clockWarning);
        }
        String connect = ScenarioCaveats.connectTime(o.connect() == null ? 0 : o.connect().getTotalCount());
        if (connect != null) {
            notes.add(connect);
        }
        String caveat = driver == null || seconds <= 0 ? null
                : driver.latencyCaveat(c.options(), received / seconds / Math.max(1, c.subscribers()));
        if (caveat != null) {
            notes.add(caveat);
        }
        String failure = o.failure();
        if (failure == null && errors > 0) {
            failure = errors + " errors (" + byKind(counters) + ")"
                    + (o.firstErrors().isEmpty() ? "" : "; first: " + o.firstErrors().get(0));
        }
        if (received > expected && c.allowDuplicates()) {
            notes.add((received - expected) + " deliveries beyond the " + expected + " expected (duplicates or a "
                    + "message to more than one group member), accepted by --allow-duplicates");
        } else if (failure == null && received > expected) {
            failure = "received " + received + " deliveries, more than the " + expected + " the scenario allows"
                    + (c.scenario() == Scenario.ROUND_ROBIN ? " (a message reached more than one group member)" : "")
                    + "; --allow-duplicates accepts that at an at-least-once QoS";
        }
        String kept = received < expected ? stillHeld(o, reliable) : null;
        if (failure == null && received < expected && (reliable || kept != null)) {
            failure = "delivery_rate " + String.format(java.util.Locale.ROOT, "%.6f", delivery) + " < 1.0 at "
                    + qosLabel + ": " + (expected - received) + " deliveries missing " + waitEnd(o, c)
                    + (kept != null ? kept : lossHint == null ? "" : "; " + lossHint);
        }
        if (failure == null && sent < nominal / (c.scenario() == Scenario.FAN_OUT ? c.subscribers() : 1)) {
            failure = "the publishers sent " + sent + " of the " + nominal + " messages scheduled";
        }
        if (!reliable && received < expected && kept == null) {
            notes.add("delivery_rate < 1.0 at " + qosLabel + " (no delivery guarantee): " + (expected - received)
                    + " deliveries missing " + waitEnd(o, c) + ", reported, not failed");
        }
        String leftOver = failure == null || driver == null ? null : driver.failureNote(c.options());
        if (leftOver != null) {
            notes.add(leftOver);
        }
        Map<String, Object> spec = spec(c);
        if (faults != null && !faults.isEmpty()) {
            spec.put("faults", faults.shorthand()); // only with faults: earlier specs keep their hashes
        }
        // the envelope every mode shares (issue 15), once the verdict above is known
        Envelope envelope = Envelope.of("scenario", Long.toHexString(c.seed()), c.driver(), o.startedAt(), failure,
                o.failedDuring() != null ? o.failedDuring() : "measurement", warnings, spec, hash(spec), o.environment(),
                o.interruption() != null);
        ScenarioResult.Setup setup = new ScenarioResult.Setup(c.scenario().label(), qosLabel, c.publishers(),
                c.subscribers(), c.timeline() == null ? c.rate() : null, c.warmupMs() / 1000.0, seconds, c.size(),
                c.randomPadding() ? "random" : "zeros", o.broker(), o.connectFailures(), o.crossHost(), o.clockOffsets());
        notes.add("latency_* from the actual send time (payload bytes 0-7, epoch ns); intended_latency_* from the "
                + "scheduled send time (bytes 16-23), which includes any time a publisher fell behind its schedule");
        notes.add("rates over the measurement period only; expected_messages from the messages actually sent "
                + "(expected_nominal = " + (c.timeline() == null ? "publishers x rate x duration"
                : "the messages the phases schedule") + (c.scenario() == Scenario.FAN_OUT ? " x subscribers" : "") + ")");
        io.msgscope.core.timeline.Timeline asRun = o.timeline(c.timeline());
        ScenarioPhases phases = c.timeline() == null ? null
                : ScenarioPhases.of(asRun, c.scenario(), c.subscribers(), o.windows());
        if (phases != null) {
            phases = phases.withBacklog(ScenarioBacklog.of(asRun, c.scenario(), c.subscribers(), o.windows(),
                    phases, o.backlogReads()));
            if (phases.backlog() != null) {
                notes.add("backlog: from the poll windows (about 1 s): in flight = deliveries expected of the sends "
                        + "less deliveries at each window's end; time to catch up from each window's p99 from the "
                        + "intended time; the broker's count read by the subscribers agents 10 times a second");
                phases.backlog().notes().forEach(n -> notes.add("backlog: the broker's count was not read: " + n));
            }
        }
        if (phases != null) {
            notes.add("phases: the TOTAL publish rate over all publishers; each phase's figures from the poll windows "
                    + "(about 1 s) whose midpoint falls in it");
        }
        if (broker != null) {
            notes.addAll(broker.notes());
        }
        if (o.faults() != null) {
            notes.add("faults: applied by the broker-probe agent on the measurement's clock; each fault's cost from the "
                    + "messages counted per bucket_ms of arrival and of intended send time and from the poll windows "
                    + "(about 1 s); messages_lost, _duplicated and _reordered by each publisher's sequence as each "
                    + "subscription saw it (null on round-robin, whose members share it); guarantee_violations per fault "
                    + "null (no confirms followed); messages_missing_net nets duplicates against losses");
            if (o.faults().note() != null) {
                notes.add("faults: " + o.faults().note());
            }
        }
        return new ScenarioResult(envelope, setup, o.missingAgents().isEmpty() ? null : String.join("; ", o.missingAgents()),
                o.firstErrors(), figures, notes, o.seconds(),
                phases == null ? o.intervals() : ScenarioPhases.tagged(asRun, o.windows(), o.intervals()),
                o.interruption(), phases, clocks, o.faults());
    }

    /**
     * The connections (issue 13): how many were asked for, opened, failed by kind, never attempted; the
     * set-up time; connect time (TCP connect to the broker's answer; subscribers also to their
     * subscription's confirmation) with the Q4-style fields; the agents per role.
     */
    private static ScenarioFigures.Connections connections(ScenarioOutcome o, Map<String, Long> counters,
                                                           Map<String, String> options) {
        Map<String, Long> failedByKind = new LinkedHashMap<>();
        for (Fault.Kind k : Fault.Kind.values()) {
            String f = "connect_failed_" + k.name().toLowerCase(java.util.Locale.ROOT);
            if (counters.containsKey(f)) {
                failedByKind.put(f, counters.get(f));
            }
        }
        return new ScenarioFigures.Connections(counters.getOrDefault("connections_target", 0L),
                counters.getOrDefault("connections_opened", 0L), ScenarioCounters.failedConnections(counters),
                failedByKind, counters.getOrDefault("connections_not_attempted", 0L), o.setupSeconds(),
                LatencyFigures.of(o.connect()), o.publishersAgents(), o.subscribersAgents(),
                agentUse(o, counters, "publishers", "messages_sent"),
                agentUse(o, counters, "subscribers", "messages_received"), reconnects(counters, options));
    }

    /**
     * With {@code --opt reconnect=true}: the connections the clients got back and the publishes sent again, summed over
     * the agents; each null where the driver does not count it (Kafka's client reconnects unseen). Empty without.
     */
    static Map<String, Long> reconnects(Map<String, Long> counters, Map<String, String> options) {
        Map<String, Long> m = new LinkedHashMap<>();
        if (io.msgscope.core.driver.Reconnects.on(options)) {
            for (String k : List.of(io.msgscope.core.driver.Reconnects.PUBLISHER_RECONNECTS,
                    io.msgscope.core.driver.Reconnects.SUBSCRIBER_RECONNECTS,
                    io.msgscope.core.driver.Reconnects.REPUBLISHED)) {
                m.put(k, counters.get(k));
            }
        }
        return m;
    }

    /**
     * A role's agents at the final report (connections still open), summed over them; their process CPU from the
     * reset after the warm-up to the final report (measurement, in-flight wait), per message they handled.
     */
    private static ScenarioFigures.AgentUse agentUse(ScenarioOutcome o, Map<String, Long> counters, String role,
                                                     String handled) {
        Long end = counters.get(role + "_agent_cpu_ns");
        Long start = o.cpuAtReset().get(role + "_agent_cpu_ns");
        Double cpuMs = end == null || start == null ? null : (end - start) / 1e6;
        long msgs = counters.getOrDefault(handled, 0L);
        return new ScenarioFigures.AgentUse(counters.get(role + "_agent_threads"), counters.get(role + "_agent_rss_kib"),
                counters.get(role + "_agent_heap_used_kib"), cpuMs, cpuMs == null || msgs == 0 ? null : cpuMs * 1e3 / msgs);
    }

    /** A middle box run by the broker-probe agent (ZeroMQ via=proxy): its counts and CPU per message (M3); or null. */
    private static ScenarioFigures.Proxy proxy(ScenarioOutcome o, double seconds) {
        Long forwarded = o.counters().get("proxy_forwarded");
        if (forwarded == null) {
            return null;
        }
        long cpu = o.counters().getOrDefault("proxy_cpu_ns", 0L);
        return new ScenarioFigures.Proxy(forwarded, 100.0 * cpu / (seconds * 1e9),
                forwarded == 0 ? null : (double) cpu / forwarded, o.counters().getOrDefault("proxy_short_frames", 0L));
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
        if (c.timeline() == null) {
            m.put("rate", c.rate());
        } else { // issue 31: the phases give the rates and the length; the spec loads back with --phases
            m.put("phases", c.timeline().shorthand());
        }
        m.put("warmup_ms", c.warmupMs());
        if (c.timeline() == null) {
            m.put("duration_ms", c.durationMs());
        }
        m.put("size", c.size());
        m.put("padding", c.randomPadding() ? "random" : "zeros");
        m.put("topic_prefix", c.topicPrefix());
        m.put("io_threads", c.connections().ioThreads());
        m.put("connect_rate", c.connections().connectRate());
        m.put("source_addresses", c.connections().sourceAddresses());
        if (c.allowDuplicates()) {
            m.put("allow_duplicates", true); // only when given: earlier specs keep their hashes
        }
        if (c.drainTimeoutMs() != ScenarioConfig.DEFAULT_DRAIN_TIMEOUT_MS) {
            m.put("drain_timeout_ms", c.drainTimeoutMs()); // issue 31 item 1; at its default, earlier specs' hashes hold
        }
        return m;
    }

    /**
     * How the in-flight wait ended for deliveries still missing (Q9, issue 31 item 1): no delivery for
     * {@code --drain-timeout} ms, or otherwise (the subscriptions lost, an interruption) at its end.
     */
    static String waitEnd(ScenarioOutcome o, ScenarioConfig c) {
        if (o.interruption() != null && "drain".equals(o.interruption().during())) {
            return "when " + o.interruption().signal() + " cut the in-flight wait";
        }
        return o.inFlightTimedOut() ? "after no delivery for " + c.drainTimeoutMs() + " ms (--drain-timeout)"
                : "at the end of the in-flight wait";
    }

    /**
     * Deliveries the broker kept but never handed over (issue 31 item 3): on backlog phases the subscribers agents read
     * the broker's count until after the in-flight wait, and a count still above 0 then means messages the broker had
     * accepted and was keeping for the subscriptions were never delivered — a loss no QoS excuses (without publisher
     * confirms a message may be lost on its way in, not once the broker counts it). The clause that says so, or null
     * when the broker held nothing at its last read or was not read.
     */
    static String stillHeld(ScenarioOutcome o, boolean reliable) {
        Long held = o.backlogReads() == null ? null : o.backlogReads().lastSum();
        if (held == null || held <= 0) {
            return null;
        }
        return "; the broker still held " + held + " messages for the subscriptions at its last read, after the wait: "
                + "it had them and never delivered them" + (reliable ? "" : " (failed at any QoS)");
    }

    /** SHA-256 (hex) of the spec's canonical JSON (sorted keys): equal specs, equal hashes, whatever the run id. */
    static String hash(Map<String, Object> spec) {
        try {
            byte[] json = Json.MAPPER.writer()
                    .without(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
                    .with(com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
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
}
