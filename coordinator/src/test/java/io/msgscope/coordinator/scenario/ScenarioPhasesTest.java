package io.msgscope.coordinator.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.core.LatencyRange;
import io.msgscope.core.SpecException;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.core.timeline.Timeline;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scenario's per-phase figures (issue 31), every one computed here by hand from the poll windows' raw counts and
 * latencies. The timeline "a:2s@2k, pause:1s@0, b:2s@4k" (TOTAL rates over the 4 publishers) schedules 4,000 + 0 +
 * 8,000 messages; five windows from the measurement's start, [0, 1], [1, 2], [2, 3], [3, 4], [4, 5.1] s, have their
 * midpoints at 0.5 and 1.5 s (phase a), 2.5 s (the pause), 3.5 and 4.55 s (b; the last window is clipped to the
 * timeline's end, 5 s, for b's rates).
 *
 * <p>Latencies are multiples of 512 ns, the histogram's unit below 1,048,576 ns (1 µs lowest, 3 digits), so that a
 * value {@code 512 k} is recorded exactly: min reports {@code 512 k}, a percentile (nearest rank) and max the step's
 * highest value {@code 512 (k + 1) - 1}, the mean each step's middle {@code 512 k + 256}.
 */
class ScenarioPhasesTest {
    private static final Timeline TIMELINE = Timeline.parse("--phases", "a:2s@2k, pause:1s@0, b:2s@4k");
    private static final long ORIGIN_MS = 1_700_000_000_000L;

    private static byte[] hist(long... steps) {
        Histogram h = LatencyRange.histogram();
        for (long k : steps) {
            h.recordValue(512 * k);
        }
        return ScenarioLinks.interval(0, 0, null, h).histogram();
    }

    private static ScenarioPhases.Window window(long fromMs, long toMs, long sent, long received, byte[] latency,
                                                byte[] intended) {
        return new ScenarioPhases.Window(ORIGIN_MS + fromMs, ORIGIN_MS + toMs, sent, received, latency, intended);
    }

    static List<ScenarioPhases.Window> windows() {
        List<ScenarioPhases.Window> w = new ArrayList<>();
        w.add(window(0, 1_000, 2_000, 1_995, hist(100), hist(400)));
        w.add(window(1_000, 2_000, 1_990, 1_990, hist(200, 300), hist(500)));
        w.add(window(2_000, 3_000, 10, 15, hist(50), hist()));
        w.add(window(3_000, 4_000, 4_000, 3_990, hist(10), hist(20)));
        w.add(window(4_000, 5_100, 4_000, 4_005, hist(), hist()));
        return w;
    }

    @Test
    void eachWindowBelongsToThePhaseOfItsMidpoint() {
        assertArrayEquals(new int[] {0, 0, 1, 2, 2}, ScenarioPhases.phaseOfWindows(TIMELINE, windows()));
        // a phase shorter than a window gets none: x [0, 1.2) s, y [1.2, 1.5), z [1.5, 2); midpoints 0.5 and 1.5 s
        Timeline t = Timeline.parse("--phases", "x:1200ms@1k, y:300ms@2k, z:500ms@1k");
        List<ScenarioPhases.Window> two = List.of(window(0, 1_000, 1_000, 1_000, hist(1), hist(1)),
                window(1_000, 2_000, 1_100, 1_100, hist(2), hist(2)));
        assertArrayEquals(new int[] {0, 2}, ScenarioPhases.phaseOfWindows(t, two));
        ScenarioPhases.Phase y = ScenarioPhases.of(t, Scenario.FAN_IN, 1, two).phases().get(1);
        assertEquals(0, y.windows());
        assertNull(y.sent());
        assertNull(y.received());
        assertNull(y.lost());
        assertNull(y.sentMsgPerS());
        assertNull(y.latency().p99Us());
        assertEquals(600, y.scheduled()); // 1,200 scheduled before it, 1,800 by its end
    }

    @Test
    void countsRatesAndLatencyOfEachPhaseByHand() {
        List<ScenarioPhases.Phase> p = ScenarioPhases.of(TIMELINE, Scenario.FAN_IN, 1, windows()).phases();
        ScenarioPhases.Phase a = p.get(0);
        assertEquals(0.0, a.startS());
        assertEquals(2.0, a.endS());
        assertEquals(4_000, a.scheduled());
        assertEquals(2, a.windows());
        assertEquals(2.0, a.spanS());
        assertEquals(2_000 + 1_990, a.sent());
        assertEquals(1_995 + 1_990, a.received());
        assertEquals(3_990, a.expected());
        assertEquals(5, a.lost());
        assertEquals(3_990 / 2.0, a.sentMsgPerS());
        assertEquals(3_985 / 2.0, a.receivedMsgPerS());
        // latency: steps 100, 200, 300 (N = 3)
        assertEquals(51.2, a.latency().minUs());
        assertEquals((301 * 512 - 1) / 1e3, a.latency().maxUs());
        assertEquals((100 + 200 + 300) * 512 / 3.0 / 1e3 + 0.256, a.latency().meanUs(), 1e-9);
        assertEquals((201 * 512 - 1) / 1e3, a.latency().p50Us()); // rank ceil(0.5 x 3) = 2
        assertEquals((301 * 512 - 1) / 1e3, a.latency().p95Us()); // rank 3
        assertEquals((301 * 512 - 1) / 1e3, a.latency().p99Us());
        // from the intended time: steps 400, 500 (N = 2)
        assertEquals(204.8, a.intended().minUs());
        assertEquals((401 * 512 - 1) / 1e3, a.intended().p50Us()); // rank 1
        assertEquals((501 * 512 - 1) / 1e3, a.intended().p99Us()); // rank 2
        assertEquals((400 + 500) * 512 / 2.0 / 1e3 + 0.256, a.intended().meanUs(), 1e-9);

        ScenarioPhases.Phase pause = p.get(1);
        assertEquals(0, pause.scheduled());
        assertEquals(10, pause.sent());
        assertEquals(15, pause.received());
        assertEquals(-5, pause.lost()); // the phase before's last messages arrive in the pause's window
        assertEquals(10.0, pause.sentMsgPerS());
        assertEquals(15.0, pause.receivedMsgPerS());
        assertEquals(25.6, pause.latency().minUs());
        assertNull(pause.intended().p99Us(), "nothing recorded from the intended time: unknown, not 0");

        ScenarioPhases.Phase b = p.get(2);
        assertEquals(3.0, b.startS());
        assertEquals(5.0, b.endS());
        assertEquals(8_000, b.scheduled());
        assertEquals(2, b.windows());
        assertEquals(2.0, b.spanS(), "1 s + the last window's 1.1 s clipped at the timeline's 5 s");
        assertEquals(8_000, b.sent());
        assertEquals(7_995, b.received());
        assertEquals(4_000.0, b.sentMsgPerS());
        assertEquals(3_997.5, b.receivedMsgPerS());
        assertEquals((11 * 512 - 1) / 1e3, b.latency().p99Us());
        assertEquals((21 * 512 - 1) / 1e3, b.intended().p99Us());
    }

    @Test
    void fanOutExpectsEachSendOncePerSubscriber() {
        ScenarioPhases.Phase a = ScenarioPhases.of(TIMELINE, Scenario.FAN_OUT, 3, windows()).phases().get(0);
        assertEquals(3 * 3_990, a.expected());
        assertEquals(3 * 3_990 - 3_985, a.lost());
    }

    /** The summary, the hlog's tags, the console and the plot of a scenario on the phases, from a fixed outcome. */
    @Test
    void theSummaryReportsThePhasesAndTheSpecLoadsBackWithThem() throws Exception {
        ScenarioConfig cfg = ScenarioGoldenTest.goldenConfig().onPhases(TIMELINE);
        assertEquals(1_000.0, cfg.rate(), "warm-up: the first rate, 2,000 msg/s, over the 2 publishers");
        assertEquals(5_000, cfg.durationMs());
        ScenarioCollector o = ScenarioGoldenTest.goldenOutcome();
        o.intervals.clear();
        for (ScenarioPhases.Window w : windows()) {
            o.intervals.add(new ScenarioResult.Interval(w.fromMs(), w.toMs(), null, w.latency()));
            o.windows.add(w);
        }
        o.intervals.add(new ScenarioResult.Interval(ORIGIN_MS + 5_100, ORIGIN_MS + 5_300, "drain", hist(7)));
        o.publisherCounters.put("messages_sent", 12_000L);
        o.subscriberCounters.put("messages_received", 12_000L);
        ScenarioResult r = ScenarioSummary.build(cfg, o.outcome(), "QoS 1", true);
        JsonNode s = new ObjectMapper().readTree(ScenarioWriters.json(r));
        assertEquals("a:2s@2000, pause:1s@0, b:2s@4000", s.path("spec").path("phases").asText());
        assertTrue(s.path("spec").path("rate").isMissingNode());
        assertTrue(s.path("spec").path("duration_ms").isMissingNode());
        assertTrue(s.path("rate_per_publisher").isNull());
        assertEquals(5.0, s.path("duration_s").asDouble());
        assertEquals(12_000, s.path("results").path("expected_nominal").asLong());
        assertEquals("ok", s.path("status").asText());
        JsonNode phases = s.path("phases");
        assertEquals(3, phases.size());
        JsonNode a = phases.get(0);
        assertEquals(0, a.path("index").asInt());
        assertEquals("a", a.path("name").asText());
        assertEquals("constant", a.path("kind").asText());
        assertEquals("pause", phases.get(1).path("kind").asText());
        assertEquals(2000.0, a.path("rate_asked_from_msg_s").asDouble());
        assertEquals(3_990, a.path("messages_sent").asLong());
        assertEquals(1_995.0, a.path("sent_msg_s").asDouble());
        assertEquals(1_992.5, a.path("received_msg_s").asDouble());
        assertEquals((201 * 512 - 1) / 1e3, a.path("latency").path("latency_p50_us").asDouble());
        assertEquals((501 * 512 - 1) / 1e3, a.path("latency_from_intended").path("latency_p99_us").asDouble());
        assertTrue(phases.get(1).path("latency_from_intended").path("latency_p99_us").isNull());
        assertEquals(List.of("phase0-a", "phase0-a", "phase1-pause", "phase2-b", "phase2-b", "drain"),
                r.intervals().stream().map(ScenarioResult.Interval::tag).toList());
        assertEquals("  phase 0 a          0.000-2.000 s  asked 2,000 msg/s  sent 1,995  received 1,993 msg/s  "
                + "p99 from intended 256.5 us", r.phases().consoleLines().get(0));
        assertEquals("  phase 1 pause      2.000-3.000 s  asked pause  sent 10  received 15 msg/s  "
                + "p99 from intended -", r.phases().consoleLines().get(1));
        String gp = ScenarioPlot.script(r);
        assertTrue(gp.contains("set object rect from first 0, graph 0 to first 2, graph 1"), gp);
        assertTrue(gp.contains("set object rect from first 3, graph 0 to first 5, graph 1"), gp);
        assertTrue(gp.contains("set label \"pause (pause)\" at first 2,"), gp);
        assertTrue(gp.indexOf("set object") < gp.indexOf("\nplot "), "the bands before the plot");
        // summary.csv and summary.md keep their one row; the phases are summary.json's
        assertTrue(ScenarioWriters.csv(r).lines().count() == 2);
    }

    @Test
    void badPhasesForAScenarioNameTheOption() {
        SpecException tooFast = assertThrows(SpecException.class,
                () -> ScenarioPhases.check(Timeline.parse("--phases", "a:2s@5m"), 4));
        assertEquals("--phases", tooFast.option());
        assertTrue(tooFast.getMessage().contains("1000000 msg/s for each of the 4 publishers"), tooFast.getMessage());
        SpecException tooShort = assertThrows(SpecException.class,
                () -> ScenarioPhases.check(Timeline.parse("--phases", "a:500ms@1k"), 4));
        assertTrue(tooShort.getMessage().contains("between 1 and 86400 s"), tooShort.getMessage());
        // backlogs (issue 31 item 3): allowed when the driver can pause its subscribers for these options
        io.msgscope.core.driver.Driver cannot = driver("x", false);
        for (String backlog : new String[] {"a:1s@1k, fill:2s@1k/paused, d:1s@1k", "a:1s@1k, fill:2kmsg@1k/paused, d:1s@0"}) {
            Timeline t = Timeline.parse("--phases", backlog);
            ScenarioPhases.check(t, 4);
            SpecException paused = assertThrows(SpecException.class,
                    () -> ScenarioPhases.checkBacklog(t, cannot, java.util.Map.of()));
            assertEquals("--phases", paused.option());
            assertTrue(paused.getMessage().contains("/paused cannot pause the subscribers with the x driver: it has "
                    + "no way to stop consuming"), paused.getMessage());
        }
        ScenarioPhases.checkBacklog(Timeline.parse("--phases", "a:1s@1k"), cannot, java.util.Map.of()); // no backlog
        ScenarioPhases.check(Timeline.parse("--phases", "a:1s@4m"), 4); // 1,000,000 each: allowed
        // word phases (issue 31): until drained, and until the broker holds N where the driver reads its count
        ScenarioPhases.check(Timeline.parse("--phases", "f:1s@1k/paused, d:10s@0/drained, b:1s@1k"), 4);
        Timeline depth = Timeline.parse("--phases", "a:1s@1k, f:10s@1k/paused/backlog=5k, b:1s@1k");
        ScenarioPhases.check(depth, 4);
        io.msgscope.core.driver.Driver pausesButCannotRead = driver("y", true);
        ScenarioPhases.checkBacklog(Timeline.parse("--phases", "f:1s@1k/paused, d:10s@0/drained, b:1s@1k"),
                pausesButCannotRead, java.util.Map.of()); // a drain needs no read of the broker's count
        SpecException unread = assertThrows(SpecException.class,
                () -> ScenarioPhases.checkBacklog(depth, pausesButCannotRead, java.util.Map.of()));
        assertEquals("--phases", unread.option());
        assertTrue(unread.getMessage().contains("phase 'f' ends on the broker's count of the backlog, which the y "
                + "driver cannot read: the y driver does not read the broker's count"), unread.getMessage());
        assertEquals(250.0, ScenarioPhases.warmupRate(Timeline.parse("--phases", "p:1s@0, r:2s@0..1k"), 4));
    }

    /** A scenario's word phases as run (issue 31): their span, how they ended, the console's line for each. */
    @Test
    void wordPhasesAreWrittenAsTheyRan() {
        Timeline asked = Timeline.parse("--phases", "base:1s@1k, fill:60s@10k/paused/backlog=20k, drain:10s@0/drained, "
                + "after:1s@1k");
        Timeline t = asked.asRun(List.of(new Timeline.WordEnd(1, 2_050_000_000L, "backlog", null, 21_500L, 20_480L),
                new Timeline.WordEnd(2, 1_250_000_000L, "drained", 0L)));
        ScenarioPhases p = ScenarioPhases.of(t, io.msgscope.core.scenario.Scenario.STRAIGHT_RUN, 2, List.of());
        List<java.util.Map<String, Object>> json = p.toList();
        assertEquals(3.05, json.get(1).get("end_s"));
        assertEquals(4.3, (Double) json.get(2).get("end_s"), 1e-9);
        assertEquals(java.util.Map.of("broker_messages_target", 20_000L, "at_most_s", 60.0, "ended_by", "backlog",
                "broker_messages", 20_480L), json.get(1).get("until_backlog"));
        assertEquals(21_500L - 1_000L, json.get(1).get("messages_scheduled"));
        java.util.Map<String, Object> drained = new java.util.HashMap<>();
        drained.put("at_most_s", 10.0);
        drained.put("ended_by", "drained");
        drained.put("messages_missing", 0L);
        assertEquals(drained, json.get(2).get("until_drained"));
        assertEquals(null, json.get(0).get("until_drained"));
        List<String> lines = p.consoleLines();
        assertTrue(lines.contains("    phase 1 fill: the broker held 20,480 (asked 20,000) after 2.050 s (at most 60 s)"),
                String.join("\n", lines));
        assertTrue(lines.contains("    phase 2 drain: drained after 1.250 s (at most 10 s)"), String.join("\n", lines));
    }

    /** A driver named {@code name} that opens nothing: it pauses its subscribers or not, and reads no broker's count. */
    private static io.msgscope.core.driver.Driver driver(String name, boolean pauses) {
        return new io.msgscope.core.driver.Driver() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String whyConsumersCannotPause(java.util.Map<String, String> options) {
                return pauses ? null : io.msgscope.core.driver.Driver.super.whyConsumersCannotPause(options);
            }

            @Override
            public io.msgscope.core.driver.Subscriber openSubscriber(io.msgscope.core.driver.DriverSpec spec,
                                                                     io.msgscope.core.driver.ClientContext c) {
                throw new UnsupportedOperationException();
            }

            @Override
            public io.msgscope.core.driver.Publisher openPublisher(io.msgscope.core.driver.DriverSpec spec,
                                                                   io.msgscope.core.driver.ClientContext c) {
                throw new UnsupportedOperationException();
            }
        };
    }
}
