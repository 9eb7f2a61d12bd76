package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.driver.amqp.EmbeddedQpid;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The flow-controlled throughput mode and its F search (A5-A7) against both AMQP brokers: the real
 * RabbitMQ and an embedded Qpid Broker-J, through the real CLI. Coarse settings keep it short; the
 * search must converge (interval under 1 % of its mean) and the final probe must keep its window.
 */
class AmqpThroughputIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private JsonNode search(String name, String uri, String... opts) throws Exception {
        Path out = tmp.resolve(name);
        String[] base = {"throughput", "--driver", "amqp", "--uri", uri, "--samples", "20", "--max-exponent", "3",
                "--size", "64", "--out", out.toString()};
        String[] args = java.util.Arrays.copyOf(base, base.length + opts.length);
        System.arraycopy(opts, 0, args, base.length, opts.length);
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve(name + "-cli"), args);
        assertEquals(0, p.waitFor(300), () -> name + ": " + TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText());
        long peak = s.get("search").get("peak").get("in_flight").asLong();
        long knee = s.get("search").get("knee").get("in_flight").asLong();
        assertTrue(knee <= peak, knee + " > " + peak);
        assertEquals(knee, s.get("result").get("in_flight").asLong(), "the final measurement at the knee");
        // a server-named queue: amq.gen-... on RabbitMQ, tmp_... on Qpid
        assertTrue(!s.get("destination").asText().isEmpty(), "no server-named queue reported");
        JsonNode r = s.get("result");
        assertEquals(200, r.get("samples").asInt(), "after a search: ten probes' worth (--final-samples auto)");
        assertTrue(r.get("median_msg_s").asDouble() > 100, "median " + r.get("median_msg_s"));
        assertEquals(r.get("messages_sent").asLong(), r.get("messages_received").asLong(), "drained");
        assertTrue(r.get("latency").get("latency_p50_us").asDouble() > 0);
        return s;
    }

    @Test
    void theSearchConvergesOnRabbitMq() throws Exception {
        boolean up;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 5672), 1_000);
            up = true;
        } catch (Exception e) {
            up = false;
        }
        if (!up) {
            if ("true".equals(System.getenv("CI"))) {
                fail("RabbitMQ must listen on 127.0.0.1:5672 under CI=true");
            }
            Assumptions.abort("RabbitMQ is not listening on 127.0.0.1:5672; start it with rabbitmq-server -detached");
        }
        search("rabbit", "amqp://guest:guest@127.0.0.1:5672/%2f", "--opt", "auto_ack=true");
    }

    @Test
    void theSearchConvergesOnQpidBrokerJ() throws Exception {
        try (EmbeddedQpid qpid = EmbeddedQpid.start()) {
            search("qpid", qpid.uri(), "--opt", "prefetch=1000");
        }
    }
}
