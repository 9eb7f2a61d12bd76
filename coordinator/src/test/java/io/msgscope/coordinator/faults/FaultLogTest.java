package io.msgscope.coordinator.faults;

import io.msgscope.core.fault.FaultPlan;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How both modes read a plan's steps (issue 32): which open an outage, which end one, and their baselines. */
class FaultLogTest {
    private static FaultLog.Applied at(FaultPlan plan, int k, long ns) {
        return new FaultLog.Applied(plan.steps().get(k), ns, ns + 1_000, 7, "");
    }

    @Test
    void aRestartAfterAKillEndsItsOutageAndARestartOfARunningTargetOpensOne() {
        FaultPlan plan = FaultPlan.parse("--faults", "1s:kill:a, 2s:restart:a, 3s:restart:a, 4s:pause:b, 5s:resume:b");
        FaultLog log = new FaultLog(plan, List.of(at(plan, 0, 1_100), at(plan, 1, 2_200), at(plan, 2, 3_300),
                at(plan, 3, 4_400), at(plan, 4, 5_500)));
        List<FaultLog.Step> s = log.steps(100L);
        assertTrue(s.get(0).opens());
        assertEquals(1_000L, s.get(0).atNs()); // 1,100 less the origin
        assertEquals(1_000L, s.get(0).baselineNs());
        assertNull(s.get(0).opener());
        // the restart ends the kill's outage: the kill's baseline, the kill as its opener
        assertFalse(s.get(1).opens());
        assertEquals(2_100L, s.get(1).atNs());
        assertEquals(1_000L, s.get(1).baselineNs());
        assertEquals(0, s.get(1).opener());
        // a restart of the running target is a fault of its own
        assertTrue(s.get(2).opens());
        assertEquals(3_200L, s.get(2).baselineNs());
        assertNull(s.get(2).opener());
        assertTrue(s.get(3).opens());
        assertFalse(s.get(4).opens());
        assertEquals(4_300L, s.get(4).baselineNs());
        assertEquals(3, s.get(4).opener());
    }

    @Test
    void unknownTimesStayNull() {
        FaultPlan plan = FaultPlan.parse("--faults", "1s:kill:a, 2s:restart:a");
        FaultLog failed = new FaultLog(plan, List.of(new FaultLog.Applied(plan.steps().get(0), 1_000, 1_000L, 0,
                "no such process")));
        List<FaultLog.Step> s = failed.steps(0L);
        assertNull(s.get(0).atNs());        // failed: no time
        assertNull(s.get(1).applied());     // the run ended first
        assertNull(s.get(1).baselineNs());  // its opener has no time either
        assertFalse(s.get(1).opens());
        FaultLog ok = new FaultLog(plan, List.of(at(plan, 0, 1_000)));
        assertNull(ok.steps(null).get(0).atNs()); // the origin unknown
        assertEquals(ok.applied().get(0), ok.applied(plan.steps().get(0)));
        assertNull(ok.applied(plan.steps().get(1)));
    }
}
