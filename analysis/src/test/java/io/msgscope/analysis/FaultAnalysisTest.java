package io.msgscope.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

import java.util.List;

/** Every figure of {@link FaultAnalysis} on a trace built by hand, the expected values worked out in the comments. */
class FaultAnalysisTest {
    private static final long MS = PausedTraces.MS;
    private static final long T0 = 5_000 * MS; // the origin on the trace's clock

    /**
     * 40 messages at 10 msg/s (message i due and sent at i × 100 ms), each received 1 ms later, except around a pause
     * applied at 1.5005 s and resumed at 2.505 s: messages 15-19 and 23-25 arrive at 2.506 s, 22 at 2.5065 s, 21 at
     * 2.507 s, 20 never.
     */
    private static Trace paused() {
        return PausedTraces.pausedReordered(T0);
    }

    private static final FaultAnalysis.Event PAUSE = new FaultAnalysis.Event("1.5s:pause:n1", 1_500 * MS, 1_500 * MS + MS / 2,
            true, 1_500 * MS + MS / 2);
    private static final FaultAnalysis.Event RESUME = new FaultAnalysis.Event("2.5s:resume:n1", 2_500 * MS, 2_505 * MS,
            false, 1_500 * MS + MS / 2);

    @Test
    void pauseCostsItsWindow() {
        FaultAnalysis.Figures f = FaultAnalysis.analyse(paused(), List.of(PAUSE, RESUME)).get(0);
        assertEquals(MS / 2, f.lagNs());
        // last delivery before: message 14 at 1.401 s; first after: 2.506 s
        assertEquals(1_401 * MS, f.lastBeforeNs());
        assertEquals(2_506 * MS, f.firstAfterNs());
        assertEquals(1_105 * MS, f.unavailableNs());
        assertEquals(2_505 * MS, f.windowEndNs());
        // sent in [1.5005, 2.505): messages 16-25; 20 lost; 22 and 21 arrived after 23 (higher sequences): reordered
        assertEquals(10L, f.sentInWindow());
        assertEquals(1L, f.lost());
        assertEquals(2L, f.reordered());
        // in flight at 1.5005 s: message 15 only (sent 1.5 s, received 2.506 s): 1.006 s from its intended time
        assertEquals(1, f.inFlight());
        assertEquals(1_006 * MS, f.inFlightLatencyNs().max(), 0);
        // baseline [0.5005, 1.5005): messages 5-14 = 10 msg/s, all at 1 ms
        assertEquals(10.0, f.baselineMsgPerSec(), 1e-12);
        assertEquals(1.0 * MS, f.baselineP99Ns(), 0);
        // windows [1.5005 + k × 0.1 s, + 1 s) that start at or after the first delivery after (2.506 s): k >= 11;
        // k = 11, [2.6005, 3.6005), holds messages 26-35 at 1 ms: 10 msg/s and p99 1 ms, back 2.6005 + 1 - 1.5005 =
        // 2.1 s after the pause (k = 1, [1.6005, 2.6005), also held 10 — the burst of stuck ones — and does not count)
        assertEquals(2_100 * MS, f.throughputRecoveredNs());
        assertEquals(2_100 * MS, f.p99RecoveredNs());
    }

    @Test
    void resumeOpensNoWindowAndTakesThePausesBaseline() {
        FaultAnalysis.Figures f = FaultAnalysis.analyse(paused(), List.of(PAUSE, RESUME)).get(1);
        assertEquals(5 * MS, f.lagNs());
        assertNull(f.unavailableNs());
        // its window runs to the last arrival, 3.901 s: messages 26-39 sent in it, none lost or reordered
        assertEquals(3_901 * MS, f.windowEndNs());
        assertEquals(14L, f.sentInWindow());
        assertEquals(0L, f.lost());
        assertEquals(0L, f.reordered());
        // in flight at 2.505 s: 15-25, 11 messages, 20 lost; the longest from intended: 15, 2.506 - 1.5 s
        assertEquals(11, f.inFlight());
        assertEquals(10, f.inFlightLatencyNs().count());
        assertEquals(1_006 * MS, f.inFlightLatencyNs().max(), 0);
        // the smallest: 25, 2.506 - 2.5 s
        assertEquals(6 * MS, f.inFlightLatencyNs().min(), 0);
        assertEquals(10.0, f.baselineMsgPerSec(), 1e-12);
        // windows from 2.505 s: k = 0 holds 19; k = 1, [2.605, 3.605), holds 27-36, 10 at 1 ms: 1.1 s
        assertEquals(1_100 * MS, f.throughputRecoveredNs());
        assertEquals(1_100 * MS, f.p99RecoveredNs());
    }

    @Test
    void aRestartDuringItsKillsOutageRecoversOnlyAfterThatOutageEnds() {
        // the same trace read as a kill at 1.5005 s and a restart at 1.6005 s, inside the outage (to 2.506 s)
        FaultAnalysis.Event kill = new FaultAnalysis.Event("1.5s:kill:n1", 1_500 * MS, 1_500 * MS + MS / 2, true,
                1_500 * MS + MS / 2);
        FaultAnalysis.Event restart = new FaultAnalysis.Event("1.6s:restart:n1", 1_600 * MS, 1_600 * MS + MS / 2,
                false, 1_500 * MS + MS / 2, 0);
        FaultAnalysis.Figures f = FaultAnalysis.analyse(paused(), List.of(kill, restart)).get(1);
        assertNull(f.unavailableNs()); // the kill's outage, not counted twice
        assertEquals(10.0, f.baselineMsgPerSec(), 1e-12); // the second before the kill, not the outage's
        // [1.6005, 2.6005) holds the 10 stuck messages that arrive together at 2.506-2.507 s: 10 msg/s, but inside
        // the outage; the first window from its end (2.506 s) on is k = 10, [2.6005, 3.6005), messages 26-35 at 1 ms:
        // back 3.6005 - 1.6005 = 2.0 s after the restart
        assertEquals(2_000 * MS, f.throughputRecoveredNs());
        assertEquals(2_000 * MS, f.p99RecoveredNs());
        // without the opener (a fault ending nothing it knows of) the burst would pass for the recovery, 1.0 s
        FaultAnalysis.Event alone = new FaultAnalysis.Event("1.6s:restart:n1", 1_600 * MS, 1_600 * MS + MS / 2,
                false, 1_500 * MS + MS / 2);
        assertEquals(1_000 * MS, FaultAnalysis.analyse(paused(), List.of(kill, alone)).get(1).throughputRecoveredNs());
    }

    @Test
    void unknownWhenNotAppliedOrNoBaseline() {
        FaultAnalysis.Event early = new FaultAnalysis.Event("0.5s:pause:n1", 500 * MS, 500 * MS, true, 500 * MS);
        FaultAnalysis.Event never = new FaultAnalysis.Event("3s:pause:n1", 3_000 * MS, null, true, null);
        List<FaultAnalysis.Figures> f = FaultAnalysis.analyse(paused(), List.of(early, never));
        assertNull(f.get(0).baselineMsgPerSec()); // no whole second before it
        assertNull(f.get(0).throughputRecoveredNs());
        assertNull(f.get(1).lagNs());
        assertNull(f.get(1).lost());
        assertNull(f.get(1).unavailableNs());
    }
}
