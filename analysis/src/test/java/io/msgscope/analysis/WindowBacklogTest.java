package io.msgscope.analysis;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A backlog from poll windows (issue 31 item 3, scenario mode), every figure by hand. Phases base [0, 2) s,
 * fill [2, 4) s paused, drain [4, 7) s; seven 1-s windows, two per phase but three in drain. Sends (each expected once)
 * 1000, 1000, 2000, 2000, 1000, 1000, 1000; deliveries 998, 1002, 0, 0, 3000, 2000, 2000. Expected so far 1000, 2000,
 * 4000, 6000, 7000, 8000, 9000; delivered so far 998, 2000, 2000, 2000, 5000, 7000, 9000; in flight at each end 2, 0,
 * 2000, 4000, 2000, 1000, 0.
 */
class WindowBacklogTest {
    private static final long S = 1_000_000_000L;
    private static final long[] START = {0, 2 * S, 4 * S};
    private static final long[] END = {2 * S, 4 * S, 7 * S};
    private static final boolean[] PAUSED = {false, true, false};

    private static WindowBacklog.Windows windows(Double... median) {
        long[] from = new long[7];
        long[] to = new long[7];
        for (int k = 0; k < 7; k++) {
            from[k] = k * S;
            to[k] = (k + 1) * S;
        }
        long[] sent = {1000, 1000, 2000, 2000, 1000, 1000, 1000};
        return new WindowBacklog.Windows(from, to, new int[] {0, 0, 1, 1, 2, 2, 2}, sent, sent.clone(),
                new long[] {998, 1002, 0, 0, 3000, 2000, 2000}, median);
    }

    @Test
    void peakDrainAndCatchUpByHand() {
        // each window's median from the intended time: 150 µs, 200 µs, none (paused), the backlog's 5 ms and 300 µs,
        // then 150 µs; the bound (base's p99) 200 µs
        WindowBacklog.Windows w = windows(150e3, 200e3, null, null, 5e6, 300e3, 150e3);
        assertArrayEquals(new long[] {2, 0, 2000, 4000, 2000, 1000, 0}, w.inFlight());
        List<WindowBacklog.Episode> e = WindowBacklog.analyse(w, START, END, PAUSED, new Double[] {200e3, null, null});
        assertEquals(1, e.size());
        WindowBacklog.Episode x = e.get(0);
        assertEquals(1, x.firstPhase());
        assertEquals(1, x.lastPhase());
        assertEquals(2 * S, x.pausedAtNs());
        assertEquals(4 * S, x.resumedAtNs());
        assertEquals(Long.MAX_VALUE, x.windowEndNs());
        assertEquals(4000, x.peakMessages()); // at the end of window 3, 4 s
        assertEquals(4 * S, x.peakAtNs());
        // 6,000 expected by the paused phases' last window; delivered so far 5,000 after window 4, 7,000 after 5
        assertEquals(6 * S, x.drainedAtNs());
        assertEquals(4, x.drainFrom());
        assertEquals(5, x.drainTo());
        assertEquals((3000 + 2000) / 2.0, x.drainMsgPerSec(), 1e-9); // over windows 4-5, 4 s to 6 s
        assertEquals((1000 + 1000) / 2.0, x.sendMsgPerSec(), 1e-9);
        assertEquals(200e3, x.catchUpBoundNs());
        // medians of windows 4 (5 ms) and 5 (300 µs) above 200 µs, 6 within: caught up at window 6's start, 6 s, 2 s
        // after 4 s
        assertEquals(2 * S, x.catchUpNs());
    }

    @Test
    void aLastWindowAboveTheBoundOrNoBoundOrNothingDrainedIsUnknown() {
        WindowBacklog.Windows late = windows(150e3, 200e3, null, null, 5e6, 100e3, 300e3);
        assertNull(WindowBacklog.analyse(late, START, END, PAUSED, new Double[] {200e3, null, null}).get(0).catchUpNs());
        WindowBacklog.Windows w = windows(150e3, 200e3, null, null, 5e6, 100e3, 100e3);
        // window 5 within, 6 within: caught up at window 5's start, 1 s after the resume
        assertEquals(S, WindowBacklog.analyse(w, START, END, PAUSED, new Double[] {200e3, null, null}).get(0)
                .catchUpNs());
        assertNull(WindowBacklog.analyse(w, START, END, PAUSED, new Double[] {null, null, null}).get(0).catchUpNs());
        // the drain delivers too few: 1,000 a window, 5,000 by the last, never the 6,000 expected by the resume
        long[] fewer = {998, 1002, 0, 0, 1000, 1000, 1000};
        WindowBacklog.Windows short1 = new WindowBacklog.Windows(w.startNs(), w.endNs(), w.phase(), w.sent(),
                w.expected(), fewer, w.medianNs());
        WindowBacklog.Episode x = WindowBacklog.analyse(short1, START, END, PAUSED, new Double[] {200e3, null, null})
                .get(0);
        assertNull(x.drainedAtNs());
        assertNull(x.drainMsgPerSec());
        assertNull(x.sendMsgPerSec());
        assertEquals(-1, x.drainTo());
    }

    /**
     * A longer drain, phases base [0, 2) s, fill [2, 4) s paused, drain [4, 12) s, one window a second: the backlog's
     * window 4 (median 5 ms) above the bound of 200 µs, then medians 150, 180, 200 µs (equal: within), none (window 8
     * delivered nothing: skipped), 190, 120, 170 µs. In steady state a window's p99 is above the bound about half the
     * time (the bound is itself a p99), its median well within: caught up at window 5's start, 1 s after the resume.
     * With the last window's median at 250 µs the run never came back: null. A window above the bound before an empty
     * one and within ones after it: caught up after it.
     */
    @Test
    void aLongDrainIsCaughtUpAtTheFirstWindowFromWhichEveryMedianIsWithin() {
        long[] start = {0, 2 * S, 4 * S};
        long[] end = {2 * S, 4 * S, 12 * S};
        Double[] bound = {200e3, null, null};
        Double[] medians = {150e3, 200e3, null, null, 5e6, 150e3, 180e3, 200e3, null, 190e3, 120e3, 170e3};
        assertEquals(S, WindowBacklog.analyse(longWindows(medians), start, end, PAUSED, bound).get(0).catchUpNs());
        Double[] never = medians.clone();
        never[11] = 250e3;
        assertNull(WindowBacklog.analyse(longWindows(never), start, end, PAUSED, bound).get(0).catchUpNs());
        Double[] late = medians.clone();
        late[7] = 210e3; // above, then window 8 empty, then 9-11 within: caught up at window 9's start, 9 s
        assertEquals(5 * S, WindowBacklog.analyse(longWindows(late), start, end, PAUSED, bound).get(0).catchUpNs());
    }

    /** Twelve 1-s windows of phases 0, 0, 1, 1, 2 … 2, 1,000 sent and delivered in each but the paused and window 8. */
    private static WindowBacklog.Windows longWindows(Double[] medians) {
        int m = medians.length;
        long[] from = new long[m];
        long[] to = new long[m];
        int[] phase = new int[m];
        long[] sent = new long[m];
        long[] received = new long[m];
        for (int k = 0; k < m; k++) {
            from[k] = k * S;
            to[k] = (k + 1) * S;
            phase[k] = k < 2 ? 0 : k < 4 ? 1 : 2;
            sent[k] = 1000;
            received[k] = k == 2 || k == 3 || k == 8 ? 0 : k == 4 ? 3000 : 1000;
        }
        return new WindowBacklog.Windows(from, to, phase, sent, sent.clone(), received, medians);
    }

    @Test
    void aDrainAtZeroHasNoCatchUpAndTheToolCountTrailsTheReads() {
        long[] sent = {1000, 1000, 2000, 2000, 0, 0, 0};
        WindowBacklog.Windows w = windows(150e3, 200e3, null, null, 5e6, 300e3, null);
        WindowBacklog.Windows zero = new WindowBacklog.Windows(w.startNs(), w.endNs(), w.phase(), sent, sent.clone(),
                new long[] {998, 1002, 0, 0, 3000, 1000, 0}, w.medianNs());
        WindowBacklog.Episode x = WindowBacklog.analyse(zero, START, END, PAUSED, new Double[] {200e3, null, null})
                .get(0);
        assertNull(x.catchUpNs()); // nothing sent after the pause
        assertEquals(6 * S, x.drainedAtNs()); // 6,000 by window 5
        assertEquals(0.0, x.sendMsgPerSec());
        // reads at 0.5 s (before any window's end), 3 s (window 2's end, 2,000), 3.9 s (still window 2's), 9 s (the last)
        assertArrayEquals(new long[] {0, 2000, 2000, 0}, WindowBacklog.inFlightAt(zero,
                new long[] {S / 2, 3 * S, 3_900_000_000L, 9 * S}, 4));
    }
}
