package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Issue 18: the spec of any summary.json loads back unchanged. A run of each broker-free mode is repeated with
 * {@code --spec} its summary.json; the repeat's spec and spec_hash are the original's.
 */
class SpecFileIT {
    @TempDir
    Path tmp;

    private JsonNode run(String name, String... args) throws Exception {
        Path out = tmp.resolve(name);
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--out";
        all[args.length + 1] = out.toString();
        return MsgscopeProcess.start(tmp.resolve("wd-" + name), all).awaitOkSummary(out, 180);
    }

    private void assertSameSpec(JsonNode first, JsonNode again) {
        assertEquals(first.get("spec"), again.get("spec"));
        assertEquals(first.get("spec_hash").asText(), again.get("spec_hash").asText());
    }

    @Test
    void aTraceRunsSpecLoadsBackUnchanged() throws Exception {
        JsonNode first = run("t1", "run", "--count", "20000", "--warmup", "2000", "--rate", "20000", "--seed", "7",
                "--padding", "random", "--window", "50");
        assertSameSpec(first, run("t2", "run", "--spec", tmp.resolve("t1").resolve("summary.json").toString()));
    }

    @Test
    void aThroughputRunsSpecLoadsBackUnchanged() throws Exception {
        JsonNode first = run("p1", "throughput", "--in-flight", "100", "--samples", "20", "--size", "128");
        assertSameSpec(first, run("p2", "throughput", "--spec", tmp.resolve("p1").resolve("summary.json").toString()));
    }

    @Test
    void aScenariosSpecLoadsBackUnchangedEvenWhereTheScenarioChoseDriverOptions() throws Exception {
        // zmq (no broker): the scenario adds pattern and via for the agents; the spec keeps what was given (a drain
        // timeout other than the default too, issue 31 item 1)
        JsonNode first = run("s1", "scenario", "--driver", "zmq", "--publishers", "2", "--rate", "50", "--duration",
                "2", "--warmup", "1", "--drain-timeout", "7000");
        assertEquals(7000, first.get("spec").get("drain_timeout_ms").asLong(), first::toString);
        assertSameSpec(first, run("s2", "scenario", "--spec", tmp.resolve("s1").resolve("summary.json").toString()));
    }
}
