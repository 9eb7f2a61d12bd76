package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MQTT clients that reconnect, against RabbitMQ's MQTT plugin. Kept out of the suite with the other tests that kill
 * and restart a private RabbitMQ node (dist/pom.xml): {@code benchmarks/scripts/long-its.sh} runs them.
 */
class RabbitMqttReconnectFaultIT {
    @TempDir
    Path tmp;

    /**
     * {@link MqttReconnectFaultIT}'s kill and restart against RabbitMQ's MQTT plugin (issue 35: reconnect against
     * RabbitMQ's MQTT): a private node ({@link PrivateRabbitNode#startMqtt}) SIGKILLed at 1.5 s and started again by
     * {@code deploy/rabbitmq-cluster.sh restart} at 2.5 s, under a QoS 1 run with {@code --opt reconnect=true}.
     * RabbitMQ sends a QoS 1 PUBACK once the message is confirmed, persistent on the session's durable queue, so no PUBACKed message
     * may be lost: every one delivered, none a guarantee violation; what the node had delivered but not seen
     * acknowledged comes again (duplicates, allowed). A restart takes 10-40 s here, which a sender at 1,000 msg/s
     * cannot make up: a failed run may fail only for that.
     */
    @Test
    void aRabbitMqMqttNodeKilledAndRestartedLosesNoAcknowledgedMessage() throws Exception {
        try (PrivateRabbitNode rabbit = PrivateRabbitNode.startMqtt(tmp.resolve("rabbit"))) {
            Path out = tmp.resolve("rabbit-run");
            int count = 6_000;
            ReconnectFaultIT.Finished run = rabbit.runWithFaults("rabbitmq mqtt reconnect", tmp, out,
                    "1.5s:kill:node1, 2.5s:restart:node1", "--driver", "mqtt", "--uri", rabbit.mqttUri(),
                    "--opt", "version=3", "--opt", "qos=1", "--opt", "reconnect=true",
                    "--rate", "1000", "--count", "" + count, "--warmup", "500");
            int rc = run.rc();
            JsonNode s = run.summary();
            JsonNode c = s.get("counters");
            assertEquals(count, c.get("messages_sent").asLong(), c::toString);
            assertEquals(count, c.get("messages_received").asLong(), "every PUBACKed message delivered: " + c);
            assertEquals(0, c.get("messages_lost").asLong(), c::toString);
            assertEquals(count, c.get("messages_confirmed").asLong(), c::toString);
            assertEquals(0, c.get("messages_unconfirmed").asLong(), c::toString);
            assertEquals(0, c.get("guarantee_violations").asLong(), c::toString);
            assertEquals(1, c.get("publisher_reconnects").asLong(), c::toString);
            assertEquals(1, c.get("subscriber_reconnects").asLong(), c::toString);
            if (rc != 0) {
                assertTrue(s.get("failure_reason").asText().startsWith("sender fell behind"), s::toString);
            }
            ReconnectFaultIT.assertKillAndRestartApplied(s, run.process(), rc, out, 0L, rc); // exit code judged above
        }
    }
}
