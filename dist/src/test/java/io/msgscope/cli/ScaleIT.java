package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13 in the normal suite, short: 2,000 connections per driver (1,000 publishers + 1,000
 * subscribers, straight-run, 2 msg/s each for 3 s) on the shared brokers, every message delivered, and
 * neither agent's thread count grown with its 1,000 connections (the agents report their own thread
 * count with their connections open). The long runs (10,000 and 50,000 connections, the peers) are in
 * benchmarks/scripts/scale.sh.
 */
class ScaleIT {
    /** An agent's threads with no connections are about 20 (JVM, control channel, pacers, I/O loops). */
    static final int MAX_AGENT_THREADS = 80;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0} {1}: 1,000 + 1,000 connections")
    @CsvSource({
            "mqtt, qos=1",
            "mqtt, qos=0",
            "nats, jetstream=false"})
    void twoThousandConnectionsWithoutAThreadPerConnection(String driver, String opt) throws Exception {
        ScenarioIT.requireBroker(driver.equals("mqtt") ? 1883 : 4222, driver.equals("mqtt") ? "Mosquitto" : "nats-server");
        Path out = tmp.resolve(driver);
        MsgscopeProcess proc = MsgscopeProcess.start(tmp.resolve("wd-" + driver), "scenario", "--driver", driver,
                "--scenario", "straight-run", "--publishers", "1000", "--rate", "2", "--duration", "3", "--warmup", "1",
                "--io-threads", "2", "--opt", opt, "--out", out.toString());
        JsonNode j = proc.awaitOkSummary(out, 300);
        ScenarioResults.assertEveryMessageDelivered(j, "straight-run", 1000, 1000, 2, 3);
        JsonNode r = j.get("results");
        assertEquals(2000, r.get("connections_opened").asLong(), j::toString);
        assertEquals(0, r.get("connections_failed").asLong(), j::toString);
        assertTrue(r.get("connect_time_p99_us").asDouble() > 0, j::toString);
        for (String role : new String[] {"publishers", "subscribers"}) {
            long threads = r.get(role + "_agent_threads").asLong();
            assertTrue(threads > 0 && threads < MAX_AGENT_THREADS, role + " agent ran " + threads
                    + " threads for 1,000 connections: " + j);
        }
        String err = proc.err();
        assertTrue(err.contains("connecting 2,000/2,000"), err);
    }
}
