package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.faults.FaultLog;
import io.msgscope.core.fault.FaultPlan;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scenario mode's fault figures (issue 32 item 5) computed by hand from counts made up bucket by bucket: 100 ms
 * buckets, the measurement from epoch 10.0 s (bucket 100) for 6 s, 10 deliveries in every bucket but none in 130-137
 * (a pause applied at 3.05 s, resumed at 3.75 s) and a burst of 50 in 138; 10 sends due in every bucket, of which 3
 * due in bucket 131 never arrive.
 */
class ScenarioFaultFiguresTest {
    private static final long W = 100_000_000L;
    private static final long ORIGIN = 10_000_000_000L;

    private static ScenarioFaultFigures.Buckets buckets() {
        long[] arrived = new long[60];
        long[] sent = new long[60];
        long[] got = new long[60];
        Arrays.fill(arrived, 10);
        Arrays.fill(sent, 10);
        Arrays.fill(got, 10);
        for (int k = 30; k <= 37; k++) {
            arrived[k] = 0;
        }
        arrived[38] = 50;
        got[31] = 7;
        return new ScenarioFaultFigures.Buckets(100, W, arrived, sent, got);
    }

    /** Poll windows of 1 s from epoch 10 s, p99 1 ms except [13, 14) (800 ms) and [14, 15) (5 ms). */
    private static List<ScenarioPhases.Window> windows() {
        List<ScenarioPhases.Window> out = new ArrayList<>();
        for (int s = 10; s < 16; s++) {
            Histogram h = io.msgscope.core.LatencyRange.histogram();
            long v = s == 13 ? 800_000_000L : s == 14 ? 5_000_000L : 1_000_000L;
            h.recordValueWithCount(v, 100);
            out.add(new ScenarioPhases.Window(s * 1000L, (s + 1) * 1000L, 100, 100, encode(h), encode(h)));
        }
        return out;
    }

    private static byte[] encode(Histogram h) {
        ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(b);
        return Arrays.copyOf(b.array(), n);
    }

    private static List<Map<String, Object>> figures() {
        FaultPlan plan = FaultPlan.parse("--faults", "3s:pause:n1, 3.7s:resume:n1");
        FaultLog log = new FaultLog(plan, List.of(
                new FaultLog.Applied(plan.steps().get(0), 3_050_000_000L, 3_050_100_000L, 42, ""),
                new FaultLog.Applied(plan.steps().get(1), 3_750_000_000L, 3_750_100_000L, 42, "")));
        return ScenarioFaultFigures.of(log, ORIGIN, 6_000_000_000L, buckets(), 1, windows()).toList();
    }

    @Test
    void thePauseIsTheRunOfEmptyBucketsItFallsIn() {
        Map<String, Object> p = figures().get(0);
        assertEquals(3.05, (Double) p.get("applied_s"), 1e-9);
        assertEquals(50.0, (Double) p.get("lag_ms"), 1e-9);
        assertEquals(42L, p.get("pid"));
        // empty buckets 130-137: from bucket 130's start (13.0 s epoch, 3.0 s) to bucket 138's (3.8 s)
        assertEquals(3.0, (Double) p.get("unavailable_from_s"), 1e-9);
        assertEquals(3.8, (Double) p.get("unavailable_to_s"), 1e-9);
        assertEquals(800.0, (Double) p.get("unavailable_ms"), 1e-9);
        assertEquals(1000.0, (Double) p.get("unavailable_ms_at_most"), 1e-9); // plus the two buckets around it
        // its window: buckets 130-136 (to the resume's bucket 137): 7 x 10 sent, 3 of bucket 131's missing
        assertEquals(70L, p.get("messages_sent_in_window"));
        assertEquals(70L, p.get("messages_expected_in_window"));
        assertEquals(67L, p.get("messages_received_in_window"));
        assertEquals(3L, p.get("messages_missing_net"));
        assertNull(p.get("messages_lost")); // no sequences in scenario mode: unknown, not 0
        assertNull(p.get("guarantee_violations"));
        // baseline: buckets 120-129, 100 deliveries in 1 s; back: the first whole second from bucket 138 within
        // ±10 %: 138-147 holds 140 (the burst), 139-148 holds 100, ending at 14.9 s, 1.85 s after the pause
        assertEquals(100.0, (Double) p.get("baseline_msg_s"), 1e-9);
        assertEquals(1.85, (Double) p.get("throughput_recovered_s"), 1e-9);
        // p99: the window [12, 13) s before (1 ms); windows from 13.8 s: [14, 15) at 5 ms, [15, 16) at 1 ms ends 16 s
        double base = (Double) p.get("baseline_p99_from_intended_us");
        assertEquals(1000.0, base, 1.0);
        assertEquals(2.95, (Double) p.get("p99_recovered_s"), 1e-9);
        @SuppressWarnings("unchecked")
        Map<String, Object> lat = (Map<String, Object>) p.get("arrivals_in_window_latency_from_intended");
        assertEquals(100L, lat.get("count")); // the one poll window overlapping 3.05-3.75 s
        assertEquals(800_000.0, (Double) lat.get("p99_us"), 800_000 * 1e-3);
    }

    @Test
    void theResumeHasNoOutageAndRecoversFromItsPausesBaseline() {
        Map<String, Object> r = figures().get(1);
        assertNull(r.get("unavailable_ms"));
        assertNull(r.get("unavailable_ms_at_most"));
        // its window: bucket 137 to the measurement's end (bucket 160 included): 23 buckets of 10 sent and received
        assertEquals(230L, r.get("messages_sent_in_window"));
        assertEquals(230L, r.get("messages_received_in_window"));
        assertEquals(0L, r.get("messages_missing_net"));
        assertEquals(100.0, (Double) r.get("baseline_msg_s"), 1e-9);
        // from bucket 137: 137-146 holds 130, 138-147 140, 139-148 100: ends 14.9 s, 1.15 s after 13.75 s
        assertEquals(1.15, (Double) r.get("throughput_recovered_s"), 1e-9);
    }

    @Test
    void fanOutExpectsEveryMessageOncePerSubscriber() {
        FaultPlan plan = FaultPlan.parse("--faults", "3s:pause:n1, 3.7s:resume:n1");
        FaultLog log = new FaultLog(plan, List.of(
                new FaultLog.Applied(plan.steps().get(0), 3_050_000_000L, 3_050_100_000L, 42, "")));
        List<Map<String, Object>> f = ScenarioFaultFigures.of(log, ORIGIN, 6_000_000_000L, buckets(), 4, windows())
                .toList();
        // the pause's window runs to the end now (the resume was not applied): buckets 130-160, 300 sent x 4
        assertEquals(300L, f.get(0).get("messages_sent_in_window"));
        assertEquals(1200L, f.get(0).get("messages_expected_in_window"));
        assertEquals(1200L - 297L, f.get(0).get("messages_missing_net"));
        assertNull(f.get(1).get("applied_s"));
        assertEquals("not applied: the run ended first", f.get(1).get("error"));
        assertTrue(ScenarioFaultFigures.of(log, ORIGIN, 6_000_000_000L, buckets(), 4, windows()).consoleLines().get(1)
                .contains("not applied"));
    }

    @Test
    void aFaultWithoutAnEmptyBucketCostsLessThanTwoBuckets() {
        ScenarioFaultFigures.Buckets b = new ScenarioFaultFigures.Buckets(100, W, fill(60, 10), fill(60, 10), fill(60, 10));
        assertNull(ScenarioFaultFigures.longestGap(b, 130, 160));
        FaultPlan plan = FaultPlan.parse("--faults", "3s:pause:n1");
        FaultLog log = new FaultLog(plan, List.of(
                new FaultLog.Applied(plan.steps().get(0), 3_050_000_000L, 3_050_100_000L, 42, "")));
        Map<String, Object> f = ScenarioFaultFigures.of(log, ORIGIN, 6_000_000_000L, b, 1, windows()).toList().get(0);
        assertEquals(0.0, (Double) f.get("unavailable_ms"), 0);
        assertEquals(200.0, (Double) f.get("unavailable_ms_at_most"), 0);
    }

    @Test
    void anOutageThatNeverEndsHasNoEnd() {
        long[] arrived = fill(60, 10);
        Arrays.fill(arrived, 30, 60, 0);
        ScenarioFaultFigures.Buckets b = new ScenarioFaultFigures.Buckets(100, W, arrived, fill(60, 10), arrived);
        assertArrayEquals(new long[] {130, -1}, ScenarioFaultFigures.longestGap(b, 130, 160));
    }

    @Test
    void withSequencesLossIsExpectedLessTheDistinctDeliveries() {
        ScenarioFaultFigures.Buckets plain = buckets();
        long[] got = plain.gotDue().clone();
        long[] dup = new long[60];
        long[] late = new long[60];
        got[32] = 12;  // bucket 132: 2 copies of messages delivered before
        dup[32] = 2;
        late[33] = 4;  // bucket 133: 4 arrived after higher sequences
        ScenarioFaultFigures.Buckets b = new ScenarioFaultFigures.Buckets(100, W, plain.arrived(), plain.sentDue(), got,
                dup, late, true, 0);
        FaultPlan plan = FaultPlan.parse("--faults", "3s:pause:n1, 3.7s:resume:n1");
        FaultLog log = new FaultLog(plan, List.of(
                new FaultLog.Applied(plan.steps().get(0), 3_050_000_000L, 3_050_100_000L, 42, ""),
                new FaultLog.Applied(plan.steps().get(1), 3_750_000_000L, 3_750_100_000L, 42, "")));
        ScenarioFaultFigures.Section f = ScenarioFaultFigures.of(log, ORIGIN, 6_000_000_000L, b, 1, windows());
        Map<String, Object> p = f.toList().get(0);
        // buckets 130-136: 70 sent, 69 delivered (3 missing in 131, 2 extra in 132), of which 2 duplicates
        assertEquals(69L, p.get("messages_received_in_window"));
        assertEquals(1L, p.get("messages_missing_net"));   // 70 - 69: the duplicates hide 2 of the 3 lost
        assertEquals(3L, p.get("messages_lost"));          // 70 - (69 - 2)
        assertEquals(2L, p.get("messages_duplicated"));
        assertEquals(4L, p.get("messages_reordered"));
        assertTrue(f.consoleLines().get(0).contains("(lost 3, duplicated 2, reordered 4)"), f.consoleLines().get(0));
        Map<String, Object> r = f.toList().get(1);
        assertEquals(0L, r.get("messages_lost"));
        assertEquals(0L, r.get("messages_duplicated"));
        String[] rows = ScenarioFaultFigures.dat(b, ORIGIN).lines().filter(l -> !l.startsWith("#"))
                .toArray(String[]::new);
        assertEquals("3.200 0 10 12 2 0", rows[32]); // in the pause: nothing arrived then
        assertEquals("3.300 0 10 10 0 4", rows[33]);
    }

    @Test
    void fault_bucketsDatHoldsEveryCountFromTheMeasurementsStart() {
        String dat = ScenarioFaultFigures.dat(buckets(), ORIGIN);
        String[] rows = dat.lines().filter(l -> !l.startsWith("#")).toArray(String[]::new);
        assertEquals(60, rows.length);
        assertEquals("0.000 10 10 10 NaN NaN", rows[0]); // no sequences: duplicates and late ones unknown
        assertEquals("3.100 0 10 7 NaN NaN", rows[31]);
        assertEquals("3.800 50 10 10 NaN NaN", rows[38]);
    }

    @Test
    void aFaultInTheFirstSecondHasNoBaselineAndItsRecoveryIsUnknown() {
        FaultPlan plan = FaultPlan.parse("--faults", "0.5s:pause:n1");
        FaultLog log = new FaultLog(plan, List.of(new FaultLog.Applied(plan.steps().get(0), 500_000_000L,
                500_100_000L, 42, "")));
        ScenarioFaultFigures.Section f = ScenarioFaultFigures.of(log, ORIGIN, 6_000_000_000L, buckets(), 1, windows());
        assertNull(f.toList().get(0).get("baseline_msg_s"));
        assertNull(f.toList().get(0).get("throughput_recovered_s"));
        assertTrue(f.consoleLines().get(0).endsWith("throughput back unknown (no whole second before)  p99 back "
                + "unknown (no whole second before)"), f.consoleLines().get(0));
    }

    @Test
    void countsOutsideTheBucketsAreSaidNotDropped() {
        FaultPlan plan = FaultPlan.parse("--faults", "3s:pause:n1, 3.7s:resume:n1");
        FaultLog log = new FaultLog(plan, List.of());
        ScenarioFaultFigures.Buckets plain = buckets();
        assertNull(ScenarioFaultFigures.of(log, ORIGIN, 6_000_000_000L, plain, 1, windows()).note());
        ScenarioFaultFigures.Buckets late = new ScenarioFaultFigures.Buckets(100, W, plain.arrived(), plain.sentDue(),
                plain.gotDue(), new long[0], new long[0], false, 3);
        String note = ScenarioFaultFigures.of(log, ORIGIN, 6_000_000_000L, late, 1, windows()).note();
        assertTrue(note.startsWith("3 counts were stamped outside the agents' buckets"), note);
    }

    @Test
    void fault_bucketsDatSkipsTheBucketsBeforeTheMeasurement() {
        // the same counts with 10 buckets of set-up and warm-up before them (bucket 90 on): rows from bucket 100
        long[] arrived = new long[70];
        long[] sent = new long[70];
        long[] got = new long[70];
        Arrays.fill(arrived, 10, 70, 10);
        Arrays.fill(sent, 10, 70, 10);
        Arrays.fill(got, 10, 70, 10);
        String[] rows = ScenarioFaultFigures.dat(new ScenarioFaultFigures.Buckets(90, W, arrived, sent, got), ORIGIN)
                .lines().filter(l -> !l.startsWith("#")).toArray(String[]::new);
        assertEquals(60, rows.length);
        assertEquals("0.000 10 10 10 NaN NaN", rows[0]);
    }

    @Test
    void aRestartAfterAKillEndsTheKillsOutageAndIsComparedWithTheSecondBeforeIt() {
        // the kill at 3.05 s empties buckets 130-137; the restart at 3.55 s lies inside that outage
        FaultPlan plan = FaultPlan.parse("--faults", "3s:kill:n1, 3.5s:restart:n1");
        FaultLog log = new FaultLog(plan, List.of(
                new FaultLog.Applied(plan.steps().get(0), 3_050_000_000L, 3_050_100_000L, 42, ""),
                new FaultLog.Applied(plan.steps().get(1), 3_550_000_000L, 3_560_000_000L, 0, "")));
        List<Map<String, Object>> f = ScenarioFaultFigures.of(log, ORIGIN, 6_000_000_000L, buckets(), 1, windows())
                .toList();
        Map<String, Object> kill = f.get(0);
        Map<String, Object> restart = f.get(1);
        assertEquals(800.0, (Double) kill.get("unavailable_ms"), 1e-9); // buckets 130-137, across the restart
        assertNull(restart.get("unavailable_ms"));                       // the kill's outage, not counted twice
        assertNull(restart.get("pid"));
        // the restart's baseline is the second before the kill (buckets 120-129: 100 deliveries), not the outage's
        assertEquals(100.0, (Double) restart.get("baseline_msg_s"), 1e-9);
        assertEquals(kill.get("baseline_msg_s"), restart.get("baseline_msg_s"));
        // back when a whole second from the outage's end (3.8 s) is within 10 %: 3.9-4.9 s (138 holds the burst of
        // 50: 3.8-4.8 s has 140), i.e. 4.9 - 3.55 s after the restart
        assertEquals(1.35, (Double) restart.get("throughput_recovered_s"), 1e-9);
    }

    private static long[] fill(int n, long v) {
        long[] a = new long[n];
        Arrays.fill(a, v);
        return a;
    }
}
