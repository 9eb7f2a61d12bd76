package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.file.Path;

/** What every scenario run must show, whatever the driver: every message sent delivered as the scenario says. */
final class ScenarioResults {
    private ScenarioResults() {
    }

    /**
     * Checks a scenario's results: each publisher sent {@code rate} messages a second for {@code seconds};
     * fan-out delivers each one to every subscriber, the others once; all arrived, none in error.
     * Returns the number sent.
     */
    static long assertEveryMessageDelivered(JsonNode summary, String scenario, int publishers, int subscribers,
                                            int rate, int seconds) {
        org.junit.jupiter.api.Assertions.assertEquals(java.util.Set.of(), SummarySchema.problems(summary),
                "summary.json against docs/summary.schema.json");
        JsonNode r = summary.get("results");
        long sent = (long) publishers * rate * seconds;
        long expected = scenario.equals("fan-out") ? sent * subscribers : sent;
        assertEquals(sent, r.get("messages_sent").asLong(), summary::toString);
        assertEquals(expected, r.get("expected_messages").asLong(), summary::toString);
        assertEquals(expected, r.get("messages_received").asLong(), summary::toString);
        assertEquals(1.0, r.get("delivery_rate").asDouble(), summary::toString);
        assertEquals(0, r.get("errors").asLong(), summary::toString);
        return sent;
    }

    /**
     * A short scenario through the real jar ({@code pubs} publishers at 200 msg/s each for 2 s after 1 s of warm-up,
     * {@code subs} subscribers, {@code options} as {@code --opt key=value} each), awaited for 120 s at most: it must
     * end ok with every message delivered ({@link #assertEveryMessageDelivered}) and its console must name
     * {@code label} (the driver's pattern or QoS). Returns summary.json.
     */
    static JsonNode runShortScenario(Path tmp, String driver, java.util.List<String> options, String scenario,
                                     int pubs, int subs, String label) throws Exception {
        Path out = tmp.resolve(scenario);
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("scenario", "--driver", driver));
        for (String o : options) {
            args.addAll(java.util.List.of("--opt", o));
        }
        args.addAll(java.util.List.of("--scenario", scenario, "--publishers", "" + pubs, "--subscribers", "" + subs,
                "--rate", "200", "--duration", "2", "--warmup", "1", "--out", out.toString()));
        MsgscopeProcess proc = MsgscopeProcess.start(tmp.resolve("wd-" + scenario), args.toArray(String[]::new));
        JsonNode j = proc.awaitOkSummary(out, 120);
        assertEveryMessageDelivered(j, scenario, pubs, subs, 200, 2);
        assertTrue(proc.out().contains(label), () -> "'" + label + "' not on the console: " + TraceRunIT.safe(proc::out));
        return j;
    }
}
