package io.msgscope.coordinator.history;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The key figures a stored run keeps (issue 34 item 1), read from its finished summary.json under one name across
 * the modes, so that {@code msgscope history --figure latency_p99_us} follows a trace run, a throughput run and a
 * scenario alike. Each name is the summary's own field name where the modes agree ({@code latency_p99_us},
 * {@code messages_lost}); where they differ, the trace run's name is used and the others are mapped to it (a
 * scenario's {@code results.send_rate} is {@code send_msg_s}). A figure the summary does not have is not stored; a
 * figure the summary has as null is stored as null (unknown, never 0). docs/commands.md lists the names.
 */
public final class FigureCatalog {
    /** The Q4 latency fields, as summary.json names them between {@code latency_} and {@code _us}. */
    static final List<String> Q4 = List.of("min", "mean", "p50", "p95", "p99", "p999", "max");
    /** The trace series' statistics that carry the Q4 fields, in {@link #Q4}'s order. */
    private static final List<String> SERIES_Q4 = List.of("min", "mean", "p50", "p95", "p99", "p99_9", "max");
    /** The roles whose CPU per message a run can know. */
    static final List<String> CPU_ROLES = List.of("sender", "sender_work", "receiver", "broker", "process");
    /** The scale that turns ns into µs (a division, not a multiplication by 0.001). */
    private static final double NS_TO_US = -1;
    /** Every name, in the order the CSV export lists them. */
    public static final List<String> NAMES = names();

    private FigureCatalog() {
    }

    private static List<String> names() {
        List<String> n = new ArrayList<>();
        Q4.forEach(q -> n.add("latency_" + q + "_us"));
        Q4.forEach(q -> n.add("latency_from_intended_" + q + "_us"));
        n.addAll(List.of("send_msg_s", "receive_msg_s", "delivered_msg_s", "window_median_msg_s", "messages_sent",
                "messages_received", "messages_lost", "duplicates", "reordered", "delivery_rate", "errors"));
        CPU_ROLES.forEach(r -> n.add("cpu_ns_per_message_" + r));
        n.addAll(List.of("in_flight", "knee_in_flight", "knee_msg_s", "peak_in_flight", "peak_msg_s",
                "capacity_msg_s", "first_failing_msg_s", "capacity_edge_msg_s", "capacity_steps",
                "faults_planned", "faults_applied", "faults_messages_lost", "faults_max_unavailable_ms",
                "faults_max_p99_recovered_s"));
        return List.copyOf(n);
    }

    /** Whether {@code name} is a figure this catalog knows. */
    public static boolean known(String name) {
        return NAMES.contains(name);
    }

    /** The figures of one summary, name → value (null: unknown), in {@link #NAMES}' order. */
    public static Map<String, Double> of(JsonNode s) {
        Map<String, Double> f = new LinkedHashMap<>();
        switch (s.path("mode").asText("trace")) {
            case "throughput" -> throughput(s, f);
            case "scenario" -> scenario(s, f);
            case "capacity" -> capacity(s, f);
            default -> trace(s, f);
        }
        faults(s.path("faults"), f);
        Map<String, Double> ordered = new LinkedHashMap<>();
        NAMES.stream().filter(f::containsKey).forEach(n -> ordered.put(n, f.get(n)));
        return ordered;
    }

    private static void trace(JsonNode s, Map<String, Double> f) {
        Q4.forEach(q -> put(f, "latency_" + q + "_us", s.at("/latency/latency_" + q + "_us"), 1));
        JsonNode corrected = s.at("/series/latency_corrected_ns");
        for (int i = 0; i < Q4.size() && corrected.isObject(); i++) { // rate mode only: latency from the intended time
            put(f, "latency_from_intended_" + Q4.get(i) + "_us", corrected.path(SERIES_Q4.get(i)), NS_TO_US);
        }
        put(f, "send_msg_s", s.at("/throughput/send_msg_s"), 1);
        put(f, "receive_msg_s", s.at("/throughput/receive_msg_s"), 1);
        for (String c : List.of("messages_sent", "messages_received", "messages_lost", "duplicates", "reordered",
                "errors")) {
            put(f, c, s.at("/counters/" + c), 1);
        }
        put(f, "cpu_ns_per_message_sender", s.at("/cpu/sender/time_weighted/cpu_ns_per_message"), 1);
        put(f, "cpu_ns_per_message_sender_work", s.at("/cpu/sender/time_weighted/work_ns_per_message"), 1);
        put(f, "cpu_ns_per_message_receiver", s.at("/cpu/receiver/time_weighted/cpu_ns_per_message"), 1);
        put(f, "cpu_ns_per_message_broker", s.at("/cpu/broker/time_weighted/cpu_ns_per_message"), 1);
    }

    private static void throughput(JsonNode s, Map<String, Double> f) {
        JsonNode r = s.path("result");
        Q4.forEach(q -> put(f, "latency_" + q + "_us", r.at("/latency/latency_" + q + "_us"), 1));
        put(f, "delivered_msg_s", r.path("delivered_msg_s"), 1);
        put(f, "receive_msg_s", r.path("delivered_msg_s"), 1);
        put(f, "window_median_msg_s", r.path("window_median_msg_s"), 1);
        put(f, "messages_sent", r.path("messages_sent"), 1);
        put(f, "messages_received", r.path("messages_received"), 1);
        put(f, "errors", r.at("/counters/errors"), 1);
        put(f, "in_flight", r.path("in_flight"), 1);
        put(f, "cpu_ns_per_message_sender", r.at("/cpu/producer_thread/ns_per_message"), 1);
        put(f, "cpu_ns_per_message_receiver", r.at("/cpu/consumer_thread/ns_per_message"), 1);
        put(f, "cpu_ns_per_message_process", r.at("/cpu/process/ns_per_message"), 1);
        put(f, "knee_in_flight", s.at("/search/knee/in_flight"), 1);
        put(f, "knee_msg_s", s.at("/search/knee/median_msg_s"), 1);
        put(f, "peak_in_flight", s.at("/search/peak/in_flight"), 1);
        put(f, "peak_msg_s", s.at("/search/peak/median_msg_s"), 1);
    }

    private static void scenario(JsonNode s, Map<String, Double> f) {
        JsonNode r = s.path("results");
        Q4.forEach(q -> put(f, "latency_" + q + "_us", r.path("latency_" + q + "_us"), 1));
        Q4.forEach(q -> put(f, "latency_from_intended_" + q + "_us", r.path("intended_latency_" + q + "_us"), 1));
        put(f, "send_msg_s", r.path("send_rate"), 1);
        put(f, "receive_msg_s", r.path("receive_rate"), 1);
        put(f, "messages_sent", r.path("messages_sent"), 1);
        put(f, "messages_received", r.path("messages_received"), 1);
        put(f, "delivery_rate", r.path("delivery_rate"), 1);
        put(f, "errors", r.path("errors"), 1);
        JsonNode expected = r.path("expected_messages");
        JsonNode received = r.path("messages_received");
        if (!r.isMissingNode() && r.has("expected_messages")) { // deliveries expected less received, as capacity counts
            f.put("messages_lost", expected.isNumber() && received.isNumber()
                    ? (double) Math.max(0, expected.asLong() - received.asLong()) : null);
        }
        put(f, "cpu_ns_per_message_sender", r.path("publishers_cpu_us_per_message"), 1e3);
        put(f, "cpu_ns_per_message_receiver", r.path("subscribers_cpu_us_per_message"), 1e3);
    }

    private static void capacity(JsonNode s, Map<String, Double> f) {
        JsonNode c = s.path("capacity");
        put(f, "capacity_msg_s", c.path("found_msg_s"), 1);
        put(f, "first_failing_msg_s", c.path("first_failing_msg_s"), 1);
        if (c.has("edge")) {
            f.put("capacity_edge_msg_s", value(c.at("/edge/mean_msg_s"), 1));
        }
        put(f, "capacity_steps", c.path("steps_taken"), 1);
        c.path("cpu_ns_per_message_at_found").fields().forEachRemaining(e -> {
            if (CPU_ROLES.contains(e.getKey())) {
                put(f, "cpu_ns_per_message_" + e.getKey(), e.getValue(), 1);
            }
        });
        if (s.has("throughput_knee")) {
            JsonNode k = s.path("throughput_knee");
            f.put("knee_in_flight", value(k.path("in_flight"), 1));
            f.put("knee_msg_s", value(k.path("msg_s"), 1));
        }
    }

    /**
     * A run with {@code --faults} (issue 32): how many were planned and applied, the messages lost in their windows
     * (null when one fault's count is unknown), the longest unavailability and the slowest p99 recovery (null when
     * one never recovered or none is known).
     */
    private static void faults(JsonNode faults, Map<String, Double> f) {
        if (!faults.isArray()) {
            return;
        }
        f.put("faults_planned", (double) faults.size());
        double applied = 0;
        Double lost = 0.0;
        Double maxUnavailable = null;
        Double maxRecovered = faults.isEmpty() ? null : Double.NEGATIVE_INFINITY;
        for (JsonNode x : faults) {
            applied += x.path("applied_s").isNumber() ? 1 : 0;
            lost = lost == null || !x.path("messages_lost").isNumber() ? null : lost + x.path("messages_lost").asDouble();
            if (x.path("unavailable_ms").isNumber()) {
                maxUnavailable = Math.max(maxUnavailable == null ? 0 : maxUnavailable, x.path("unavailable_ms").asDouble());
            }
            maxRecovered = maxRecovered == null || !x.path("p99_recovered_s").isNumber() ? null
                    : Math.max(maxRecovered, x.path("p99_recovered_s").asDouble());
        }
        f.put("faults_applied", applied);
        f.put("faults_messages_lost", lost);
        f.put("faults_max_unavailable_ms", maxUnavailable);
        f.put("faults_max_p99_recovered_s", maxRecovered);
    }

    /** Stores {@code node × scale} under {@code name} when the summary has the field (null stays null). */
    private static void put(Map<String, Double> f, String name, JsonNode node, double scale) {
        if (!node.isMissingNode()) {
            f.put(name, value(node, scale));
        }
    }

    /** A number × {@code scale}; {@link #NS_TO_US} divides by 1000 (so 23000 ns is exactly 23.0 µs). */
    private static Double value(JsonNode node, double scale) {
        if (!node.isNumber()) {
            return null;
        }
        return scale == NS_TO_US ? node.asDouble() / 1e3 : node.asDouble() * scale;
    }
}
