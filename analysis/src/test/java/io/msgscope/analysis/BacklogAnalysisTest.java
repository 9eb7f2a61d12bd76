package io.msgscope.analysis;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 31 item 3: each backlog figure computed by hand from a 15-message trace. */
class BacklogAnalysisTest {
    /** base [0,100) messages 0-4, fill [100,200) 5-9 with the consumers paused, drain [200,300) 10-14; ns. */
    static final List<PhaseAnalysis.Frame> FRAMES = List.of(
            new PhaseAnalysis.Frame("base", 0, 100, 0, 5, 0),
            new PhaseAnalysis.Frame("fill", 100, 200, 5, 10, 100),
            new PhaseAnalysis.Frame("drain", 200, 300, 10, 15, 200));
    static final boolean[] PAUSED = {false, true, false};

    /**
     * Origin 1,000: message i is due at 1,000 + 20 i and sent then (message 10 one ns late, at 1,201). base arrives 5
     * ns after its due time (its p99 from the intended time is 5); fill's five arrive at 1,201 .. 1,205, after the
     * resume at 1,200; drain's at 1,210 (10 late), 1,224 (4), 1,246 (6), 1,263 (3), 1,284 (4).
     */
    static Trace trace() {
        long[] intended = new long[15];
        long[] send = new long[15];
        long[] recv = new long[15];
        for (int i = 0; i < 15; i++) {
            intended[i] = 1_000 + 20L * i;
            send[i] = intended[i];
        }
        send[10] = 1_201;
        for (int i = 0; i < 5; i++) {
            recv[i] = intended[i] + 5;
            recv[5 + i] = 1_201 + i;
        }
        long[] drain = {1_210, 1_224, 1_246, 1_263, 1_284};
        System.arraycopy(drain, 0, recv, 10, 5);
        return new Trace(15, send, intended, recv);
    }

    static List<BacklogAnalysis.Episode> analyse(Trace t, boolean[] paused) {
        return BacklogAnalysis.analyse(t, PhaseAnalysis.analyse(t, FRAMES), paused);
    }

    @Test
    void everyFigureOfABacklogByHand() {
        List<BacklogAnalysis.Episode> all = analyse(trace(), PAUSED);
        assertEquals(1, all.size());
        BacklogAnalysis.Episode e = all.get(0);
        assertEquals(1, e.firstPhase());
        assertEquals(1, e.lastPhase());
        assertEquals(100, e.pausedAtNs());
        assertEquals(200, e.resumedAtNs());
        // at 1,100: 6 sent (0-5), 5 received (0-4) = 1; then 1,120 .. 1,180 sends: 5 at 1,180; at 1,201 one more sent
        // and one received (still 5), then only arrivals until 1,220
        assertEquals(5, e.peakMessages());
        assertEquals(180, e.peakAtNs());
        // the messages sent before 1,200 (0-9) all arrived, the last at 1,205
        assertEquals(205, e.drainedAtNs());
        // arrivals in [1,200, 1,205]: 1,201 .. 1,205 = 5 over 5 ns; sends: message 10 at 1,201 = 1 over 5 ns
        assertEquals(5 / 5e-9, e.drainMsgPerSec(), 1e-3);
        assertEquals(1 / 5e-9, e.sendMsgPerSec(), 1e-3);
        // message 10, the one sent during the drain: 1,210 - 1,200 = 10 from its intended time, sent 1 ns late
        assertEquals(1, e.latencyIntended().count());
        assertEquals(10, e.latencyIntended().max());
        assertEquals(1, e.sendLagNs().max());
        // L = base's p99 from the intended time = 5; drain's five messages are all in the first 100 ms window of
        // intended time from the resume, 3 of them within L (13: 3, 11 and 14: 4): its median is within, so caught up
        // at its first arrival, message 10's at 1,210: 10 ns after the resume. Above L: 10 (10) at 1,210 and 12 (6) at
        // 1,246, the last: 46 ns after the resume
        assertEquals(5.0, e.catchUpBoundNs());
        assertEquals(10L, e.catchUpNs());
        assertEquals(46L, e.lastAboveBoundNs());
    }

    @Test
    void nullWhenABacklogMessageIsLostOrTheLastIsLateOrNoPhaseCameBefore() {
        Trace t = trace();
        t.recvNs()[7] = Trace.ABSENT;
        BacklogAnalysis.Episode lost = analyse(t, PAUSED).get(0);
        assertNull(lost.drainedAtNs());
        assertNull(lost.drainMsgPerSec());
        assertTrue(lost.latencyIntended().isEmpty());

        Trace late = trace();
        late.recvNs()[14] = 1_290; // 10 after its intended time: 2 of the window's 5 within L, its median above
        assertNull(analyse(late, PAUSED).get(0).catchUpNs());
        assertEquals(90L, analyse(late, PAUSED).get(0).lastAboveBoundNs());
        Trace lostAfter = trace();
        lostAfter.recvNs()[12] = Trace.ABSENT; // lost: above L, and its arrival is never
        assertEquals(10L, analyse(lostAfter, PAUSED).get(0).catchUpNs()); // 3 of 5 still within
        assertNull(analyse(lostAfter, PAUSED).get(0).lastAboveBoundNs());

        // base paused too: the episode is base + fill, no phase before it, so no bound and no catch-up
        BacklogAnalysis.Episode first = analyse(trace(), new boolean[] {true, true, false}).get(0);
        assertEquals(0, first.firstPhase());
        assertEquals(1, first.lastPhase());
        assertNull(first.catchUpBoundNs());
        assertNull(first.catchUpNs());
        assertNull(first.lastAboveBoundNs());
        assertEquals(0, first.pausedAtNs());
    }

    /** Where the 25 of the 2,500 messages scheduled after the drain (k 500-2999 of drain) arrive above L: 1 %. */
    static final int[] STRAGGLERS = {551, 584, 636, 678, 749, 882, 961, 984, 1060, 1069, 1072, 1077, 1104, 1340, 1447,
        1450, 2110, 2151, 2190, 2334, 2424, 2655, 2693, 2695, 2930};
    static final long MS = 1_000_000L;
    static final long ORIGIN = 1_000 * MS;

    /**
     * A backlog at 1,000 msg/s: base [0, 1) s messages 0-999, fill [1, 2) s paused 1000-1999, drain [2, 5) s 2000-4999
     * (k = i − 2000, due at 2 s + k ms), all sent when due, origin 1 s. base arrives 200 µs late (L = 200 µs); fill's
     * at 2 s + j × 0.5 ms (j = i − 1000: drained at 2.4995 s); drain's k &lt; 500 queued behind it, at 2.5 s + k µs;
     * from k = 500 on 100 µs late, but the {@link #STRAGGLERS} 1 ms late.
     */
    static Trace steady() {
        int n = 5_000;
        long[] intended = new long[n];
        long[] recv = new long[n];
        for (int i = 0; i < n; i++) {
            intended[i] = ORIGIN + i * MS;
            recv[i] = intended[i] + 200_000;
        }
        for (int j = 0; j < 1_000; j++) {
            recv[1_000 + j] = ORIGIN + 2_000 * MS + j * MS / 2;
        }
        for (int k = 0; k < 3_000; k++) {
            int i = 2_000 + k;
            recv[i] = k < 500 ? ORIGIN + 2_500 * MS + k * 1_000L : intended[i] + 100_000;
        }
        for (int k : STRAGGLERS) {
            recv[2_000 + k] = intended[2_000 + k] + MS;
        }
        return new Trace(n, intended.clone(), intended, recv);
    }

    static BacklogAnalysis.Episode steadyEpisode(Trace t) {
        List<PhaseAnalysis.Frame> frames = List.of(new PhaseAnalysis.Frame("base", 0, 1_000 * MS, 0, 1_000, 0),
                new PhaseAnalysis.Frame("fill", 1_000 * MS, 2_000 * MS, 1_000, 2_000, 1_000 * MS),
                new PhaseAnalysis.Frame("drain", 2_000 * MS, 5_000 * MS, 2_000, 5_000, 2_000 * MS));
        return BacklogAnalysis.analyse(t, PhaseAnalysis.analyse(t, frames), PAUSED).get(0);
    }

    /**
     * Issue 31 item 3: the backlog drains at 2.4995 s; the 100 ms windows of intended time from the resume at 2 s hold
     * k 0-99, 100-199, …; windows 0-4 (k &lt; 500, 1.5 ms to 500 ms late) are all above L, every later one has at most
     * 4 of its 100 above: caught up at window 5's first arrival, k = 500 at 2.5001 s, 0.5001 s after the resume — not
     * at the run's end, where "every later message within L" puts it (after straggler 2930: 2.9311 s). The last
     * arrival above L is straggler 2930's, at 2 s + 2,931 ms: 2.931 s after the resume.
     */
    @Test
    void aDrainedBacklogIsCaughtUpAtTheDrainWindowThoughOnePercentStayAboveL() {
        BacklogAnalysis.Episode e = steadyEpisode(steady());
        assertEquals(200_000.0, e.catchUpBoundNs());
        assertEquals(2_499_500_000L, e.drainedAtNs()); // fill's last arrival, 2.4995 s from the origin
        assertEquals(500 * MS + 100_000, e.catchUpNs());
        assertEquals(2_931 * MS, e.lastAboveBoundNs());
    }

    /** Every message after the drain 1 ms late: no window's median is within L: never caught up, null. */
    @Test
    void aRunThatNeverComesBackHasNoCatchUp() {
        Trace t = steady();
        for (int k = 500; k < 3_000; k++) {
            t.recvNs()[2_000 + k] = t.intendedNs()[2_000 + k] + MS;
        }
        BacklogAnalysis.Episode e = steadyEpisode(t);
        assertNull(e.catchUpNs());
        assertEquals(2_999 * MS + MS, e.lastAboveBoundNs()); // the last message, 1 ms late
    }

    /**
     * Lost messages count as above L: window 5 (k 500-599) with 50 of its 100 lost (k 550-599) still has half within,
     * its nearest-rank median within (caught up at 0.5001 s as before); with 51 lost (k 549-599) its median is above,
     * and the catch-up is window 6's first arrival, k = 600 at 2.6001 s. With a message lost the last arrival above L
     * is never: null.
     */
    @Test
    void aLostMessageCountsAboveTheBound() {
        Trace half = steady();
        Trace more = steady();
        for (int k = 549; k < 600; k++) {
            more.recvNs()[2_000 + k] = Trace.ABSENT;
            half.recvNs()[2_000 + k] = k == 549 ? half.recvNs()[2_000 + k] : Trace.ABSENT;
        }
        assertEquals(500 * MS + 100_000, steadyEpisode(half).catchUpNs());
        assertEquals(600 * MS + 100_000, steadyEpisode(more).catchUpNs());
        assertNull(steadyEpisode(more).lastAboveBoundNs());
    }

    /** The rule itself: from the end back over the windows with messages (null: none, skipped) while within. */
    @Test
    void theFirstCaughtUpWindowSkipsEmptyOnes() {
        Boolean t = Boolean.TRUE;
        Boolean f = Boolean.FALSE;
        assertEquals(1, CatchUp.firstCaughtUp(new Boolean[] {f, t, null, t, null}));
        assertEquals(3, CatchUp.firstCaughtUp(new Boolean[] {t, f, null, t}));
        assertEquals(-1, CatchUp.firstCaughtUp(new Boolean[] {t, t, f, null}));
        assertEquals(-1, CatchUp.firstCaughtUp(new Boolean[] {null, null}));
        assertTrue(CatchUp.medianWithin(2, 4)); // the value at rank 2 of 4 is the second within
        assertTrue(CatchUp.medianWithin(2, 3));
        assertTrue(!CatchUp.medianWithin(1, 3));
        assertTrue(!CatchUp.medianWithin(0, 1));
    }

    @Test
    void thePeakCountsTiesAsOneInstant() {
        long[] sends = {1, 2, 3, 3};
        long[] recvs = {3, 4};
        // at 0: 0; 1: 1; 2: 2; 3: 4 sent, 1 received = 3; 4: 2
        assertEquals(3, BacklogAnalysis.peak(sends, recvs, 0, Long.MAX_VALUE)[0]);
        assertEquals(3, BacklogAnalysis.peak(sends, recvs, 0, Long.MAX_VALUE)[1]);
        assertEquals(2, BacklogAnalysis.peak(sends, recvs, 0, 3)[0]); // the window ends before 3
    }

    /**
     * The broker's reads beside the tool's count: at 1,150 sent 8 (0-7), received 5 = 3; at 1,190 10 - 5 = 5; at
     * 1,203 11 - 8 = 3. Reads of 2, 5 and 4: in the episode's window from 100 (origin 1,000) all three, the largest
     * depth 5, the largest disagreement |4 - 3| = 1 (and |2 - 3| = 1); in [0, 195) the first two.
     */
    @Test
    void theBrokersReadsAgainstTheToolsCountInFlight() {
        long[] at = {1_150, 1_190, 1_203};
        long[] depth = {2, 5, 4};
        long[] inFlight = BacklogAnalysis.inFlightAt(trace(), at, 3);
        assertEquals(3, inFlight[0]);
        assertEquals(5, inFlight[1]);
        assertEquals(3, inFlight[2]);
        long[] a = BacklogAnalysis.agreement(1_000, at, depth, null, inFlight, 3, 100, Long.MAX_VALUE, 0);
        assertEquals(3, a[0]);
        assertEquals(5, a[1]);
        assertEquals(1, a[2]);
        assertEquals(2, BacklogAnalysis.agreement(1_000, at, depth, null, inFlight, 3, 0, 195, 0)[0]);
        assertNull(BacklogAnalysis.agreement(1_000, at, depth, null, inFlight, 3, 300, 400, 0));
        assertEquals(Long.MAX_VALUE, analyse(trace(), PAUSED).get(0).windowEndNs());
    }

    /**
     * The broker counts what it accepted: confirmed counts read at 1,100 (5), 1,140 (6) and 1,195 (9). At the read at
     * 1,150 the last confirmed count is 1,140's 6, received by then 5 (0-4): 1 accepted in flight, where sent − received
     * said 3; at 1,190 still 6 − 5 = 1 (sent − received 5); at 1,203 1,195's 9 less 8 received (0-4, 1,201-1,203) = 1.
     * A read before the first confirmed count (1,090) takes 0 confirmed: 0 − 5 = −5.
     */
    @Test
    void theAcceptedCountIsConfirmedLessReceivedAtTheLastConfirmedReadBefore() {
        long[] confirmNs = {1_100, 1_140, 1_195, 0};
        long[] confirmed = {5, 6, 9, 0};
        long[] at = {1_090, 1_150, 1_190, 1_203};
        long[] accepted = BacklogAnalysis.acceptedInFlightAt(trace(), confirmNs, confirmed, 3, at, 4);
        assertEquals(-5, accepted[0]);
        assertEquals(1, accepted[1]);
        assertEquals(1, accepted[2]);
        assertEquals(1, accepted[3]);
    }

    /**
     * A read agrees anywhere in [confirmed − received − held, sent − received]: the broker may already count what was
     * sent and not yet confirmed, and leaves out the up to {@code held} messages a paused consumer holds. Outside, its
     * distance to the interval. Reads 1, 9, 4 against sent − received 3, 5, 3 and confirmed − received 3, 4, 2: with no
     * confirms (accepted = sent) and nothing held, |1 − 3| = 2, |9 − 5| = 4, |4 − 3| = 1: 4; with the confirms and up to
     * 2 held, [1, 3], [2, 5], [0, 3]: 0, 4, 1: still 4, and the widest sent − confirmed is 1.
     */
    @Test
    void aReadAgreesBetweenWhatWasConfirmedLessWhatIsHeldAndWhatWasSent() {
        assertEquals(0, BacklogAnalysis.disagreement(5, 6, 6, 2));
        assertEquals(0, BacklogAnalysis.disagreement(4, 6, 6, 2));
        assertEquals(1, BacklogAnalysis.disagreement(3, 6, 6, 2));
        assertEquals(1, BacklogAnalysis.disagreement(7, 6, 6, 2));
        assertEquals(3, BacklogAnalysis.disagreement(3, 6, 6, 0));
        assertEquals(3, BacklogAnalysis.disagreement(9, 6, 6, 0));
        assertEquals(0, BacklogAnalysis.disagreement(9, 4, 10, 0)); // sent, not yet confirmed: may be counted
        assertEquals(2, BacklogAnalysis.disagreement(2, 4, 10, 0)); // below what was surely accepted
        long[] at = {1_150, 1_190, 1_203};
        long[] depth = {1, 9, 4};
        long[] sent = {3, 5, 3};
        long[] confirmed = {3, 4, 2};
        long[] plain = BacklogAnalysis.agreement(1_000, at, depth, null, sent, 3, 0, Long.MAX_VALUE, 0);
        assertEquals(4, plain[2]);
        assertEquals(0, plain[3]);
        long[] held = BacklogAnalysis.agreement(1_000, at, depth, confirmed, sent, 3, 0, Long.MAX_VALUE, 2);
        assertEquals(4, held[2]);
        assertEquals(1, held[3]);
        assertEquals(1, BacklogAnalysis.agreement(1_000, at, new long[] {1, 5, 4}, confirmed, sent, 3, 0,
                Long.MAX_VALUE, 2)[2]);
    }
}
