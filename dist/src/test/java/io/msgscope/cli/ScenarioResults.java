package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;

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
}
