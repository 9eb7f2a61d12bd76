package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A trace run through the real CLI with the zmq driver: every message accounted for, trace.dat complete. */
class ZmqRunIT {
    @TempDir
    Path tmp;

    @Test
    void rateRunOf20kMessagesIsAccountedFor() throws Exception {
        
        Path out = tmp.resolve("run");
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--driver", "zmq", "--count", "20000",
                "--warmup", "2000", "--rate", "5000", "--out", out.toString());
        int rc = p.waitFor(180);
        assertEquals(0, rc, () -> "exit code; stdout: " + TraceRunIT.safe(p::out) + " stderr: " + TraceRunIT.safe(p::err));
        JsonNode s = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertEquals("ok", s.get("status").asText(), s::toString);
        assertEquals("zmq", s.get("spec").get("driver").asText());
        JsonNode c = s.get("counters");
        assertEquals(20_000, c.get("messages_sent").asLong());
        assertEquals(20_000, c.get("messages_received").asLong());
        assertEquals(0, c.get("messages_lost").asLong());
        assertEquals(0, c.get("errors").asLong(), c::toString);
        
        assertEquals(20_000, dataRows(out.resolve("trace.dat")));
    }

    static long dataRows(Path file) throws IOException {
        long rows = 0;
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    rows++;
                }
            }
        }
        return rows;
    }
}
