package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.coordinator.results.Json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import io.msgscope.core.EnvironmentInfo;
import io.msgscope.core.RunSpec;
import io.msgscope.core.Version;
import io.msgscope.driver.tcp.TcpDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

class SummaryJsonTest {
    private static final long ABSENT = Long.MIN_VALUE;
    private static final List<String> Q4 = List.of("latency_min_us", "latency_max_us", "latency_mean_us",
            "latency_p50_us", "latency_p95_us", "latency_p99_us", "latency_p999_us");

    @TempDir
    Path dir;

    /**
     * Ten messages 1 µs apart; latencies 5,7,6,9,8,10,12,11 µs, message 8 lost, message 9 20 µs.
     * Sorted latencies (µs): 5 6 7 8 9 10 11 12 20; n = 9, mean 88/9.
     */
    static TraceCollector handTrace() {
        RunSpec spec = RunSpec.builder().count(10).window(1).warmupCount(0).size(64).pin(false).build();
        TraceCollector out = new TraceCollector(spec, "run-test-1");
        long[] latencyUs = {5, 7, 6, 9, 8, 10, 12, 11, -1, 20};
        for (int i = 0; i < 10; i++) {
            out.sendNs[i] = 1_000_000L + i * 1_000L;
            if (latencyUs[i] >= 0) {
                out.recvNs[i] = out.sendNs[i] + latencyUs[i] * 1_000L;
            }
        }
        out.sent = 10;
        out.received = 9;
        out.sentReported = true;
        out.receivedReported = true;
        out.failure = "1 of 10 messages lost";
        out.warnings.add("pinning disabled");
        return out;
    }

    /**
     * The summary of what the analysis alone gives: no CPU samples, no distribution, trace.dat not checked. The
     * topology line is the raw-TCP driver's whatever the spec's driver (these tests read other fields).
     */
    static Map<String, Object> summary(TraceResult r, AnalysisResult a, EnvironmentInfo env, String startedAt,
                                       List<String> files) {
        String topology = new TcpDriver().topology(r.spec().uriForDisplay(), Map.of(), r.destination());
        return SummaryJson.build(new TraceReport(r, a, topology, new CpuReport(List.of(), Map.of(), Map.of()), null,
                null, env, startedAt, null, null), files);
    }

    private static AnalysisResult analyse(TraceCollector out) {
        return TraceAnalysis.analyse(new Trace(out.spec.count(), out.sendNs, out.intendedNs, out.recvNs),
                out.spec.window());
    }

    private JsonNode writeAndRead(TraceCollector out) throws Exception {
        AnalysisResult a = analyse(out);
        Map<String, Object> summary = summary(out.result(), a, EnvironmentInfo.current(), "2024-01-02T03:04:05Z",
                List.of("trace.dat", ResultFiles.SUMMARY));
        Path file = dir.resolve(ResultFiles.SUMMARY);
        Json.write(file, summary);
        return new ObjectMapper().readTree(file.toFile());
    }

    @Test
    void handTraceSummary() throws Exception {
        JsonNode root = writeAndRead(handTrace());

        assertEquals("msgscope", root.at("/tool/name").asText());
        assertEquals(Version.TOOL, root.at("/tool/version").asText());
        assertEquals("run-test-1", root.get("run_id").asText());
        assertEquals("trace", root.get("mode").asText());
        assertEquals("2024-01-02T03:04:05Z", root.get("started_at").asText());
        assertEquals("failed", root.get("status").asText());
        assertEquals("1 of 10 messages lost", root.get("failure_reason").asText());
        assertEquals("pinning disabled", root.at("/warnings/0").asText());

        JsonNode latency = root.get("latency");
        assertEquals(Q4, names(latency), "Q4 field names, in order");
        assertEquals(5.0, latency.get("latency_min_us").asDouble());
        assertEquals(20.0, latency.get("latency_max_us").asDouble());
        assertEquals(88.0 / 9.0, latency.get("latency_mean_us").asDouble(), 1e-12);
        assertEquals(9.0, latency.get("latency_p50_us").asDouble()); // rank ceil(4.5) = 5
        assertEquals(20.0, latency.get("latency_p95_us").asDouble()); // rank ceil(8.55) = 9
        assertEquals(20.0, latency.get("latency_p99_us").asDouble());
        assertEquals(20.0, latency.get("latency_p999_us").asDouble());

        JsonNode c = root.get("counters");
        assertEquals(10, c.get("messages_sent").asLong());
        assertEquals(9, c.get("messages_received").asLong());
        assertEquals(1, c.get("messages_lost").asLong());
        assertEquals(0, c.get("duplicates").asLong());
        assertEquals(0, c.get("reordered").asLong());
        assertEquals(0, c.get("out_of_range").asLong());
        assertEquals(640, c.get("bytes_sent").asLong());
        assertEquals(576, c.get("bytes_received").asLong());
        assertTrue(c.get("relay_forwarded").isNull(), "unknown relay count is null");
        assertEquals(0, c.get("negative_latencies_clamped").asLong());
        assertEquals(0, c.get("latencies_above_histogram_range").asLong());

        JsonNode spec = root.get("spec");
        assertEquals(10, spec.get("count").asLong());
        assertEquals(0, spec.get("warmup").asLong());
        assertEquals(64, spec.get("size").asInt());
        assertEquals(0.0, spec.get("rate").asDouble());
        assertEquals("zeros", spec.get("padding").asText());
        assertEquals(1, spec.get("window").asInt());
        assertFalse(spec.get("pin").asBoolean());
        assertEquals(2000, spec.get("drain_timeout_ms").asLong());
        assertEquals(0, spec.get("socket_buffer").asInt());
        assertEquals(1, spec.get("send_batch").asInt());
        assertEquals(42, spec.get("seed").asLong());
        assertTrue(root.get("spec_hash").asText().matches("[0-9a-f]{64}"));

        // window 1: pairs (n-1, n) with all four times present: n = 1..7 (message 8 was lost)
        JsonNode id = root.get("identity_check");
        assertEquals(1, id.get("window").asInt());
        assertEquals(7, id.get("checked").asLong());
        assertEquals(0, id.get("violations").asLong());
        assertTrue(id.get("holds").asBoolean());
        assertEquals(0.0, id.get("max_abs_error_ns").asDouble());

        // 9 intervals of 1 µs on the sending side; 8 intervals (9 received) over 29 µs from the first send (at 0) to
        // the last arrival (message 9: sent at 9 µs, 20 µs on the way) on the receiving side (issue 27)
        JsonNode t = root.get("throughput");
        assertEquals(1_000_000.0, t.get("send_msg_s").asDouble(), 1e-6);
        assertEquals(8e9 / 29_000, t.get("receive_msg_s").asDouble(), 1e-6);
        assertEquals(64_000_000.0, t.get("send_bytes_s").asDouble(), 1e-3);

        JsonNode lat = root.at("/series/latency_ns");
        assertEquals(9, lat.get("n").asInt());
        assertEquals(9_000.0, lat.get("median").asDouble());
        assertTrue(root.at("/series/latency_corrected_ns").isMissingNode(), "no intended times, no corrected series");
        assertEquals(List.of("trace.dat", "summary.json"), strings(root.get("files")));
        assertTrue(root.at("/environment/coordinator/logical_cores").asInt() > 0);
        assertTrue(root.at("/environment/agents").isEmpty());
    }

    /**
     * issue 27: the receiver's report never came (its trace did): received and lost are counted from the traces,
     * but duplicates, reordered and out of range exist only in the report, so they are unknown (null), not 0.
     */
    @Test
    void arrivalCountsAreNullWhenTheReceiversReportNeverCame() throws Exception {
        TraceCollector out = handTrace();
        out.receivedReported = false;
        out.received = 0;
        out.recvUploaded = true;
        out.countFromTraces();
        JsonNode c = writeAndRead(out).get("counters");
        assertEquals(9, c.get("messages_received").asLong(), "counted from the uploaded trace");
        assertEquals(1, c.get("messages_lost").asLong());
        for (String unknown : List.of("duplicates", "reordered", "out_of_range")) {
            assertTrue(c.get(unknown).isNull(), unknown + " is unknown without the receiver's report: " + c);
        }
    }

    /**
     * Issue 27: at --rate 20,000 (50 µs apart) for 1 s, the receiver stalled 0.8 s at the start and got the 16,000
     * messages sent meanwhile together at 0.8 s, the rest 100 µs after their send. From the first arrival 19,999
     * intervals span 0.2 s: ~100,000 msg/s, five times the rate asked. From the first send: 19,999 over 1.00005 s.
     */
    @Test
    void aStartUpStallCannotRaiseTheReceiveRateAboveTheRateAsked() {
        int n = 20_000;
        long[] send = new long[n];
        long[] recv = new long[n];
        for (int i = 0; i < n; i++) {
            send[i] = 50_000L * i;
            recv[i] = Math.max(800_000_000L + i, send[i] + 100_000L);
        }
        double rate = TraceResult.deliveredRate(send, recv, n);
        assertEquals(19_999e9 / (send[n - 1] + 100_000L), rate, 1e-9);
        assertTrue(rate < 20_000, "received at " + rate + " msg/s");
        assertTrue(TraceResult.rate(recv, n) > 99_000, "from the first arrival it was five times the rate asked");
    }

    @Test
    void aDriverCounterNamedLikeASummaryFieldIsRefusedNotMerged() {
        TraceCollector out = handTrace();
        out.driverCounters.put("returned", 2L);
        out.driverCounters.put("messages_sent", 99L);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> summary(out.result(), analyse(out),
                EnvironmentInfo.current(), "2024-01-02T03:04:05Z", List.of()));
        assertTrue(e.getMessage().contains("driver counter 'messages_sent'"), e.getMessage());
    }

    @Test
    void driverCountersFollowTheSummaryFields() throws Exception {
        TraceCollector out = handTrace();
        out.driverCounters.put("returned", 2L);
        JsonNode counters = writeAndRead(out).get("counters");
        assertEquals(10, counters.get("messages_sent").asLong());
        assertEquals(2, counters.get("returned").asLong());
    }

    @Test
    void successfulRunHasNullFailureReason() throws Exception {
        TraceCollector out = handTrace();
        out.failure = null;
        JsonNode root = writeAndRead(out);
        assertEquals("ok", root.get("status").asText());
        assertTrue(root.has("failure_reason"));
        assertTrue(root.get("failure_reason").isNull());
    }

    @Test
    void secretsAreMaskedInTheWrittenSpec() throws Exception {
        RunSpec spec = RunSpec.builder().count(4).window(1).driver("mqtt").uri("tcp://me:hunter2@127.0.0.1:1883")
                .driverOptions(Map.of("password", "hunter3", "qos", "1")).build();
        TraceCollector out = new TraceCollector(spec, "run-secret");
        out.sent = 4;
        out.failure = "nothing arrived";
        Path file = dir.resolve(ResultFiles.SUMMARY);
        Json.write(file, summary(out.result(), analyse(out), EnvironmentInfo.current(), "t", List.of()));
        String text = java.nio.file.Files.readString(file);
        assertFalse(text.contains("hunter"), text);
        JsonNode root = new ObjectMapper().readTree(text);
        assertEquals("tcp://me:****@127.0.0.1:1883", root.at("/spec/uri").asText());
        assertEquals("****", root.at("/spec/driver_options/password").asText());
        assertEquals("1", root.at("/spec/driver_options/qos").asText());
    }

    @Test
    void undefinedValuesAreNullNotNaN() throws Exception {
        RunSpec spec = RunSpec.builder().count(4).window(1).build();
        TraceCollector out = new TraceCollector(spec, "run-empty");
        for (int i = 0; i < 4; i++) {
            out.sendNs[i] = 100L * i;
        }
        out.sent = 4;
        out.failure = "4 of 4 messages lost";
        Path file = dir.resolve(ResultFiles.SUMMARY);
        Json.write(file, summary(out.result(), analyse(out), EnvironmentInfo.current(), "t", List.of()));
        String text = java.nio.file.Files.readString(file);
        assertFalse(text.contains("NaN"), "JSON has no NaN:\n" + text);
        assertFalse(text.contains("Infinity"), text);

        JsonNode root = new ObjectMapper().readTree(text);
        for (String field : Q4) {
            assertTrue(root.at("/latency/" + field).isNull(), field + " is null when nothing arrived");
        }
        assertEquals(4, root.at("/counters/messages_lost").asLong());
        assertTrue(root.at("/throughput/receive_msg_s").isNull());
        assertTrue(root.at("/throughput/rt_median_msg_s").isNull());
        assertEquals(0, root.at("/series/latency_ns/n").asInt());
        assertTrue(root.at("/series/latency_ns/mean").isNull());
        assertTrue(root.at("/series/rt_msg_s/median").isNull());
        assertEquals(0, root.at("/identity_check/checked").asLong());
        assertTrue(root.at("/identity_check/holds").asBoolean());
    }

    @Test
    void rateHelper() {
        assertEquals(1e9, TraceResult.rate(new long[] {5, 6, ABSENT}, 2), 1e-6);
        assertTrue(Double.isNaN(TraceResult.rate(new long[] {5, ABSENT}, 1)));
        assertTrue(Double.isNaN(TraceResult.rate(new long[] {ABSENT, ABSENT}, 0)));
        assertTrue(Double.isNaN(TraceResult.rate(new long[] {7, 7}, 2)), "zero span is undefined");
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    private static List<String> strings(JsonNode array) {
        List<String> s = new ArrayList<>();
        array.forEach(n -> s.add(n.asText()));
        return s;
    }
}
