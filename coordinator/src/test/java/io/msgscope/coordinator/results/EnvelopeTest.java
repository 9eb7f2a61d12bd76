package io.msgscope.coordinator.results;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EnvelopeTest {
    private static final ObjectMapper OM = new ObjectMapper();

    private static Envelope failed() {
        return new Envelope("1.2.3", "throughput", "run-7", "amqp", "2026-01-02T03:04:05Z", "1 of 10 lost",
                "measurement", List.of("cores shared"), Map.of("size", 64), "ab".repeat(32), Map.of("host", "h"));
    }

    @Test
    void writesTheFieldsInOneOrderForEveryMode() {
        assertEquals(List.of("tool", "mode", "run_id", "driver", "started_at", "status", "failure_reason",
                "failed_during", "warnings", "spec", "spec_hash", "environment"), List.copyOf(failed().toMap().keySet()));
        assertEquals(List.of("name", "version"), List.copyOf(Envelope.tool("9").keySet()));
        assertEquals("failed", failed().toMap().get("status"));
    }

    @Test
    void readsBackWhatItWrote() {
        JsonNode json = OM.valueToTree(failed().toMap());
        assertEquals(failed(), Envelope.read(json));
    }

    @Test
    void anOkRunHasNoPhaseAndOfDropsOne() {
        assertThrows(IllegalArgumentException.class, () -> new Envelope("1", "trace", "r", "tcp", "t", null, "set-up",
                List.of(), Map.of(), "h", Map.of()));
        Envelope ok = Envelope.of("trace", "r", "tcp", "t", null, "analysis", List.of(), Map.of(), "h", Map.of());
        assertNull(ok.failedDuring());
        assertEquals("ok", ok.status());
        assertFalse(ok.failed());
    }

    @Test
    void anInterruptedRunSaysSoAndReadsBack() {
        Envelope e = Envelope.of("trace", "r", "tcp", "t", "interrupted by SIGINT after 5 of 10 measured messages were sent",
                "measurement", List.of(), Map.of(), "h", Map.of(), true);
        assertEquals("interrupted", e.toMap().get("status"));
        assertEquals(e, Envelope.read(OM.valueToTree(e.toMap())));
        assertThrows(IllegalArgumentException.class, () -> Envelope.of("trace", "r", "tcp", "t", null, null, List.of(),
                Map.of(), "h", Map.of(), true));
    }

    @Test
    void isImmutable() {
        Envelope e = failed();
        assertThrows(UnsupportedOperationException.class, () -> e.warnings().add("x"));
        assertThrows(UnsupportedOperationException.class, () -> e.spec().put("x", 1));
        e.toMap().put("mode", "changed"); // a copy
        assertEquals("throughput", e.mode());
    }

    @Test
    void readsTheHeadersEarlierVersionsWrote() throws Exception {
        // a scenario summary before the common envelope: tool as a string, no started_at, no warnings
        Envelope scenario = Envelope.read(OM.readTree("""
                {"tool": "msgscope 0.9.1", "mode": "scenario", "scenario": "fan-in", "driver": "mqtt", "run_id": "5eed",
                 "spec_hash": "x", "spec": {"scenario": "fan-in"}, "environment": {}, "status": "ok",
                 "failure_reason": null, "failed_during": null}"""));
        assertEquals("0.9.1", scenario.toolVersion());
        assertEquals("scenario", scenario.mode());
        assertNull(scenario.startedAt());
        assertTrue(scenario.warnings().isEmpty());
        assertEquals(Map.of("scenario", "fan-in"), scenario.spec());
        // a throughput summary before it: no run_id, no failed_during
        Envelope throughput = Envelope.read(OM.readTree("""
                {"tool": {"name": "msgscope", "version": "0.9.1"}, "mode": "throughput", "driver": "tcp",
                 "status": "failed", "failure_reason": "no throughput sample at F = 1", "warnings": ["w"]}"""));
        assertNull(throughput.runId());
        assertNull(throughput.failedDuring());
        assertEquals("failed", throughput.status());
        assertEquals(List.of("w"), throughput.warnings());
        // a failed run whose reason is missing is still failed
        Envelope noReason = Envelope.read(OM.readTree("{\"status\": \"failed\"}"));
        assertEquals("failed", noReason.status());
        assertEquals("trace", noReason.mode()); // the first release wrote no mode: it had only trace runs
    }
}
