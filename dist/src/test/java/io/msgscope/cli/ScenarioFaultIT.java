package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults in scenario mode (issue 32 item 5), through the real CLI: a PRIVATE nats-server (its own port; the shared one
 * on 4222 is never touched) is paused by the broker-probe agent 2 s into a fan-in of 2 publishers x 500 msg/s and
 * resumed 2 s later. Every figure of the pause is computed again here from fault-buckets.dat, the counts it comes from:
 * the outage is the run of empty buckets around it, the window's sends, deliveries, duplicates and late ones are the
 * buckets' sums (its loss by sequence: sent less the distinct deliveries), and the outage lies within 100 ms of the 2 s
 * the server was stopped (the last delivery before it and the first after it are
 * somewhere in the buckets around the run). A kill is refused (scenario connections do not reconnect yet), naming
 * --faults, and so is --faults without a broker for the probe to sample.
 */
class ScenarioFaultIT {
    @TempDir
    Path tmp;

    @Test
    void aPausedServerCostsTheRunOfEmptyBucketsAroundIt() throws Exception {
        try (PrivateBroker nats = PrivateBroker.nats(tmp.resolve("nats"), false)) {
            Path pidFile = tmp.resolve("nats.pid");
            Files.writeString(pidFile, nats.pid() + "\n");
            Path out = tmp.resolve("run");
            MsgscopeProcess p = MsgscopeProcess.start(tmp, "scenario", "--driver", "nats", "--uri", nats.uri(),
                    "--scenario", "fan-in", "--publishers", "2", "--rate", "500", "--duration", "8", "--warmup", "1",
                    "--broker-pid", "" + nats.pid(), "--fault-target", "node1=" + pidFile,
                    "--faults", "2s:pause:node1, 4s:resume:node1", "--out", out.toString());
            int rc = p.waitFor(180);
            JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
            String console = TraceRunIT.safe(p::out);
            System.out.println("scenario fault run: rc " + rc + ", faults " + s.get("faults") + "\nstdout: " + console);
            assertEquals(0, rc, console);
            JsonNode pause = s.get("faults").get(0);
            JsonNode resume = s.get("faults").get(1);
            assertTrue(pause.get("error").isNull() && resume.get("error").isNull(), s.get("faults")::toString);
            assertTrue(Math.abs(pause.get("lag_ms").asDouble()) < 50, pause::toString); // the issue's 50 ms
            double stoppedMs = (resume.get("applied_s").asDouble() - pause.get("applied_s").asDouble()) * 1e3;

            List<double[]> rows = Files.readAllLines(out.resolve("fault-buckets.dat")).stream()
                    .filter(l -> !l.startsWith("#")).map(l -> java.util.Arrays.stream(l.trim().split(" "))
                            .mapToDouble(Double::parseDouble).toArray()).toList();
            double width = pause.get("bucket_ms").asDouble() / 1e3;
            assertEquals(0.1, width, 1e-9);
            // by hand: the longest run of empty arrival buckets that ends after the pause's bucket, before the resume's
            double at = pause.get("applied_s").asDouble();
            double next = resume.get("applied_s").asDouble();
            int bestStart = -1;
            int bestEnd = -1;
            for (int k = 0; k < rows.size(); k++) {
                if (rows.get(k)[1] != 0 || k > 0 && rows.get(k - 1)[1] == 0) {
                    continue;
                }
                int e = k;
                while (e < rows.size() && rows.get(e)[1] == 0) {
                    e++;
                }
                boolean afterFault = rows.get(e - 1)[0] + width > at - 1e-9 && e > 0;
                boolean beforeNext = rows.get(k)[0] < Math.floor(next / width + 1e-9) * width;
                if (afterFault && beforeNext && e < rows.size() && (bestStart < 0 || e - k > bestEnd - bestStart)) {
                    bestStart = k;
                    bestEnd = e;
                }
            }
            assertTrue(bestStart >= 0, "no empty bucket after the pause in " + rows);
            assertEquals(rows.get(bestStart)[0], pause.get("unavailable_from_s").asDouble(), 1e-3);
            assertEquals(rows.get(bestEnd)[0], pause.get("unavailable_to_s").asDouble(), 1e-3);
            double unavailableMs = (bestEnd - bestStart) * 100.0;
            assertEquals(unavailableMs, pause.get("unavailable_ms").asDouble(), 1e-6);
            assertEquals(unavailableMs + 200, pause.get("unavailable_ms_at_most").asDouble(), 1e-6);
            // the server was stopped for stoppedMs: the outage the buckets can see lies around it
            assertTrue(unavailableMs <= stoppedMs + 100 && unavailableMs + 200 >= stoppedMs - 100,
                    () -> unavailableMs + " ms of empty buckets for a pause of " + stoppedMs + " ms");
            // the pause's window: the buckets from its own to the resume's, by intended time
            long sent = 0;
            long got = 0;
            long dup = 0;
            long late = 0;
            for (double[] r : rows) {
                if (r[0] >= Math.floor(at / width + 1e-9) * width - 1e-9 && r[0] < Math.floor(next / width + 1e-9) * width - 1e-9) {
                    sent += (long) r[2];
                    got += (long) r[3];
                    dup += (long) r[4]; // fan-in tells every delivery apart: never NaN here
                    late += (long) r[5];
                }
            }
            assertEquals(sent, pause.get("messages_sent_in_window").asLong(), pause::toString);
            assertEquals(got, pause.get("messages_received_in_window").asLong(), pause::toString);
            assertEquals(sent - got, pause.get("messages_missing_net").asLong(), pause::toString);
            // by sequence: lost = expected - distinct deliveries (a core NATS pause loses nothing here)
            assertEquals(sent - (got - dup), pause.get("messages_lost").asLong(), pause::toString);
            assertEquals(dup, pause.get("messages_duplicated").asLong(), pause::toString);
            assertEquals(late, pause.get("messages_reordered").asLong(), pause::toString);
            assertEquals(0, pause.get("messages_lost").asLong(), pause::toString);
            long inWindow = sent;
            assertTrue(inWindow >= 1_800 && inWindow <= 2_200, () -> inWindow + " sent in a 2 s window at 1000 msg/s");
            assertTrue(pause.get("guarantee_violations").isNull(), pause::toString); // core NATS confirms nothing
            assertTrue(resume.get("unavailable_ms").isNull(), resume::toString);
            // every measured message counted once by its intended time, as the summary counts them
            long sentAll = rows.stream().mapToLong(r -> (long) r[2]).sum();
            long gotAll = rows.stream().mapToLong(r -> (long) r[3]).sum();
            long arrivedAll = rows.stream().mapToLong(r -> (long) r[1]).sum();
            assertEquals(s.get("results").get("messages_sent").asLong(), sentAll);
            assertEquals(s.get("results").get("messages_received").asLong(), gotAll);
            assertEquals(gotAll, arrivedAll);
            assertTrue(console.contains("fault 2s:pause:node1"), console);
            assertTrue(Files.readString(out.resolve("timeseries.gp")).contains("'pause:node1'"));
        }
    }

    @Test
    void aKillIsRefusedAndSoIsAFaultWithoutABroker() throws Exception {
        Path pidFile = tmp.resolve("self.pid");
        Files.writeString(pidFile, ProcessHandle.current().pid() + "\n");
        Path out = tmp.resolve("refused");
        MsgscopeProcess kill = MsgscopeProcess.start(tmp, "scenario", "--driver", "nats", "--duration", "5",
                "--broker-pid", "" + ProcessHandle.current().pid(), "--fault-target", "node1=" + pidFile,
                "--faults", "1s:kill:node1", "--out", out.toString());
        String line = Usage.assertUsageError(kill, "--faults");
        assertTrue(line.contains("do not reconnect"), line);
        MsgscopeProcess noBroker = MsgscopeProcess.start(tmp, "scenario", "--driver", "nats", "--duration", "5",
                "--fault-target", "node1=" + pidFile, "--faults", "1s:pause:node1, 2s:resume:node1",
                "--out", out.toString());
        assertTrue(Usage.assertUsageError(noBroker, "--faults").contains("--broker-pid"));
        MsgscopeProcess late = MsgscopeProcess.start(tmp, "scenario", "--driver", "nats", "--duration", "5",
                "--broker-pid", "" + ProcessHandle.current().pid(), "--fault-target", "node1=" + pidFile,
                "--faults", "6s:pause:node1", "--out", out.toString());
        assertTrue(Usage.assertUsageError(late, "--faults").contains("after the run's end"));
        assertFalse(Files.exists(out), "a usage error writes no results folder");
    }
}
