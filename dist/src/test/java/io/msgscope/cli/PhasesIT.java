package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run on a timeline of load phases through the real CLI (issue 31): each phase's messages are sent in its own span
 * at the rate it asks, every one is accounted for, each boundary's lag is measured, summary.json and
 * trace.dat say which phase each message belongs to, and a summary replays as the same phases.
 */
class PhasesIT {
    /** 2 s at 2,000 msg/s, a 1 s pause, 2 s at 5,000, a ramp 5,000 -> 10,000 over 2 s: 4,000 + 10,000 + 15,000. */
    static final String PHASES = "a:2s@2k, pause:1s@0, b:2s@5k, r:2s@5k..10k";
    static final long[] SCHEDULED = {4_000, 0, 10_000, 15_000};
    static final double[] ASKED = {2_000, 0, 5_000, 7_500};

    @TempDir
    Path tmp;

    @Test
    void theRelayFollowsEachPhaseAndEveryMessageIsAccountedFor() throws Exception {
        Path out = tmp.resolve("run");
        JsonNode s = run(out, "run", "--phases", PHASES, "--warmup", "5000", "--out", out.toString());
        assertEquals("ok", s.get("status").asText(), s::toString);
        assertEquals(PHASES.replace("2k", "2000").replace("5k", "5000").replace("10k", "10000"),
                s.get("spec").get("phases").asText());
        assertEquals(29_000, s.get("spec").get("count").asLong());
        assertEquals(29_000, s.get("counters").get("messages_received").asLong());
        JsonNode phases = s.get("phases");
        assertEquals(4, phases.size());
        for (int k = 0; k < 4; k++) {
            JsonNode p = phases.get(k);
            assertEquals(k, p.get("index").asInt());
            assertEquals(SCHEDULED[k], p.get("messages_scheduled").asLong(), p::toString);
            assertEquals(SCHEDULED[k], p.get("messages_received").asLong(), p::toString);
            assertEquals(0, p.get("messages_lost").asLong(), p::toString);
            // the sends in the phase's span against the rate it asks: within 10 % on a shared box (seen within 0.1 %).
            // A pause schedules nothing, but the figure counts sends by when they left: a loaded box may send the
            // previous phase's last few late, inside the pause (seen once in CI: 1 msg/s), so allow 1 % of that rate
            double slack = ASKED[k] > 0 ? ASKED[k] * 0.1 : ASKED[k - 1] * 0.01;
            assertEquals(ASKED[k], p.get("sent_in_span_msg_s").asDouble(), slack, p::toString);
            if (SCHEDULED[k] > 0) {
                // issue 31's target, a boundary moving the rate within 10 ms, is measured by benchmarks/scripts/
                // phases.sh; here only that the lag is measured and sane on a loaded box
                assertTrue(p.get("first_send_lag_us").asDouble() < 200_000, p::toString);
                assertTrue(p.get("latency").get("latency_p50_us").asDouble() > 0, p::toString);
                assertTrue(p.get("latency_from_intended").get("latency_p99_us").asDouble()
                        >= p.get("latency").get("latency_p99_us").asDouble() * 0.999, p::toString);
            } else {
                assertTrue(p.get("first_send_lag_us").isNull(), p::toString);
                assertTrue(p.get("latency").get("latency_p50_us").isNull(), "no message: null, not 0");
            }
        }
        assertEquals("pause", phases.get(1).get("kind").asText());
        assertEquals("ramp", phases.get(3).get("kind").asText());
        assertEquals(Map.of(0, 4_000L, 2, 10_000L, 3, 15_000L), phaseColumn(out.resolve("trace.dat")));

        // replayed from its summary: the same phases, the count and rate left to them
        Path again = tmp.resolve("again");
        JsonNode r = run(again, "run", "--spec", out.resolve("summary.json").toString(), "--warmup", "1000",
                "--out", again.toString());
        assertEquals(s.get("spec").get("phases"), r.get("spec").get("phases"));
        assertEquals(29_000, r.get("counters").get("messages_received").asLong());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "amqp, amqp://guest:guest@127.0.0.1:5672/%2f, 5672, RabbitMQ",
            "mqtt, tcp://127.0.0.1:1883, 1883, Mosquitto",
            "nats, nats://127.0.0.1:4222, 4222, nats-server"})
    void eachBrokerDriverFollowsThePhases(String driver, String uri, int port, String broker) throws Exception {
        DriverRunIT.requireBroker(port, broker);
        Path out = tmp.resolve(driver);
        JsonNode s = run(out, "run", "--driver", driver, "--uri", uri, "--phases", "a:1s@1k, pause:500ms@0, b:1s@3k",
                "--warmup", "2000", "--out", out.toString());
        assertEquals("ok", s.get("status").asText(), s::toString);
        JsonNode phases = s.get("phases");
        long[] scheduled = {1_000, 0, 3_000};
        for (int k = 0; k < 3; k++) {
            JsonNode p = phases.get(k);
            assertEquals(scheduled[k], p.get("messages_received").asLong(), p::toString);
            // a pause may see the previous phase's last sends leave late (see above): 1 % of that rate
            double slack = scheduled[k] > 0 ? scheduled[k] * 0.1 : scheduled[k - 1] * 0.01 * 2;
            assertEquals(scheduled[k], p.get("sent_in_span_msg_s").asDouble(), slack, p::toString);
        }
    }

    @Test
    void badPhasesAndPhasesBesideCountOrRateAreRefusedWithOneLine() throws Exception {
        String[][] bad = {
                {"--phases", "ramp:10s@5k..0"},
                {"--phases", "steady:30s@5k, pause:5s@0"},
                {"--phases", "steady:30s"},
                {"--phases", "a:1s@1k", "--count", "500"},
                {"--phases", "a:1s@1k", "--rate", "100"}};
        String[] named = {"--phases", "--phases", "--phases", "--count", "--rate"};
        for (int i = 0; i < bad.length; i++) {
            String err = refused(tmp, "bad" + i, bad[i]);
            assertTrue(err.startsWith(named[i] + ": ") || err.contains("\n" + named[i] + ": ")
                    || err.contains(named[i] + ":"), err);
        }
    }

    /** {@code run --out TMP/NAME ARGS}, which must exit 2 and write no results folder: its stderr, stripped. */
    static String refused(Path tmp, String name, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("run", "--out", tmp.resolve(name).toString()));
        all.addAll(List.of(args));
        MsgscopeProcess p = MsgscopeProcess.start(tmp, all.toArray(String[]::new));
        assertEquals(2, p.waitFor(60), () -> TraceRunIT.safe(p::err));
        assertTrue(!Files.exists(tmp.resolve(name)), "a usage error writes no results folder");
        return p.err().strip();
    }

    private JsonNode run(Path out, String... args) throws Exception {
        return run(tmp, out, args);
    }

    /** A run that must succeed: its summary.json, checked against the schema. */
    static JsonNode run(Path tmp, Path out, String... args) throws Exception {
        MsgscopeProcess p = MsgscopeProcess.start(tmp, args);
        int rc = p.waitFor(180);
        assertEquals(0, rc, () -> "exit code; stdout: " + TraceRunIT.safe(p::out) + " stderr: " + TraceRunIT.safe(p::err));
        return SummarySchema.assertValid(out.resolve("summary.json"));
    }

    /** trace.dat's last column: messages per phase. */
    static Map<Integer, Long> phaseColumn(Path file) throws Exception {
        Map<Integer, Long> n = new TreeMap<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            String header = r.readLine();
            assertTrue(header.endsWith(" phase"), header);
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.startsWith("#")) {
                    n.merge(Integer.parseInt(line.substring(line.lastIndexOf(' ') + 1)), 1L, Long::sum);
                }
            }
        }
        return n;
    }
}
