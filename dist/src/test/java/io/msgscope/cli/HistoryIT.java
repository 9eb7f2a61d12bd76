package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The run store end to end (issue 34): two short relay runs recorded with labels in a store under a temporary
 * folder, then {@code msgscope history} lists both, filters by label, shows a figure equal to each summary's, and
 * its CSV has one row per run with the figures of each summary.json.
 */
class HistoryIT {
    @TempDir
    Path tmp;

    @Test
    void twoRelayRunsAreRecordedListedAndExported() throws Exception {
        Path store = tmp.resolve("store/history.db");
        JsonNode[] s = new JsonNode[2];
        for (int i = 0; i < 2; i++) {
            Path out = tmp.resolve("r" + i);
            MsgscopeProcess p = MsgscopeProcess.start(tmp, "run", "--count", "2000", "--warmup", "200",
                    "--store", store.toString(), "--label", "suite=history-it", "--label", "try=" + i,
                    "--out", out.toString(), "--verbose=" + (i == 1));
            s[i] = p.awaitOkSummary(out, 300);
            assertTrue(p.err().isBlank() || !p.err().contains("not recorded"), p.err());
            if (i == 1) { // --verbose says what the store cost the run (issue 34)
                assertTrue(p.err().lines().anyMatch(l -> l.matches(
                        "run store: checked in \\d+ ms before the run, recorded in \\d+ ms after it")), p.err());
            }
        }
        MsgscopeProcess list = MsgscopeProcess.start(tmp, "history", "--store", store.toString(),
                "--label", "suite=history-it", "--figure", "latency_p99_us", "--csv", "h.csv");
        assertEquals(0, list.waitFor(120), () -> TraceRunIT.safe(list::err));
        String out = list.out();
        List<String> lines = out.lines().toList();
        assertTrue(lines.get(0).startsWith("started_at"), out);
        assertTrue(lines.get(1).contains(tmp.resolve("r0").toString()) && lines.get(1).contains("suite=history-it;try=0"),
                out);
        assertTrue(lines.get(2).contains(tmp.resolve("r1").toString()) && lines.get(2).contains("try=1"), out);
        assertEquals("2 runs", lines.get(3), out);

        List<String> csv = Files.readAllLines(tmp.resolve("h.csv"));
        assertEquals(3, csv.size(), String.join("\n", csv));
        List<String> head = List.of(csv.get(0).split(","));
        assertEquals("latency_p99_us", head.get(head.size() - 1));
        for (int i = 0; i < 2; i++) {
            List<String> row = List.of(csv.get(i + 1).split(","));
            assertEquals(s[i].path("spec_hash").asText(), row.get(head.indexOf("spec_hash")));
            assertEquals(s[i].path("started_at").asText(), row.get(head.indexOf("started_at")));
            assertEquals("ok", row.get(head.indexOf("status")));
            assertEquals(tmp.resolve("r" + i).toString(), row.get(head.indexOf("folder")));
            assertEquals(s[i].at("/latency/latency_p99_us").asDouble(),
                    Double.parseDouble(row.get(head.indexOf("latency_p99_us"))), "the summary's p99");
        }

        MsgscopeProcess one = MsgscopeProcess.start(tmp, "history", "--store", store.toString(), "--label", "try=1",
                "--csv", "all.csv");
        assertEquals(0, one.waitFor(120), () -> TraceRunIT.safe(one::err));
        List<String> all = Files.readAllLines(tmp.resolve("all.csv"));
        assertEquals(2, all.size(), "the label filter keeps one run");
        List<String> head2 = List.of(all.get(0).split(","));
        List<String> row = List.of(all.get(1).split(","));
        assertEquals(s[1].at("/counters/messages_received").asDouble(),
                Double.parseDouble(row.get(head2.indexOf("messages_received"))));
        assertEquals(s[1].at("/throughput/receive_msg_s").asDouble(),
                Double.parseDouble(row.get(head2.indexOf("receive_msg_s"))));
    }
}
