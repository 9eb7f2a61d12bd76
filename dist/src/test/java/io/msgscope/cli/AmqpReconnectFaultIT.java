package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --opt reconnect=true} for AMQP 0-9-1 (issue 32 item 3) through the real CLI: a PRIVATE RabbitMQ node started
 * from the Debian package (its own node name, AMQP and distribution ports, Erlang cookie, epmd and data folder, as
 * {@code deploy/rabbitmq-cluster.sh} starts its nodes; the shared broker on 5672 is never touched) is killed mid-run
 * (SIGKILL of its beam.smp, by the broker-probe agent through the node's pid file) and started again by the fault
 * plan's restart command half a second later. Durable queue, persistent messages, publisher confirms, manual acks:
 * the run completes, every measured message ends confirmed (messages_confirmed = sent, messages_unconfirmed 0, the
 * ones the kill left unconfirmed republished), received or lost adds up to sent, and no message the broker confirmed
 * is lost: guarantee_violations 0. At least once means duplicates (a republished message whose first copy got
 * through, a delivery whose ack died with the node), so the run allows them. The node ({@link PrivateRabbitNode}),
 * its wrapper and its epmd are stopped by their PIDs. One test: a node takes ~10-30 s to start here, twice.
 */
class AmqpReconnectFaultIT {
    @TempDir
    Path tmp;

    @Test
    void aRabbitMqNodeKilledAndRestartedLosesNoConfirmedMessage() throws Exception {
        try (PrivateRabbitNode rabbit = PrivateRabbitNode.start(tmp.resolve("rabbit"))) {
            Path out = tmp.resolve("run");
            int count = 8_000;
            ReconnectFaultIT.Finished run = rabbit.runWithFaults("amqp reconnect", tmp, out,
                    "2s:kill:node1, 2.5s:restart:node1", "--driver", "amqp", "--uri", rabbit.uri() + "/%2f",
                    "--opt", "reconnect=true", "--opt", "confirm=200", "--opt", "persistent=true",
                    "--opt", "prefetch=500", "--rate", "1000", "--count", "" + count, "--warmup", "500");
            int rc = run.rc();
            JsonNode s = run.summary();
            JsonNode c = assertNodeKillLostNoConfirmedMessage(s, rc, out, count, 200);
            // a duplicate is a message sent again or a delivery the broker made again (its ack died with the node)
            assertTrue(c.get("duplicates").asLong() <= c.get("messages_republished").asLong()
                    + c.get("redelivered").asLong(), c::toString);
        }
    }

    /**
     * What both AMQP reconnect tests check of a run through "2s:kill:node1, 2.5s:restart:node1" of {@code count}
     * measured messages with a window of {@code window} unconfirmed ones: every message sent and in the end
     * confirmed (the ones the kill left unconfirmed sent again: at most the window), none lost, no guarantee
     * violation, one reconnect per side; both faults applied without error, the kill costing more than 0.5 s; a
     * failed run failed only for falling behind its rate (the node's restart takes 10-40 s on this loaded box, which
     * the sender cannot make up at 1,000 msg/s). Returns the counters.
     */
    static JsonNode assertNodeKillLostNoConfirmedMessage(JsonNode s, int rc, Path out, int count, int window)
            throws java.io.IOException {
        JsonNode c = s.get("counters");
        assertEquals(count, c.get("messages_sent").asLong(), c::toString);
        assertEquals(count, c.get("messages_received").asLong() + c.get("messages_lost").asLong(), c::toString);
        assertEquals(count, c.get("messages_confirmed").asLong(), c::toString);
        assertEquals(0, c.get("messages_unconfirmed").asLong(), c::toString);
        assertEquals(0, c.get("guarantee_violations").asLong(), c::toString);
        assertEquals(0, c.get("messages_lost").asLong(), "durable queue, durable messages, all confirmed: " + c);
        assertEquals(1, c.get("publisher_reconnects").asLong(), c::toString);
        assertEquals(1, c.get("subscriber_reconnects").asLong(), c::toString);
        assertTrue(c.get("messages_republished").asLong() <= window, c::toString);
        JsonNode faults = s.get("faults");
        assertEquals(2, faults.size(), s::toString);
        for (JsonNode f : faults) {
            assertTrue(f.get("error").isNull(), f::toString);
            assertEquals(0, f.get("guarantee_violations").asLong(), f::toString);
        }
        assertTrue(faults.get(0).get("unavailable_ms").asDouble() > 500, faults.get(0)::toString);
        if (rc != 0) {
            assertTrue(s.get("failure_reason").asText().startsWith("sender fell behind"), s::toString);
        }
        String probeLog = Files.readString(out.resolve("agent-probe.log"));
        assertTrue(probeLog.contains("fault 2s:kill:node1: applied"), probeLog);
        assertTrue(probeLog.contains("fault 2.5s:restart:node1: applied"), probeLog);
        return c;
    }
}
