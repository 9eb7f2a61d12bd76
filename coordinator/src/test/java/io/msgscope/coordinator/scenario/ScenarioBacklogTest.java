package io.msgscope.coordinator.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.core.LatencyRange;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.ScenarioReport;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scenario's backlog and per-phase CPU (issue 31 items 3 and 5), every figure by hand from seven 1-s poll windows of
 * "base:2s@1k, fill:2s@2k/paused, drain:3s@1k" (fan-in, one subscriber: each send expected once). Sends 1000, 1000,
 * 2000, 2000, 1000, 1000, 1000; deliveries 998, 1002, 0, 0, 3000, 2000, 2000: in flight at each window's end 2, 0,
 * 2000, 4000, 2000, 1000, 0. Latencies are multiples of 512 ns (see ScenarioPhasesTest): a percentile reports
 * {@code 512 (k + 1) - 1}, the minimum {@code 512 k}.
 */
class ScenarioBacklogTest {
    private static final Timeline TIMELINE = Timeline.parse("--phases", "base:2s@1k, fill:2s@2k/paused, drain:3s@1k");
    private static final long ORIGIN_MS = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    private static byte[] hist(long... steps) {
        Histogram h = LatencyRange.histogram();
        for (long k : steps) {
            h.recordValue(512 * k);
        }
        return ScenarioLinks.interval(0, 0, null, h).histogram();
    }

    private static List<ScenarioPhases.Window> windows() {
        return windows(1, null);
    }

    /** The windows with {@code subscribers} deliveries of each send, and the confirmed count at each end (or null). */
    private static List<ScenarioPhases.Window> windows(int subscribers, long[] confirmedByEnd) {
        long[] sent = {1000, 1000, 2000, 2000, 1000, 1000, 1000};
        long[] received = {998, 1002, 0, 0, 3000, 2000, 2000};
        byte[][] intended = {hist(400), hist(500), hist(), hist(), hist(9000), hist(600), hist(300)};
        Long[] pubCpu = {2_000_000L, 1_000_000L, 4_000_000L, 4_000_000L, 1_000_000L, 1_000_000L, 1_000_000L};
        Long[] subCpu = {3_000_000L, 1_000_000L, 1_000_000L, null, 1_000_000L, 3_000_000L, 3_000_000L};
        List<ScenarioPhases.Window> w = new ArrayList<>();
        for (int k = 0; k < 7; k++) {
            w.add(new ScenarioPhases.Window(ORIGIN_MS + k * 1000L, ORIGIN_MS + (k + 1) * 1000L, sent[k],
                    received[k] * subscribers, hist(10), intended[k], pubCpu[k], subCpu[k],
                    confirmedByEnd == null ? null : confirmedByEnd[k]));
        }
        return w;
    }

    /** Two subscribers agents' reads: A at 3.5, 4.5, 7.2 s; B at 3.4, 4.4, 7.1 s (epoch ns); B's hold unbounded. */
    private static ScenarioBacklog.Reads reads() {
        return reads(new long[] {1500, 900, 0}, 0, new long[] {1400, 1000, 0}, -1);
    }

    /** The same times with agent A's and B's depths and what each one's paused subscriptions may hold. */
    private static ScenarioBacklog.Reads reads(long[] depthA, long heldA, long[] depthB, long heldB) {
        long o = ORIGIN_MS * 1_000_000L;
        ScenarioReport a = ScenarioReport.newBuilder().addBacklogEpochNs(o + 3_500_000_000L).addBacklogDepth(depthA[0])
                .addBacklogEpochNs(o + 4_500_000_000L).addBacklogDepth(depthA[1])
                .addBacklogEpochNs(o + 7_200_000_000L).addBacklogDepth(depthA[2]).setBacklogHeldMax(heldA).build();
        ScenarioReport b = ScenarioReport.newBuilder().addBacklogEpochNs(o + 3_400_000_000L).addBacklogDepth(depthB[0])
                .addBacklogEpochNs(o + 4_400_000_000L).addBacklogDepth(depthB[1])
                .addBacklogEpochNs(o + 7_100_000_000L).addBacklogDepth(depthB[2]).setBacklogHeldMax(heldB).build();
        return ScenarioBacklog.Reads.add(ScenarioBacklog.Reads.add(null, a), b);
    }

    @Test
    void eachPhasesCpuPerMessageByRole() {
        List<ScenarioPhases.Phase> p = ScenarioPhases.of(TIMELINE, Scenario.FAN_IN, 1, windows()).phases();
        assertEquals(3_000_000.0 / 2000, p.get(0).publishersCpuNsPerMessage()); // (2 + 1) ms over 2,000 sent
        assertEquals(4_000_000.0 / 2000, p.get(0).subscribersCpuNsPerMessage()); // (3 + 1) ms over 998 + 1,002
        assertEquals(8_000_000.0 / 4000, p.get(1).publishersCpuNsPerMessage());
        assertNull(p.get(1).subscribersCpuNsPerMessage()); // a window's CPU unknown (and nothing delivered)
        assertEquals(3_000_000.0 / 3000, p.get(2).publishersCpuNsPerMessage());
        assertEquals(7_000_000.0 / 7000, p.get(2).subscribersCpuNsPerMessage());
        JsonNode j = new ObjectMapper().valueToTree(ScenarioPhases.of(TIMELINE, Scenario.FAN_IN, 1, windows()).toList());
        assertEquals(1500.0, j.get(0).get("cpu_ns_per_message").get("publishers_process").asDouble());
        assertTrue(j.get(1).get("cpu_ns_per_message").get("subscribers_process").isNull());
        assertTrue(j.get(1).get("consumers_paused").asBoolean());
        assertTrue(!j.get(2).get("consumers_paused").asBoolean());
    }

    @Test
    void theBacklogFromTheWindowsAndTheBrokersReadsByHand() throws Exception {
        ScenarioPhases phases = ScenarioPhases.of(TIMELINE, Scenario.FAN_IN, 1, windows());
        ScenarioBacklog b = ScenarioBacklog.of(TIMELINE, Scenario.FAN_IN, 1, windows(), phases, reads());
        JsonNode e = new ObjectMapper().valueToTree(b.toList()).get(0);
        assertEquals("fill", e.get("phases").get(0).asText());
        assertEquals(2.0, e.get("paused_at_s").asDouble());
        assertEquals(4.0, e.get("resumed_at_s").asDouble());
        assertEquals(4000, e.get("peak_messages").asLong()); // 6,000 expected less 2,000 delivered by 4 s
        assertEquals(4.0, e.get("peak_at_s").asDouble());
        assertEquals(6.0, e.get("drained_at_s").asDouble()); // 7,000 delivered by 6 s >= the 6,000 sent by the resume
        assertEquals(2.0, e.get("drain_s").asDouble());
        assertEquals(2500.0, e.get("drain_msg_s").asDouble()); // (3,000 + 2,000) over 4-6 s
        assertEquals(1000.0, e.get("drain_send_msg_s").asDouble());
        // base's p99 from the intended time: the higher of 512 x 400 and 512 x 500 ns, reported as 512 x 501 - 1
        assertEquals(256.511, e.get("catch_up_bound_us").asDouble(), 1e-9);
        // the medians of windows 4 (512 x 9000 ns) and 5 (512 x 600) above it, 6's (512 x 300) within: caught up at
        // 6 s, 2 s after; the last arrival above the bound is not known from windows
        assertEquals(2.0, e.get("time_to_catch_up_s").asDouble());
        assertTrue(e.get("last_arrival_above_bound_s").isNull());
        assertTrue(e.get("drain_send_lag").get("latency_p99_us").isNull()); // the publishers report no send lag
        // the drain's windows 4 and 5: min 512 x 600 ns, p50 (nearest rank of two) 512 x 601 - 1
        assertEquals(307.2, e.get("drain_latency_from_intended").get("latency_min_us").asDouble(), 1e-9);
        assertEquals(307.711, e.get("drain_latency_from_intended").get("latency_p50_us").asDouble(), 1e-9);
        // the reads summed at A's times: 1,500 + 1,400 at 3.5 s, 900 + 1,000 at 4.5 s, 0 at 7.2 s; the tool's count
        // at each: the last window's end by then, 3 s (2,000), 4 s (4,000), 7 s (0)
        JsonNode v = e.get("broker_view");
        assertEquals(3, v.get("samples").asLong());
        assertEquals(2900, v.get("peak_messages").asLong());
        assertEquals(2100, v.get("max_disagreement_messages").asLong()); // |1,900 - 4,000|
        assertEquals(52.5, v.get("max_disagreement_pct_of_peak").asDouble(), 1e-9); // of the tool's 4,000
        b.write(tmp);
        List<String> dat = Files.readAllLines(tmp.resolve("backlog.dat"));
        assertEquals(List.of("3.500000 2900 2000 NaN", "4.500000 1900 4000 NaN", "7.200000 0 0 NaN"),
                dat.subList(2, 5));
        assertEquals("expected - received", v.get("compared_with").asText());
        assertTrue(v.get("consumer_holds_up_to").isNull()); // B's subscriptions hold an unbounded number
        assertTrue(v.get("max_unconfirmed_messages").isNull()); // the publishers confirm nothing: no floor
        assertTrue(Files.readString(tmp.resolve("backlog.gp")).contains("plot \"backlog.dat\""));
        assertTrue(b.consoleLines().get(0).startsWith("  backlog fill: peak 4,000 messages  drained 2.000 s after "
                + "the resume  at 2,500 msg/s  caught up 2.000 s after the resume (windows' median within the bound; "
                + "poll windows of ~1 s)"), b.consoleLines().get(0));
    }

    /**
     * The catch-up is from each window's median, not its p99: window 6 holding 512 x 300, 300 and 9000 ns has its p99
     * (512 x 9001 - 1) above the bound and its median (the second value, 512 x 301 - 1 = 154 µs) within, so the run is
     * caught up at its start as before (2 s after the resume), where a p99 rule would say never; with 9000, 9000, 300
     * its median is above too: never, null.
     */
    @Test
    void theCatchUpIsFromEachWindowsMedian() {
        assertEquals(2.0, catchUpWithLastWindow(hist(300, 300, 9000)).asDouble());
        assertTrue(catchUpWithLastWindow(hist(9000, 9000, 300)).isNull());
    }

    private static JsonNode catchUpWithLastWindow(byte[] intended) {
        List<ScenarioPhases.Window> w = new ArrayList<>(windows());
        ScenarioPhases.Window x = w.get(6);
        w.set(6, new ScenarioPhases.Window(x.fromMs(), x.toMs(), x.sent(), x.received(), x.latency(), intended,
                x.publishersCpuNs(), x.subscribersCpuNs(), x.confirmedByEnd()));
        ScenarioBacklog b = ScenarioBacklog.of(TIMELINE, Scenario.FAN_IN, 1, w, ScenarioPhases.of(TIMELINE,
                Scenario.FAN_IN, 1, w), null);
        return new ObjectMapper().valueToTree(b.toList()).get(0).get("time_to_catch_up_s");
    }

    /**
     * Fan-out to 2 subscribers whose publishers confirm: each read is compared with [2 x confirmed - received - held,
     * 2 x sent - received] at the last window end before it. Confirmed by each end 900, 2,000, 3,800, 6,000, 6,900,
     * 8,000, 9,000 (sent by then 1,000, 2,000, 4,000, 6,000, 7,000, 8,000, 9,000); deliveries (twice the fan-in's) by
     * each end 1,996, 4,000, 4,000, 4,000, 10,000, 14,000, 18,000. So at the ends: expected - received 4, 0, 4,000,
     * 8,000, 4,000, 2,000, 0, and the floor 2 x confirmed - received -196, 0, 3,600, 8,000, 3,800, 2,000, 0.
     */
    @Test
    void withConfirmsTheReadsAreComparedWithTheBracketFromTheConfirmedFloor() throws Exception {
        long[] confirmed = {900, 2000, 3800, 6000, 6900, 8000, 9000};
        List<ScenarioPhases.Window> w = windows(2, confirmed);
        ScenarioPhases phases = ScenarioPhases.of(TIMELINE, Scenario.FAN_OUT, 2, w);
        // the reads summed at A's times: 2,000 + 1,500 at 3.5 s, 3,900 + 3,800 at 4.5 s, 0 at 7.2 s; A's subscriptions
        // may hold 100, B's 50: 150 off the floor
        ScenarioBacklog b = ScenarioBacklog.of(TIMELINE, Scenario.FAN_OUT, 2, w, phases,
                reads(new long[] {2000, 3900, 0}, 100, new long[] {1500, 3800, 0}, 50));
        JsonNode e = new ObjectMapper().valueToTree(b.toList()).get(0);
        assertEquals(8000, e.get("peak_messages").asLong()); // 12,000 expected less 4,000 delivered by 4 s
        JsonNode v = e.get("broker_view");
        assertEquals("expected of confirmed - received .. expected - received", v.get("compared_with").asText());
        assertEquals(3, v.get("samples").asLong());
        assertEquals(7700, v.get("peak_messages").asLong());
        assertEquals(150, v.get("consumer_holds_up_to").asLong());
        // 3.5 s (window end 3 s): 3,500 in [3,600 - 150, 4,000]; 4.5 s (end 4 s): 7,700 below [8,000 - 150, 8,000] by
        // 150; 7.2 s (end 7 s): 0 in [-150, 0]
        assertEquals(150, v.get("max_disagreement_messages").asLong());
        assertEquals(100.0 * 150 / 8000, v.get("max_disagreement_pct_of_peak").asDouble(), 1e-9);
        assertEquals(400, v.get("max_unconfirmed_messages").asLong()); // 4,000 - 3,600 at 3.5 s; 0 at the others
        b.write(tmp);
        List<String> dat = Files.readAllLines(tmp.resolve("backlog.dat"));
        assertEquals(List.of("3.500000 3500 4000 3600", "4.500000 7700 8000 8000", "7.200000 0 0 0"),
                dat.subList(2, 5));
        assertTrue(dat.get(1).contains("tool_accepted_in_flight: deliveries expected of the measured messages the "
                + "system had confirmed by that window's end less deliveries"), dat.get(1));
    }

    @Test
    void oneWindowWithoutTheConfirmedCountLeavesNoFloor() {
        List<ScenarioPhases.Window> w = new ArrayList<>(windows(1, new long[] {900, 2000, 3800, 6000, 6900, 8000,
                9000}));
        ScenarioPhases.Window x = w.get(3);
        w.set(3, new ScenarioPhases.Window(x.fromMs(), x.toMs(), x.sent(), x.received(), x.latency(), x.intended(),
                x.publishersCpuNs(), x.subscribersCpuNs(), null));
        ScenarioPhases phases = ScenarioPhases.of(TIMELINE, Scenario.FAN_IN, 1, w);
        JsonNode v = new ObjectMapper().valueToTree(ScenarioBacklog.of(TIMELINE, Scenario.FAN_IN, 1, w, phases,
                reads()).toList()).get(0).get("broker_view");
        assertEquals("expected - received", v.get("compared_with").asText());
        assertEquals(2100, v.get("max_disagreement_messages").asLong()); // as without confirms: |1,900 - 4,000|
    }

    @Test
    void anAgentThatCouldNotReadLeavesNoBrokerView() {
        ScenarioBacklog.Reads r = ScenarioBacklog.Reads.add(reads(), ScenarioReport.newBuilder()
                .setBacklogNote("the x driver cannot read the broker's backlog").build());
        ScenarioPhases phases = ScenarioPhases.of(TIMELINE, Scenario.FAN_IN, 1, windows());
        ScenarioBacklog b = ScenarioBacklog.of(TIMELINE, Scenario.FAN_IN, 1, windows(), phases, r);
        JsonNode e = new ObjectMapper().valueToTree(b.toList()).get(0);
        assertTrue(e.get("broker_view").isNull());
        assertEquals(4000, e.get("peak_messages").asLong());
        assertTrue(b.consoleLines().get(1).contains("the x driver cannot read"), b.consoleLines().toString());
        assertNull(ScenarioBacklog.of(Timeline.parse("--phases", "a:2s@1k"), Scenario.FAN_IN, 1, windows(), phases, r));
    }
}
