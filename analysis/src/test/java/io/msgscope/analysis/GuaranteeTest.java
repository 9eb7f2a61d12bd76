package io.msgscope.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import java.util.List;

/** Guarantee violations (issue 32 item 3) on a trace built by hand. */
class GuaranteeTest {
    private static final long MS = 1_000_000L;

    /**
     * 20 messages at 10 msg/s from t=0, each received 1 ms later, except 5, 6, 7, 12 and 19 never. The publisher never
     * had 6, 7 and 19 confirmed (unconfirmed ranges [6, 8) and [19, 20)), so 5 and 12 are confirmed and lost.
     */
    private static Trace trace() {
        int n = 20;
        long[] send = new long[n];
        long[] recv = new long[n];
        for (int i = 0; i < n; i++) {
            send[i] = i * 100 * MS;
            recv[i] = send[i] + MS;
        }
        for (int i : new int[] {5, 6, 7, 12, 19}) {
            recv[i] = Trace.ABSENT;
        }
        return new Trace(n, send, send.clone(), recv);
    }

    private static final Guarantee G = new Guarantee(true, new long[] {6, 8, 19, 20});

    @Test
    void confirmedIsOutsideTheRanges() {
        assertTrue(G.confirmed(0));
        assertTrue(G.confirmed(5));
        assertFalse(G.confirmed(6));
        assertFalse(G.confirmed(7));
        assertTrue(G.confirmed(8));
        assertTrue(G.confirmed(18));
        assertFalse(G.confirmed(19));
        assertTrue(new Guarantee(true, new long[0]).confirmed(3));
    }

    @Test
    void lostConfirmedMessagesAreViolations() {
        assertEquals(2L, G.violations(trace())); // 5 and 12
        assertEquals(1L, G.violations(trace(), 0, 10)); // 5
        // nothing lost: none, whatever was confirmed
        Trace whole = new Trace(1, new long[] {0}, new long[] {0}, new long[] {MS});
        assertEquals(0L, new Guarantee(true, new long[0]).violations(whole));
    }

    @Test
    void noGuaranteeOrUnknownRangesAreNull() {
        assertNull(Guarantee.NONE.violations(trace()));
        assertNull(new Guarantee(true, null).violations(trace()));
    }

    @Test
    void eachFaultCountsItsWindow() {
        // a kill applied at 0.45 s, a restart at 1.05 s: windows [0.45, 1.05) = messages 5-10, and [1.05, 1.801) up to
        // the last delivery (message 18 at 1.801 s) = 11-18: 19, sent at 1.9 s, is outside both
        List<FaultAnalysis.Event> events = List.of(
                new FaultAnalysis.Event("0.45s:kill:n", 450 * MS, 450 * MS, true, 450 * MS),
                new FaultAnalysis.Event("1.05s:restart:n", 1_050 * MS, 1_050 * MS, true, 1_050 * MS));
        List<FaultAnalysis.Figures> f = FaultAnalysis.analyse(trace(), events, G);
        assertEquals(3L, f.get(0).lost()); // 5, 6, 7
        assertEquals(1L, f.get(0).violations()); // 5
        assertEquals(1L, f.get(1).lost()); // 12
        assertEquals(1L, f.get(1).violations()); // 12
        assertNull(FaultAnalysis.analyse(trace(), events).get(0).violations());
    }
}
