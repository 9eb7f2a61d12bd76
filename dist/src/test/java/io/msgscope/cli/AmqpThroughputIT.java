package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.core.test.Ci;
import io.msgscope.driver.amqp.EmbeddedQpid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flow-controlled throughput mode and its F search (A5-A7) against both AMQP brokers: the real
 * RabbitMQ and an embedded Qpid Broker-J, through the real CLI. Coarse settings keep it short; the
 * search must converge (stop for one of its own reasons, not because the probe budget ran out; when it says
 * the interval is under 1 % of its mean, its bounds must show it) and the final probe must keep its window
 * (F is the knee, and no sampled message arrived with more than F in flight).
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
        assertConverged(s.get("search"));
        JsonNode window = s.get("result").get("messages_in_flight");
        assertEquals(knee, window.get("window_f").asLong(), "the final probe's window is the knee: " + window);
        assertTrue(window.get("counted_at_arrivals").isNumber()
                && window.get("counted_at_arrivals").asDouble() <= knee, "more than F in flight: " + window);
        // a server-named queue: amq.gen-... on RabbitMQ, tmp_... on Qpid
        assertTrue(!s.get("destination").asText().isEmpty(), "no server-named queue reported");
        JsonNode r = s.get("result");
        assertEquals(200, r.get("samples").asInt(), "after a search: ten probes' worth (--final-samples auto)");
        assertTrue(r.get("median_msg_s").asDouble() > 100, "median " + r.get("median_msg_s"));
        assertEquals(r.get("messages_sent").asLong(), r.get("messages_received").asLong(), "drained");
        assertTrue(r.get("latency").get("latency_p50_us").asDouble() > 0);
        return s;
    }

    /**
     * The search stopped for one of FSearch's converged reasons: not the probe budget, and an A6 stop whose
     * bounds really lie within 1 % of their mean (or are neighbouring whole F).
     */
    static void assertConverged(JsonNode search) {
        String stop = search.get("stop_reason").asText();
        assertTrue(search.get("stop_reason").isTextual() && !stop.startsWith("the probe budget"),
                "the search did not converge: " + stop + " after " + search.get("probes_taken") + " probes");
        if (stop.startsWith("the interval is under 1%")) {
            long lo = search.get("bounds").get(0).asLong();
            long hi = search.get("bounds").get(1).asLong();
            assertTrue(hi - lo <= 1 || hi - lo < 0.01 * (lo + hi) / 2.0, "bounds " + search.get("bounds") + ": " + stop);
        }
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
        Ci.require(up, "RabbitMQ must listen on 127.0.0.1:5672 (rabbitmq-server -detached)", "the RabbitMQ search skipped");
        search("rabbit", "amqp://guest:guest@127.0.0.1:5672/%2f", "--opt", "auto_ack=true");
    }

    @Test
    void theSearchConvergesOnQpidBrokerJ() throws Exception {
        try (EmbeddedQpid qpid = EmbeddedQpid.start()) {
            search("qpid", qpid.uri(), "--opt", "prefetch=1000");
        }
    }
}
