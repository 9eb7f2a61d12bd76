package io.msgscope.coordinator.faults;

import io.msgscope.analysis.PausedTraces;
import io.msgscope.analysis.Trace;
import io.msgscope.core.fault.FaultPlan;
import io.msgscope.core.fault.FaultStep;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * summary.json's {@code faults}, faults.dat and the plots' lines from a hand-built trace (issue 32): the figures are
 * FaultAnalysisTest's, here in their units and places.
 */
class FaultSectionTest {
    private static final long MS = PausedTraces.MS;
    private static final long T0 = 7_000 * MS;

    /** 40 messages at 10 msg/s, 1 ms each, except 15-25 held until 2.506 s by a pause (20 lost). */
    private static Trace trace() {
        return PausedTraces.paused(T0);
    }

    private static FaultSection section() {
        FaultPlan plan = FaultPlan.parse("--faults", "1.5s:pause:n1, 2.5s:resume:n1, 3.5s:pause:n1, 3.6s:resume:n1");
        List<FaultStep> s = plan.steps();
        // the probe's clock is 5 ms ahead of the receiver's: its stamps come back moved by that
        long probeAhead = 5 * MS;
        List<io.msgscope.proto.FaultApplied> reported = List.of(
                applied(s.get(0), T0 + 1_500 * MS + MS / 2 + probeAhead),
                applied(s.get(1), T0 + 2_505 * MS + probeAhead));
        return FaultSection.of(FaultLog.of(plan, reported, probeAhead), trace());
    }

    private static io.msgscope.proto.FaultApplied applied(FaultStep s, long at) {
        return io.msgscope.proto.FaultApplied.newBuilder().setStep(io.msgscope.proto.FaultStep.newBuilder()
                .setAtNs(s.atNs()).setAction(s.action().label()).setTarget(s.target())).setAppliedNs(at)
                .setDoneNs(at + 20_000).setPid(4242).build();
    }

    /**
     * issue 32 item 3: message 20, lost in the first pause's window, had been confirmed (the publisher's unconfirmed
     * range [30, 31) leaves it out): one guarantee violation there, none in the other windows; without a guarantee,
     * null and nothing said.
     */
    @Test
    void aLostConfirmedMessageIsAViolationOfItsFault() {
        FaultSection plain = section();
        FaultPlan plan = FaultPlan.parse("--faults", "1.5s:pause:n1, 2.5s:resume:n1, 3.5s:pause:n1, 3.6s:resume:n1");
        List<FaultStep> s = plan.steps();
        long probeAhead = 5 * MS;
        FaultSection judged = FaultSection.of(FaultLog.of(plan, List.of(
                applied(s.get(0), T0 + 1_500 * MS + MS / 2 + probeAhead),
                applied(s.get(1), T0 + 2_505 * MS + probeAhead)), probeAhead), trace(),
                new io.msgscope.analysis.Guarantee(true, new long[] {30, 31}));
        assertEquals(1L, judged.toList().get(0).get("guarantee_violations"));
        assertEquals(0L, judged.toList().get(1).get("guarantee_violations"));
        assertNull(plain.toList().get(0).get("guarantee_violations"));
        assertTrue(judged.consoleLines().get(0).contains("lost 1  reordered 0  guarantee violations 1  in flight"),
                judged.consoleLines().get(0));
        assertTrue(judged.consoleLines(true).get(0).contains("guarantee violations \u001b[31m1\u001b[0m"));
        assertFalse(plain.consoleLines().get(0).contains("guarantee"), plain.consoleLines().get(0));
    }

    @Test
    void eachFaultInItsUnits() {
        List<Map<String, Object>> f = section().toList();
        assertEquals(4, f.size());
        Map<String, Object> pause = f.get(0);
        assertEquals("pause", pause.get("action"));
        assertEquals("n1", pause.get("target"));
        assertEquals(1.5, pause.get("planned_s"));
        assertEquals(1.5005, pause.get("applied_s"));
        assertEquals(0.5, pause.get("lag_ms"));
        assertEquals(4242L, pause.get("pid"));
        assertNull(pause.get("error"));
        assertEquals(1.401, pause.get("unavailable_from_s"));
        assertEquals(2.506, pause.get("unavailable_to_s"));
        assertEquals(1105.0, pause.get("unavailable_ms"));
        assertEquals(10L, pause.get("messages_sent_in_window")); // 16-25
        assertEquals(1L, pause.get("messages_lost"));
        assertNull(pause.get("messages_duplicated"));
        assertEquals(0L, pause.get("messages_reordered"));
        assertEquals(1L, pause.get("messages_in_flight")); // 15
        @SuppressWarnings("unchecked")
        Map<String, Object> lat = (Map<String, Object>) pause.get("in_flight_latency_from_intended");
        assertEquals(1_006_000.0, lat.get("latency_max_us")); // 2.506 - 1.5 s
        assertEquals(10.0, pause.get("baseline_msg_s"));
        assertEquals(1_000.0, pause.get("baseline_p99_from_intended_us"));
        // the first second from 2.506 s on the 100 ms grid, [2.6005, 3.6005): messages 26-35, 10 msg/s at 1 ms
        assertEquals(2.1, (Double) pause.get("throughput_recovered_s"), 1e-12);
        assertEquals(2.1, (Double) pause.get("p99_recovered_s"), 1e-12);
        Map<String, Object> resume = f.get(1);
        assertNull(resume.get("unavailable_ms"));
        assertEquals(2.505, resume.get("applied_s"));
        Map<String, Object> never = f.get(2);
        assertEquals("not applied: the run ended first", never.get("error"));
        assertNull(never.get("applied_s"));
        assertNull(never.get("lag_ms"));
        assertNull(never.get("messages_in_flight"));
        assertNull(never.get("messages_lost"));
    }

    @Test
    void faultsDatAndThePlotLinesSitAtTheMessageDueThen() {
        FaultSection s = section();
        // 1.5005 s: the first message due at or after it is 16 (1.6 s); 2.505 s: 26
        assertEquals(List.of(new io.msgscope.analysis.output.GnuplotScripts.FaultLine("1.5s:pause:n1", 16),
                new io.msgscope.analysis.output.GnuplotScripts.FaultLine("2.5s:resume:n1", 26)), s.lines());
        List<String> rows = s.dat().lines().filter(l -> !l.startsWith("#")).toList();
        assertEquals(List.of("0 1.500000000 1.500500000 0.500 16 pause n1", "1 2.500000000 2.505000000 5.000 26 resume n1",
                "2 3.500000000 NaN NaN -1 pause n1", "3 3.600000000 NaN NaN -1 resume n1"), rows);
        // 1.5005 s is printed to the ms as 1.501 (the double just above 1.5005)
        assertEquals(List.of(
                "  fault 1.5s:pause:n1            applied 1.501 s (+0.5 ms)  unavailable 1105.0 ms  lost 1  reordered 0  "
                        + "in flight 1  throughput back after 2.1 s  p99 back after 2.1 s",
                "  fault 2.5s:resume:n1           applied 2.505 s (+5.0 ms)  unavailable -  lost 0  reordered 0  "
                        + "in flight 11  throughput back after 1.1 s  p99 back after 1.1 s",
                "  fault 3.5s:pause:n1            not applied",
                "  fault 3.6s:resume:n1           not applied"), s.consoleLines());
    }

    /** A fault in the run's first second has no whole second before it: its recovery is unknown, not "never". */
    @Test
    void aRecoveryWithoutABaselineIsUnknownNotNever() {
        FaultPlan plan = FaultPlan.parse("--faults", "0.5s:pause:n1, 2.5s:resume:n1");
        List<FaultStep> s = plan.steps();
        FaultSection early = FaultSection.of(FaultLog.of(plan, List.of(applied(s.get(0), T0 + 500 * MS),
                applied(s.get(1), T0 + 2_505 * MS)), 0), trace());
        assertNull(early.toList().get(0).get("baseline_msg_s"));
        for (String line : early.consoleLines()) {
            assertTrue(line.contains("throughput back unknown (no whole second before)  p99 back unknown"), line);
        }
        // with a baseline and a recovery: the time
        assertTrue(section().consoleLines().get(0).contains("throughput back after 2.1 s"),
                section().consoleLines().get(0));
    }
}
