package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Issue 29: Ctrl-C (SIGINT) during a trace run's measurement keeps what was measured: the agents stop, the part that
 * ran is uploaded, analysed and written with status "interrupted" and its figures, exit 130, no process left.
 */
class InterruptIT {
    @TempDir
    Path tmp;

    @Test
    void sigintMidRunLeavesAnInterruptedSummaryWithTheFiguresOfThePartThatRan() throws Exception {
        Path out = tmp.resolve("r");
        long count = 400_000; // 20 s at 20,000 msg/s: interrupted about 4 s in
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd"), "run", "--count", Long.toString(count),
                "--rate", "20000", "--out", out.toString());
        long deadline = System.currentTimeMillis() + 180_000;
        while (!p.err().contains("\nmeasuring: ") && p.process.isAlive() && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
        }
        assertTrue(p.process.isAlive(), "still measuring: " + p.err());
        Thread.sleep(4_000);
        List<ProcessHandle> agents = p.process.descendants().toList();
        new ProcessBuilder("kill", "-INT", Long.toString(p.process.pid())).start().waitFor(10, TimeUnit.SECONDS);
        assertEquals(130, p.waitFor(180), p.err());

        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("interrupted", s.get("status").asText(), s.toString());
        assertEquals("measurement", s.get("failed_during").asText());
        long sent = s.at("/counters/messages_sent").asLong();
        long received = s.at("/counters/messages_received").asLong();
        assertTrue(received > 0 && received < count, "received " + received);
        assertTrue(s.get("failure_reason").asText().contains("after " + sent + " of " + count), s.toString());
        assertEquals(0, s.at("/counters/messages_lost").asLong(), "the receiver drained what was sent");
        assertTrue(s.at("/latency/latency_p50_us").isNumber() && s.at("/latency/latency_p99_us").isNumber(), s.toString());
        assertTrue(Files.exists(out.resolve("trace.dat")));
        String stdout = p.out();
        assertTrue(stdout.startsWith("INTERRUPTED: interrupted by SIGINT after " + sent), stdout);
        assertTrue(stdout.contains(String.format(java.util.Locale.ROOT, "%,d of %,d messages", sent, count)), stdout);
        Thread.sleep(3_000);
        assertTrue(agents.stream().noneMatch(OrphanIT::running), "the agents are gone");
    }
}
