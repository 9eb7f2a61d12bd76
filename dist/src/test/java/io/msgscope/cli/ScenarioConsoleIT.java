package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Issue 29: scenario mode answers in one sentence (rate, delivery, latency p50/p99 from the actual and the intended
 * send time, connections, warnings), its figures those of summary.json; the per-second table only with --verbose.
 */
class ScenarioConsoleIT {
    @TempDir
    Path tmp;

    @Test
    void scenarioPrintsOneAnswerLineAndTheTableOnlyWithVerbose() throws Exception {
        Path out = tmp.resolve("s");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd"), "scenario", "--driver", "mqtt", "--scenario",
                "fan-in", "--publishers", "2", "--subscribers", "1", "--rate", "100", "--duration", "2", "--warmup", "1",
                "--out", out.toString());
        JsonNode s = p.awaitOkSummary(out, 180);
        List<String> lines = p.out().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(4, lines.size(), "what runs, the answer, the status, the folder: " + lines);
        String answer = lines.get(1);
        JsonNode r = s.get("results");
        long received = r.get("messages_received").asLong();
        assertTrue(answer.startsWith("fan-in: received "), answer);
        assertTrue(answer.contains(String.format(Locale.ROOT, "(%,d of %,d)", received, r.get("expected_messages").asLong())),
                answer + " / " + r);
        assertTrue(answer.contains("latency p50 ") && answer.contains("from the intended send time: p50 "), answer);
        assertTrue(answer.contains(r.get("connections_opened").asLong() + " of " + r.get("connections_target").asLong()
                + " connections"), answer + " / " + r);
        assertTrue(!p.out().contains("| metric | value |"), "no table without --verbose: " + p.out());
        // issue 29: the warm-up's progress line counts the warm-up's deliveries (it said 0 msg/s), on stderr as plain
        // lines when stderr is no terminal
        List<String> warm = p.err().lines().filter(l -> l.contains("(warm-up)")).toList();
        assertTrue(!warm.isEmpty() && warm.stream().allMatch(l -> !l.contains("  0 msg/s")), "warm-up lines: " + warm
                + " / stderr: " + p.err());
    }
}
