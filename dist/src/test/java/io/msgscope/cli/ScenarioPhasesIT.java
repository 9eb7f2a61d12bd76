package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scenario on load phases through the real CLI (issue 31): 4 publishers share the TOTAL rate of
 * "a:2s@2k, pause:1s@0, b:2s@4k" (500 then 1,000 msg/s each), every message is delivered, each phase's sends and
 * deliveries over its poll windows are within 10 % of the rate it asks, the latency log's intervals carry the phases'
 * tags, the console prints one line per phase, and the summary replays as the same phases. Bad input is refused
 * with one line naming the option.
 */
class ScenarioPhasesIT {
    static final String PHASES = "a:2s@2k, pause:1s@0, b:2s@4k";
    static final double[] ASKED = {2_000, 0, 4_000};

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @CsvSource({"nats, 4222, nats-server, jetstream=false", "mqtt, 1883, Mosquitto, qos=1"})
    void fourPublishersFollowTheTotalRateOfEachPhase(String driver, int port, String broker, String opt)
            throws Exception {
        DriverRunIT.requireBroker(port, broker);
        Path out = tmp.resolve(driver);
        MsgscopeProcess proc = MsgscopeProcess.start(tmp.resolve("wd-" + driver), "scenario", "--driver", driver,
                "--opt", opt, "--scenario", "fan-in", "--publishers", "4", "--phases", PHASES, "--warmup", "1",
                "--out", out.toString());
        JsonNode s = proc.awaitOkSummary(out, 180);
        SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("a:2s@2000, pause:1s@0, b:2s@4000", s.path("spec").path("phases").asText(), s::toString);
        assertTrue(s.path("rate_per_publisher").isNull(), s::toString);
        JsonNode r = s.path("results");
        assertEquals(12_000, r.path("messages_sent").asLong(), s::toString); // 4,000 + 0 + 8,000 scheduled, all sent
        assertEquals(12_000, r.path("messages_received").asLong(), s::toString);
        assertEquals(12_000, r.path("expected_nominal").asLong(), s::toString);
        JsonNode phases = s.path("phases");
        assertEquals(3, phases.size(), s::toString);
        long sentInWindows = 0;
        long receivedInWindows = 0;
        for (int k = 0; k < 3; k++) {
            JsonNode p = phases.get(k);
            assertEquals(k, p.path("index").asInt());
            assertEquals(new long[] {4_000, 0, 8_000}[k], p.path("messages_scheduled").asLong(), p::toString);
            // within 10 % of the asked total; a pause's window may hold the last sends of the phase before (the Go's
            // transit to the publishers shifts their timeline; tens of ms on a loaded box): allow 10 % of that rate
            double slack = ASKED[k] > 0 ? ASKED[k] * 0.1 : ASKED[k - 1] * 0.1;
            assertEquals(ASKED[k], p.path("sent_msg_s").asDouble(), slack, p::toString);
            assertEquals(ASKED[k], p.path("received_msg_s").asDouble(), slack, p::toString);
            assertEquals(p.path("expected_messages").asLong() - p.path("messages_received").asLong(),
                    p.path("messages_lost").asLong(), p::toString);
            sentInWindows += p.path("messages_sent").asLong();
            receivedInWindows += p.path("messages_received").asLong();
            if (ASKED[k] > 0) {
                assertTrue(p.path("latency").path("latency_p50_us").asDouble() > 0, p::toString);
                assertTrue(p.path("latency_from_intended").path("latency_p99_us").isNumber(), p::toString);
            }
        }
        // the windows count each send and delivery once; what the last window misses (the publishers' last ~20 ms,
        // arrivals during the in-flight wait) is outside every phase
        assertTrue(sentInWindows <= 12_000 && sentInWindows >= 12_000 * 0.97, "sent in windows " + sentInWindows);
        assertTrue(receivedInWindows <= 12_000 && receivedInWindows >= 12_000 * 0.97, "received " + receivedInWindows);
        List<String> tags = new ArrayList<>();
        for (Histogram h : Hlog.intervals(out.resolve("latency.hlog"))) {
            tags.add(h.getTag());
        }
        assertTrue(tags.get(0).equals("phase0-a") && tags.contains("phase1-pause") && tags.contains("phase2-b"),
                tags::toString);
        assertTrue(Files.readString(out.resolve("timeseries.gp")).contains("set object rect from first 0, graph 0 "
                + "to first 2, graph 1"));
        String console = proc.out();
        assertTrue(console.contains("  phase 0 a ") && console.contains("  phase 1 pause ")
                && console.contains("  phase 2 b "), console);

        // replayed from its summary: the same phases
        Path again = tmp.resolve(driver + "-again");
        MsgscopeProcess replay = MsgscopeProcess.start(tmp.resolve("wd-again-" + driver), "scenario", "--spec",
                out.resolve("summary.json").toString(), "--warmup", "0.5", "--out", again.toString());
        JsonNode t = replay.awaitOkSummary(again, 180);
        assertEquals(s.path("spec").path("phases"), t.path("spec").path("phases"));
        assertEquals(12_000, t.path("results").path("messages_received").asLong(), t::toString);
    }

    @Test
    void badPhasesAndPhasesBesideRateOrDurationAreRefusedWithOneLine() throws Exception {
        String[][] bad = {
                {"--phases", "a:2s@1k", "--rate", "100"},
                {"--phases", "a:2s@1k", "--duration", "5"},
                {"--phases", "a:500ms@1k"},
                {"--phases", "a:2s@5m"},
                {"--phases", "ramp:2s@5k..0"},
                {"--phases", "a:2s@1k, pause:1s@0"}};
        String[] named = {"--rate", "--duration", "--phases", "--phases", "--phases", "--phases"};
        for (int i = 0; i < bad.length; i++) {
            List<String> args = new ArrayList<>(List.of("scenario", "--publishers", "4",
                    "--out", tmp.resolve("bad" + i).toString()));
            args.addAll(List.of(bad[i]));
            MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd-bad" + i), args.toArray(String[]::new));
            String line = Usage.assertUsageError(p, named[i]);
            assertTrue(line.startsWith("msgscope scenario: " + named[i]) || line.contains(named[i] + ":"), line);
            assertTrue(!Files.exists(tmp.resolve("bad" + i)), "a usage error writes no results folder");
        }
    }
}
