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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis through the real jar against the machine's Redis on 127.0.0.1:6379 (issue 35 item 2): trace runs 1→1 with
 * streams and pub/sub deliver every message; short scenarios on streams (fan-out: a group per subscriber;
 * round-robin: one group) and pub/sub (fan-out); bad options exit 2 naming the option; {@code msgscope clean} runs.
 * Skipped without Redis, failing under CI=true.
 */
class RedisIT {
    private static final int N = 2_000;

    @TempDir
    Path tmp;

    @BeforeEach
    void redis() {
        DriverRunIT.requireBroker(6379, "Redis");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"mode=streams", "mode=pubsub"})
    void aTraceRunDeliversEveryMessage(String mode) throws Exception {
        Path out = tmp.resolve("run");
        MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--driver", "redis", "--opt", mode,
                "--count", "" + N, "--warmup", "200", "--rate", "1000", "--out", out.toString());
        JsonNode s = p.awaitOkSummary(out, 180);
        JsonNode c = s.get("counters");
        assertEquals(N, c.get("messages_received").asLong(), c::toString);
        assertEquals(0, c.get("messages_lost").asLong());
        assertEquals(0, c.get("publish_errors").asLong(), c::toString);
        assertEquals(N, c.get("messages_acked").asLong(), c::toString);
        assertEquals(N, DriverRunIT.dataRows(out.resolve("trace.dat")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "fan-out,     mode=streams, 1, 3",
            "round-robin, mode=streams, 2, 3",
            "fan-in,      mode=streams, 3, 1",
            "fan-out,     mode=pubsub,  1, 3"})
    void aShortScenarioDeliversEveryMessage(String scenario, String mode, int pubs, int subs) throws Exception {
        ScenarioResults.runShortScenario(tmp, "redis", List.of(mode), scenario, pubs, subs,
                mode.endsWith("streams") ? "Redis Streams" : "Redis pub/sub");
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "run|--opt mode=queue|--opt mode",
            "run|--opt colour=red|--opt colour",
            "run|--opt maxlen=-1|--opt maxlen",
            "run|--opt mode=pubsub --opt group=g|--opt group",
            "run|--opt max_inflight=0|--opt max_inflight",
            "run|--uri http://127.0.0.1:6379|--uri",
            "scenario|--opt mode=pubsub --scenario round-robin|--opt mode",
            "scenario|--opt key=k|--opt"})
    void badOptionsExitTwoNamingTheOption(String command, String opts, String named) throws Exception {
        List<String> args = new ArrayList<>(List.of(command, "--driver", "redis", "--out", tmp.resolve("bad").toString()));
        args.addAll(List.of(opts.split(" ")));
        Usage.assertUsageError(MsgscopeProcess.start(tmp.resolve("wd"), args.toArray(String[]::new)), named);
    }

    @Test
    void cleanListsAndRemovesAStreamARunLeftBehind() throws Exception {
        String key = "msgscope:it-" + Long.toHexString(System.nanoTime());
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379");
        try (var c = client.connect()) {
            c.sync().xadd(key, "d", "left behind");
            MsgscopeProcess dry = MsgscopeProcess.start(tmp.resolve("wd"), "clean", "--driver", "redis", "--dry-run");
            assertEquals(0, dry.waitFor(60), TraceRunIT.safe(dry::err));
            assertTrue(dry.out().contains("would delete Redis stream " + key), dry.out());
            assertEquals(1L, c.sync().exists(key), "--dry-run deletes nothing");
            MsgscopeProcess clean = MsgscopeProcess.start(tmp.resolve("wd"), "clean", "--driver", "redis");
            assertEquals(0, clean.waitFor(60), TraceRunIT.safe(clean::err));
            assertTrue(clean.out().contains("deleted Redis stream " + key), clean.out());
            assertEquals(0L, c.sync().exists(key));
        } finally {
            client.shutdown();
        }
    }
}
