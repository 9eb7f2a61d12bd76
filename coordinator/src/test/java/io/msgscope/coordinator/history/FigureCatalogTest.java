package io.msgscope.coordinator.history;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The key figures of each mode's summary, against values read off the golden files by hand (issue 34). */
class FigureCatalogTest {
    static JsonNode summary(String folder) throws IOException {
        return RunStoreTest.JSON.readTree(RunStoreTest.golden(folder).resolve("summary.json").toFile());
    }

    @Test
    void traceRun() throws IOException {
        Map<String, Double> f = FigureCatalog.of(summary("trace-folder"));
        assertEquals(71.0, f.get("latency_p99_us"));
        assertEquals(20.0, f.get("latency_min_us"));
        assertEquals(900.0, f.get("latency_p999_us"));
        assertEquals(100000.0, f.get("send_msg_s"));
        assertEquals(99830.11891675826, f.get("receive_msg_s"));
        assertEquals(1.0, f.get("messages_lost"));
        assertEquals(3.0, f.get("reordered"));
        assertEquals(7000.0, f.get("cpu_ns_per_message_sender"));
        assertEquals(7000.0, f.get("cpu_ns_per_message_sender_work"));
        assertEquals(5000.0, f.get("cpu_ns_per_message_receiver"));
        assertEquals(4000.0, f.get("cpu_ns_per_message_broker"));
        assertFalse(f.containsKey("latency_from_intended_p99_us"), "full speed: no intended time, no figure");
        assertFalse(f.containsKey("faults_planned"), "no --faults");
    }

    @Test
    void rateModeTraceRunHasLatencyFromTheIntendedTimeInMicroseconds() throws IOException {
        JsonNode s = summary("trace-folder").deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) s.path("series")).set("latency_corrected_ns",
                RunStoreTest.JSON.readTree("{\"min\": 21000.0, \"mean\": 30500.5, \"p50\": 24000.0, \"p95\": 70000.0, "
                        + "\"p99\": 75000.0, \"p99_9\": 950000.0, \"p99_99\": 1.0E7, \"max\": 2100000.0}"));
        Map<String, Double> f = FigureCatalog.of(s);
        assertEquals(75.0, f.get("latency_from_intended_p99_us"));
        assertEquals(950.0, f.get("latency_from_intended_p999_us"));
        assertEquals(30.5005, f.get("latency_from_intended_mean_us"));
        assertEquals(2100.0, f.get("latency_from_intended_max_us"));
    }

    @Test
    void throughputRun() throws IOException {
        Map<String, Double> f = FigureCatalog.of(summary("throughput-folder"));
        assertEquals(45000.0, f.get("delivered_msg_s"));
        assertEquals(45000.0, f.get("receive_msg_s"));
        assertEquals(6000.639, f.get("latency_p99_us"));
        assertEquals(90.0, f.get("in_flight"));
        assertEquals(90.0, f.get("knee_in_flight"));
        assertEquals(45000.0, f.get("knee_msg_s"));
        assertEquals(1000.0, f.get("peak_in_flight"));
        assertEquals(49504.9504950495, f.get("peak_msg_s"));
        assertEquals(3333.3333333333335, f.get("cpu_ns_per_message_sender"));
        assertEquals(2222.222222222222, f.get("cpu_ns_per_message_receiver"));
        assertEquals(8888.888888888889, f.get("cpu_ns_per_message_process"));
        assertEquals(10000.0, f.get("messages_sent"));
        assertFalse(f.containsKey("send_msg_s"));
    }

    @Test
    void scenarioRunUnknownCpuIsNullNotZero() throws IOException {
        Map<String, Double> f = FigureCatalog.of(summary("scenario-folder"));
        assertEquals(100.351, f.get("latency_from_intended_p99_us"));
        assertEquals(86.015, f.get("latency_p99_us"));
        assertEquals(200.0, f.get("send_msg_s"));
        assertEquals(199.5, f.get("receive_msg_s"));
        assertEquals(1.0, f.get("messages_lost"), "400 expected - 399 received");
        assertEquals(0.9975, f.get("delivery_rate"));
        assertTrue(f.containsKey("cpu_ns_per_message_sender"));
        assertNull(f.get("cpu_ns_per_message_sender"), "null in the summary: unknown, stored as null");
    }

    @Test
    void capacityRunAndFaults() throws IOException {
        JsonNode s = RunStoreTest.JSON.readTree("""
                {"mode": "capacity", "status": "ok",
                 "capacity": {"found_msg_s": 4000.0, "first_failing_msg_s": 4500.0,
                              "edge": {"mean_msg_s": 4210.5}, "steps_taken": 9,
                              "cpu_ns_per_message_at_found": {"sender": 900.0, "receiver": 1100.0, "other": 5.0}},
                 "throughput_knee": {"in_flight": 64, "msg_s": 51000.0},
                 "faults": [
                   {"applied_s": 1.5, "messages_lost": 3, "unavailable_ms": 250.0, "p99_recovered_s": 2.0},
                   {"applied_s": null, "messages_lost": 4, "unavailable_ms": null, "p99_recovered_s": 0.5},
                   {"applied_s": 7.0, "messages_lost": 0, "unavailable_ms": 900.0, "p99_recovered_s": 1.0}]}""");
        Map<String, Double> f = FigureCatalog.of(s);
        Map<String, Double> expected = new HashMap<>();
        expected.put("capacity_msg_s", 4000.0);
        expected.put("first_failing_msg_s", 4500.0);
        expected.put("capacity_edge_msg_s", 4210.5);
        expected.put("capacity_steps", 9.0);
        expected.put("cpu_ns_per_message_sender", 900.0);
        expected.put("cpu_ns_per_message_receiver", 1100.0);
        expected.put("knee_in_flight", 64.0);
        expected.put("knee_msg_s", 51000.0);
        expected.put("faults_planned", 3.0);
        expected.put("faults_applied", 2.0);
        expected.put("faults_messages_lost", 7.0); // 3 + 4 + 0
        expected.put("faults_max_unavailable_ms", 900.0);
        expected.put("faults_max_p99_recovered_s", 2.0);
        assertEquals(expected, f);
    }

    @Test
    void aFaultThatNeverRecoveredLeavesTheSlowestRecoveryUnknown() throws IOException {
        JsonNode s = RunStoreTest.JSON.readTree("""
                {"mode": "trace", "faults": [
                   {"applied_s": 1.5, "messages_lost": null, "unavailable_ms": null, "p99_recovered_s": 2.0},
                   {"applied_s": 2.5, "messages_lost": 1, "unavailable_ms": null, "p99_recovered_s": null}]}""");
        Map<String, Double> f = FigureCatalog.of(s);
        assertEquals(2.0, f.get("faults_planned"));
        assertNull(f.get("faults_messages_lost"));
        assertNull(f.get("faults_max_unavailable_ms"));
        assertNull(f.get("faults_max_p99_recovered_s"));
        assertTrue(f.containsKey("faults_max_p99_recovered_s"));
    }
}
