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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Raw TCP with {@code --opt via=direct} through the real jar (issue 13): the sender connects straight to
 * the receiver, no relay agent starts, broker CPU is "none", and everything else (every message accounted
 * for, trace.dat's rows and columns, sender and receiver CPU, the network) is as through the relay;
 * {@code msgscope throughput} works the same way; bad options and relay-only options exit 2 naming them.
 */
class TcpDirectIT {
    private static final int N = 50_000;

    @TempDir
    Path tmp;

    @Test
    void aDirectRunAccountsForEveryMessageWithoutARelay() throws Exception {
        Path out = tmp.resolve("direct");
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--opt", "via=direct", "--count", "" + N,
                "--warmup", "5000", "--cpu-every", "500", "--out", out.toString());
        JsonNode s = p.awaitOkSummary(out, 180);
        assertTrue(p.out().contains("50,000 messages of 64 B"), TraceRunIT.safe(p::out));
        assertTrue(p.out().contains("0 lost"), TraceRunIT.safe(p::out));
        assertFalse(p.out().contains("relay"), "no relay is mentioned: " + TraceRunIT.safe(p::out));

        JsonNode c = s.get("counters");
        assertEquals(N, c.get("messages_sent").asLong());
        assertEquals(N, c.get("messages_received").asLong());
        assertEquals(0, c.get("messages_lost").asLong());
        assertEquals(5_000, c.get("warmup_received").asLong());
        assertTrue(c.path("relay_forwarded").isNull() || c.path("relay_forwarded").isMissingNode(), c::toString);
        assertTrue(s.get("topology").asText().startsWith("sender -> receiver (raw TCP, one hop, receiver listening "
                + "on 127.0.0.1:"), s.get("topology")::toString);
        assertEquals("direct", s.get("spec").get("driver_options").get("via").asText(), s.get("spec")::toString);

        JsonNode agents = s.get("environment").get("agents");
        assertNotNull(agents.get("sender"));
        assertNotNull(agents.get("receiver"));
        assertNull(agents.get("relay"), "no relay agent ran: " + agents);
        assertFalse(Files.exists(out.resolve("agent-relay.log")));

        JsonNode cpu = s.get("cpu");
        assertEquals("none", cpu.get("broker").get("mode").asText(), cpu.get("broker")::toString);
        assertTrue(cpu.get("broker").get("source").asText().contains("no broker or relay"));
        assertFalse(cpu.get("broker").has("stats"));
        assertTrue(cpu.get("sender").get("stats").get("n").asLong() > 0, cpu::toString);
        assertTrue(cpu.get("receiver").get("stats").get("n").asLong() > 0, cpu::toString);
        assertTrue(s.get("network").get("rx_bytes_s").get("n").asLong() > 0, s.get("network")::toString);
        assertEquals("lo", s.get("network").get("interface").asText());

        JsonNode lat = s.get("series").get("latency_ns");
        assertEquals(N, lat.get("n").asLong());
        assertTrue(lat.get("min").asDouble() > 0);
        assertTrue(s.get("identity_check").get("holds").asBoolean());
        try (BufferedReader r = Files.newBufferedReader(out.resolve("trace.dat"), StandardCharsets.US_ASCII)) {
            String[] cols = r.readLine().substring(1).trim().split("\\s+");
            assertEquals(List.of("seq", "send_ns", "recv_ns", "latency_ns", "st_msg_s", "rt_msg_s", "cpu_sender_pct",
                    "cpu_receiver_pct", "net_rx_bytes_s", "net_rx_packets_s", "st_window", "rt_window"), List.of(cols));
        }
        assertEquals(N, DriverRunIT.dataRows(out.resolve("trace.dat")));
    }

    @Test
    void throughputRunsDirectToo() throws Exception {
        Path out = tmp.resolve("tp");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("cli-tp"), "throughput", "--opt", "via=direct",
                "--in-flight", "100", "--samples", "20", "--out", out.toString());
        JsonNode s = p.awaitOkSummary(out, 180);
        JsonNode r = s.get("result");
        assertEquals(100, r.get("in_flight").asLong());
        assertEquals(20, r.get("sample_values_msg_s").size());
        assertTrue(r.get("median_msg_s").asDouble() > 1000, r::toString);
        assertEquals(r.get("messages_sent").asLong(), r.get("messages_received").asLong());
        assertFalse(Files.exists(out.resolve("agent-relay.log")), "no relay agent ran");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "--opt via=bogus|--opt via",
            "--opt port=7000|--opt port",
            "--opt via=direct --opt port=70000|--opt port",
            "--opt via=direct --opt colour=red|--opt colour",
            "--opt via=direct --broker-cpu relay|--broker-cpu",
            "--opt via=direct --broker-cpu sidecar|--broker-cpu",
            "--opt via=direct --relay-ingress-port 7000|--relay-ingress-port",
            "--opt via=direct --relay-egress-port 7001|--relay-egress-port",
            "--opt via=direct --agent relay=127.0.0.1:7600|--agent"})
    void badOrRelayOnlyOptionsExitTwoNamingTheOption(String opts, String named) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", "--count", "1000", "--out", tmp.resolve("bad").toString()));
        args.addAll(List.of(opts.split(" ")));
        Usage.assertUsageError(MsgscopeProcess.start(tmp.resolve("wd"), args.toArray(String[]::new)), named);
        assertFalse(Files.exists(tmp.resolve("bad")), "nothing written");
    }
}
