package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** msgscope batch end to end (issue 18): a workload with a run that fails, and a workload that is wrong. */
class BatchIT {
    @TempDir
    Path tmp;

    @Test
    void everyRunGetsItsFolderAndTheFailedOneFailsTheBatchAfterTheOthersRan() throws Exception {
        Path w = tmp.resolve("w.yaml");
        Files.writeString(w, """
                runs:
                  - name: relay
                    command: run
                    spec: {count: 20000, warmup: 1000, rate: 20000}
                  - name: nobroker
                    command: run
                    spec: {driver: amqp, uri: "amqp://guest:guest@127.0.0.1:1/%2f", count: 1000}
                  - name: again
                    command: run
                    spec: {count: 20000, warmup: 1000, rate: 20000}
                    options: [--seed, "7"]
                """);
        Path out = tmp.resolve("b");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd"), "batch", w.toString(), "--out", out.toString());
        assertEquals(1, p.waitFor(300), () -> TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        JsonNode b = new ObjectMapper().readTree(out.resolve("batch.json").toFile());
        assertEquals("failed", b.get("status").asText());
        assertEquals(3, b.get("runs").size());
        String[] status = {"ok", "failed", "ok"};
        for (int i = 0; i < 3; i++) {
            JsonNode r = b.get("runs").get(i);
            assertEquals(status[i], r.get("status").asText(), r::toString);
            JsonNode s = SummarySchema.assertValid(out.resolve(r.get("folder").asText()).resolve("summary.json"));
            assertEquals(status[i], s.get("status").asText());
            assertEquals(s.get("spec_hash").asText(), r.get("spec_hash").asText());
            assertTrue(Files.size(out.resolve(r.get("folder").asText()).resolve("run.log")) > 0);
        }
        assertTrue(b.get("runs").get(0).get("msg_s").asDouble() > 15_000, b::toString);
        assertTrue(b.get("runs").get(1).get("failure_reason").asText().contains("cannot connect"), b::toString);
        assertEquals(7, SummarySchema.assertValid(out.resolve("again").resolve("summary.json")).get("spec").get("seed")
                .asInt(), "the entry's options reach its run");
        assertTrue(Files.readString(out.resolve("batch.md")).contains("| nobroker | run | failed |"));
        assertEquals(Files.readString(w), Files.readString(out.resolve("workload.yaml")), "the workload kept");
        assertTrue(p.out().contains("[3/3] again"), p.out());
    }

    @Test
    void aWrongEntryIsOneLineAndNothingRuns() throws Exception {
        Path w = tmp.resolve("bad.yaml");
        Files.writeString(w, """
                runs:
                  - command: run
                    spec: {count: 20000}
                  - command: run
                    spec: {count: 20000, rat: 5}
                """);
        Path out = tmp.resolve("never");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd2"), "batch", w.toString(), "--out", out.toString());
        assertEquals(2, p.waitFor(60));
        String err = p.err().trim();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.contains("runs[1].spec") && err.contains("unknown field 'rat'"), err);
        assertFalse(Files.exists(out), "nothing written");
    }
}
