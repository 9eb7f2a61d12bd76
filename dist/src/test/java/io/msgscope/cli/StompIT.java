package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * STOMP through the real jar against the machine's RabbitMQ and its {@code rabbitmq_stomp} plugin on 61613 (issue 35
 * item 3; enabled here when off, as the AMQP 1.0 and stream tests enable theirs): a trace run 1→1 with a receipt per
 * SEND delivers and confirms every message and leaves no queue behind; short fan-out and round-robin scenarios
 * deliver every message; bad options exit 2 naming the option. Skipped without RabbitMQ, failing under CI=true.
 */
class StompIT {
    private static final int N = 2_000;

    @TempDir
    Path tmp;

    @BeforeEach
    void broker() {
        RabbitStreams.requirePlugin("rabbitmq_stomp", 61613, "STOMP");
    }

    @Test
    void aTraceRunWithReceiptsDeliversAndConfirmsEveryMessage() throws Exception {
        Path out = tmp.resolve("run");
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--driver", "stomp", "--opt", "receipts=1",
                "--count", "" + N, "--warmup", "200", "--rate", "1000", "--out", out.toString());
        JsonNode s = p.awaitOkSummary(out, 180);
        JsonNode c = s.get("counters");
        assertEquals(N, c.get("messages_sent").asLong(), c::toString);
        assertEquals(N, c.get("messages_received").asLong(), c::toString);
        assertEquals(0, c.get("messages_lost").asLong(), c::toString);
        assertEquals(N, c.get("messages_acked").asLong(), c::toString);
        assertEquals(N, c.get("messages_confirmed").asLong(), c::toString);
        assertEquals(0, c.get("messages_unconfirmed").asLong(), c::toString);
        assertEquals(0, c.get("guarantee_violations").asLong(), c::toString);
        assertEquals(0, c.get("publish_errors").asLong(), c::toString);
        assertEquals(N, DriverRunIT.dataRows(out.resolve("trace.dat")));
        String queues = RabbitStreams.queueNames();
        assertFalse(queues.contains("msgscope-stomp-"),
                "the run's auto-delete queue is gone: " + queues);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"fan-out, 1, 3", "round-robin, 2, 3"})
    void aShortScenarioDeliversEveryMessage(String scenario, int pubs, int subs) throws Exception {
        ScenarioResults.runShortScenario(tmp, "stomp", List.of("receipts=1"), scenario, pubs, subs,
                "STOMP receipts every 1, ack=client");
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "run|--opt ack=manual|--opt ack",
            "run|--opt colour=red|--opt colour",
            "run|--opt receipts=-1|--opt receipts",
            "run|--opt kind=topic --opt durable=true|--opt durable",
            "run|--opt prefetch=10 --opt ack=auto|--opt prefetch",
            "run|--uri http://127.0.0.1:61613|--uri",
            "scenario|--opt name=q|--opt"})
    void badOptionsExitTwoNamingTheOption(String command, String opts, String named) throws Exception {
        List<String> args = new ArrayList<>(List.of(command, "--driver", "stomp", "--out", tmp.resolve("bad").toString()));
        args.addAll(List.of(opts.split(" ")));
        Usage.assertUsageError(MsgscopeProcess.start(tmp.resolve("wd"), args.toArray(String[]::new)), named);
    }
}
