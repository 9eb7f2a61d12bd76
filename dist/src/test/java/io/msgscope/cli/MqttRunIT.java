package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/** A trace run through the real CLI with the mqtt driver: every message accounted for, trace.dat complete. */
class MqttRunIT {
    @TempDir
    Path tmp;

    @Test
    void rateRunOf20kMessagesIsAccountedFor() throws Exception {
        requireBroker(1883, "Mosquitto");
        Path out = tmp.resolve("run");
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--driver", "mqtt", "--uri", "tcp://127.0.0.1:1883", "--opt", "qos=1", "--count", "20000",
                "--warmup", "2000", "--rate", "5000", "--out", out.toString());
        int rc = p.waitFor(180);
        assertEquals(0, rc, () -> "exit code; stdout: " + TraceRunIT.safe(p::out) + " stderr: " + TraceRunIT.safe(p::err));
        JsonNode s = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertEquals("ok", s.get("status").asText(), s::toString);
        assertEquals("mqtt", s.get("spec").get("driver").asText());
        JsonNode c = s.get("counters");
        assertEquals(20_000, c.get("messages_sent").asLong());
        assertEquals(20_000, c.get("messages_received").asLong());
        assertEquals(0, c.get("messages_lost").asLong());
        assertEquals(0, c.get("errors").asLong(), c::toString);
        assertEquals(20_000, c.get("messages_acked").asLong(), c::toString);
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

    static void requireBroker(int port, String name) {
        boolean up;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            up = true;
        } catch (IOException e) {
            up = false;
        }
        if (!up && "true".equals(System.getenv("CI"))) {
            fail(name + " must listen on 127.0.0.1:" + port + " under CI=true");
        }
        Assumptions.assumeTrue(up, name + " is not listening on 127.0.0.1:" + port + ": end-to-end run skipped");
    }
}
