package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZeroMQ through the broker-probe agent's proxy, end to end through the real jar (issue 5; M1, M3, Q6):
 * trace runs with PUSH/PULL and PUB/SUB with the proxy's CPU stamps arriving in the messages; every
 * scenario with delivery_rate 1.0 and fan-out's fourfold count; bad options refused with exit 2 naming
 * the option; the proxy's agent killed mid-run fails the run, names it, writes the results, and does not
 * hang. No broker needed: small numbers, a few seconds each.
 */
class ZmqIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int N = 10_000;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @CsvSource({"pattern=pushpull", "pattern=pubsub"})
    void aTraceRunThroughTheProxyAccountsForEveryMessageAndCarriesItsCpu(String pattern) throws Exception {
        Path out = tmp.resolve("run");
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--driver", "zmq", "--opt", "via=proxy", "--opt", pattern,
                "--count", "" + N, "--warmup", "1000", "--rate", "2000", "--out", out.toString());
        JsonNode s = p.awaitOkSummary(out, 180);
        JsonNode c = s.get("counters");
        assertEquals(N, c.get("messages_received").asLong());
        assertEquals(0, c.get("messages_lost").asLong());
        assertEquals(0, c.get("errors").asLong(), c::toString);
        assertEquals(N + 1_000, c.get("relay_forwarded").asLong(), "the proxy forwarded warm-up and measurement");
        JsonNode broker = s.get("cpu").get("broker");
        assertEquals("relay", broker.get("mode").asText(), broker::toString);
        assertTrue(broker.get("stats").get("n").asLong() > 0, "the proxy's CPU stamps reached the receiver: " + broker);
        assertEquals(N, DriverRunIT.dataRows(out.resolve("trace.dat")));
    }

    @ParameterizedTest(name = "{0} P={1} S={2}")
    @CsvSource({
            "fan-in,       4, 1",
            "fan-out,      1, 4",
            "straight-run, 4, 4",
            "round-robin,  4, 4"})
    void everyScenarioDeliversEveryMessageAsItSays(String scenario, int pubs, int subs) throws Exception {
        JsonNode j = ScenarioResults.runShortScenario(tmp, "zmq", List.of(), scenario, pubs, subs,
                scenario.equals("round-robin") ? "PUSH/PULL via proxy" : "PUB/SUB via proxy");
        JsonNode r = j.get("results");
        assertEquals((long) pubs * 200 * 2, r.get("proxy_forwarded").asLong(),
                "the proxy counts what it forwarded in the measurement");
        assertTrue(r.get("proxy_cpu_ns_per_message").asDouble() > 0, j::toString);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "run|--opt via=broker|--opt via",
            "run|--opt via=proxy --opt port=5555|--opt port",
            "run|--opt pattern=pubsub|--opt pattern",
            "run|--opt colour=red|--opt colour",
            "scenario|--opt via=direct|--opt via",
            "scenario|--opt pattern=pushpull|--opt pattern"})
    void badOptionsExitTwoNamingTheOption(String command, String opts, String named) throws Exception {
        List<String> args = new ArrayList<>(List.of(command, "--driver", "zmq", "--out", tmp.resolve("bad").toString()));
        args.addAll(List.of(opts.split(" ")));
        Usage.assertUsageError(MsgscopeProcess.start(tmp.resolve("wd"), args.toArray(String[]::new)), named);
    }

    @Test
    void theProxyKilledMidRunFailsTheRunNamingItWithResultsWritten() throws Exception {
        Path out = tmp.resolve("killed");
        // 60 s planned at 5,000 msg/s: the proxy's agent is killed once the measurement is under way
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--driver", "zmq", "--opt", "via=proxy",
                "--count", "300000", "--rate", "5000", "--warmup", "1000", "--out", out.toString());
        killProxyOnceUnderWay(p, "measuring:", out);
        assertTrue(p.out().contains("FAILED"), p.out());
        assertTrue(java.nio.file.Files.exists(out.resolve("trace.dat")));
    }

    @Test
    void theProxyKilledMidScenarioFailsItNamingIt() throws Exception {
        Path out = tmp.resolve("killed-scenario");
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "scenario", "--driver", "zmq", "--scenario", "fan-out",
                "--rate", "200", "--duration", "30", "--warmup", "1", "--out", out.toString());
        killProxyOnceUnderWay(p, "1s/30s", out);
    }

    /** Kills the relay agent once {@code line} is on stderr; the run must fail soon, naming it, results written. */
    private static void killProxyOnceUnderWay(MsgscopeProcess p, String line, Path out) throws Exception {
        ProcessHandle relay = TraceRunIT.awaitChild(p.process, "relay", 60_000);
        TraceRunIT.awaitLine(p.stderr, line, 60_000);
        relay.destroyForcibly();
        long killedAt = System.nanoTime();
        p.waitFor(120);
        double seconds = (System.nanoTime() - killedAt) / 1e9;
        JsonNode s = p.awaitFailedSummary(out, 0); // it has ended
        assertTrue(seconds < 30, "the coordinator noticed after " + seconds + " s");
        assertTrue(s.get("failure_reason").asText().contains("relay"), s.get("failure_reason").asText());
    }
}
