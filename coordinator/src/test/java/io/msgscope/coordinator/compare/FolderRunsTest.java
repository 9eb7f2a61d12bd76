package io.msgscope.coordinator.compare;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.msgscope.analysis.output.HdrOutput;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What compare reads of each mode's folder (issue 34). */
class FolderRunsTest {
    @TempDir
    Path tmp;

    private static Histogram of(long... values) {
        Histogram h = new Histogram(3);
        for (long v : values) {
            h.recordValue(v);
        }
        return h;
    }

    @Test
    void aTraceRunsThroughputIsEachIntervalsMessagesOverItsLengthTheLastSliverLeftOut() throws IOException {
        Path d = Files.createDirectories(tmp.resolve("t"));
        Files.writeString(d.resolve("summary.json"), "{\"mode\":\"trace\",\"status\":\"ok\",\"spec\":{}}");
        long t0 = Fixtures.T0;
        try (HdrOutput.IntervalLog log = new HdrOutput.IntervalLog(d.resolve("latency.hlog"), "t", t0)) {
            log.append(of(10, 20), t0, t0 + 1000, null);
            log.append(of(10, 20, 30), t0 + 1000, t0 + 2000, null);
            log.append(of(5), t0 + 2000, t0 + 2500, null);   // half the longest: kept, 1 / 0.5 s
            log.append(of(5), t0 + 3000, t0 + 3100, null);   // a sliver: left out of throughput, kept for latency
        }
        RunData r = FolderRuns.read(d, "t");
        assertArrayEquals(new double[] {2, 3, 2}, r.throughput());
        assertEquals(4, r.latency().size());
    }

    @Test
    void aPhasedTraceRunsHistogramsOfOneSecondAreAddedUp() throws IOException {
        Path d = Files.createDirectories(tmp.resolve("p"));
        Files.writeString(d.resolve("summary.json"), "{\"mode\":\"trace\",\"status\":\"ok\",\"spec\":{}}");
        long t0 = Fixtures.T0;
        try (HdrOutput.IntervalLog log = new HdrOutput.IntervalLog(d.resolve("latency.hlog"), "t", t0)) {
            log.append(of(10), t0, t0 + 1000, "phase0-a");
            log.append(of(20, 30), t0, t0 + 1000, "phase1-b");
        }
        RunData r = FolderRuns.read(d, "p");
        assertEquals(1, r.latency().size());
        assertEquals(3, r.latency().get(0).total());
        assertArrayEquals(new double[] {3}, r.throughput());
    }

    @Test
    void aThroughputRunGivesItsSamplesAndOnlyTheFinalMeasurementsLatency() throws IOException {
        Path d = Files.createDirectories(tmp.resolve("tp"));
        Files.writeString(d.resolve("summary.json"), "{\"mode\":\"throughput\",\"status\":\"ok\",\"settings\":{}}");
        Files.writeString(d.resolve("samples.dat"), "# sample msg_s\n0 1000.5\n1 2000\n\n2 NaN\n3 3000\n");
        long t0 = Fixtures.T0;
        try (HdrOutput.IntervalLog log = new HdrOutput.IntervalLog(d.resolve("latency.hlog"), "t", t0)) {
            log.append(of(10), t0, t0 + 1000, "F10-0");
            log.append(of(20, 30), t0 + 1000, t0 + 2000, "final-F10");
        }
        RunData r = FolderRuns.read(d, "tp");
        assertArrayEquals(new double[] {1000.5, 2000, 3000}, r.throughput());
        assertEquals(1, r.latency().size());
        assertEquals(2, r.latency().get(0).total());
    }

    @Test
    void aDamagedLogIsOneLineNamingTheFile() throws IOException {
        Path d = Files.createDirectories(tmp.resolve("bad"));
        Files.writeString(d.resolve("summary.json"), "{\"mode\":\"trace\",\"status\":\"ok\",\"spec\":{}}");
        Files.writeString(d.resolve("latency.hlog"), "#[StartTime: 1 (seconds since epoch)]\n0.000,1.000,5.0,not-base64\n");
        IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> FolderRuns.read(d, "bad"));
        org.junit.jupiter.api.Assertions.assertTrue(
                e.getMessage().startsWith(d.resolve("latency.hlog") + " is not an HdrHistogram interval log"),
                e.getMessage());
    }

    @Test
    void aScenarioGivesItsRatePerSecondAndLeavesTheDrainOut() throws IOException {
        Path d = Files.createDirectories(tmp.resolve("sc"));
        Files.writeString(d.resolve("summary.json"), "{\"mode\":\"scenario\",\"status\":\"ok\",\"results\":{}}");
        Files.writeString(d.resolve("timeseries.dat"), "# second rate_msg_s p50_us p99_us\n0 400.000 1 2\n1 398.500 1 2\n");
        long t0 = Fixtures.T0;
        try (HdrOutput.IntervalLog log = new HdrOutput.IntervalLog(d.resolve("latency.hlog"), "t", t0)) {
            log.append(of(10), t0, t0 + 1000, null);
            log.append(of(20), t0 + 1000, t0 + 2000, null);
            log.append(of(900), t0 + 2000, t0 + 2100, "drain");
        }
        RunData r = FolderRuns.read(d, "sc");
        assertArrayEquals(new double[] {400, 398.5}, r.throughput());
        assertEquals(2, r.latency().size());
    }
}
