package io.msgscope.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/*
 * Hand computation for HandTraces.plain() (all times ns):
 *
 *   n    :    0     1     2     3     4     5     6     7     8     9
 *   O_n  : 1000  1100  1300  1400  1600  1700  1900  2000  2200  2300
 *   I_n  : 1500  1700  1800  2100  2200  2500  2600  2900  3000  3400
 *   L_n  :  500   600   500   700   600   800   700   900   800  1100
 *
 * Latency: ΣL = 7200, N = 10, mean 720.
 *   sorted 500 500 600 600 700 700 800 800 900 1100; lower median = sorted[(10-1)/2] = sorted[4] = 700.
 *   Σ|L-700| = 200+200+100+100+0+0+100+100+200+400 = 1400 → robust deviation 140.
 *   nearest rank: p50 → ceil(5)-1 = 4 → 700; p90 → ceil(9)-1 = 8 → 900;
 *   p95 → ceil(9.5)-1 = 9 → 1100; p99, p99.9, p99.99 → index 9 → 1100. min 500, max 1100.
 *
 * M = 1 (n = 1..9, 9 values):
 *   SO: 100 200 100 200 100 200 100 200 100 → Σ 1300, mean 144.44…, sorted 100×5 200×4,
 *       median sorted[4] = 100, robust Σ|SO-100| = 400 → 44.44…, p90 → index ceil(8.1)-1 = 8 → 200.
 *   RO: 200 100 300 100 300 100 300 100 400 → Σ 1900, mean 211.11…, sorted 100×4 200 300×3 400,
 *       median sorted[4] = 200, robust (4·100 + 0 + 3·100 + 200) / 9 = 100, p90 → 400.
 *   ST = 1e9/SO: 1e7×5, 5e6×4 → sorted 5e6×4 1e7×5, median 1e7, mean 7e7/9 = 7,777,777.77…,
 *       robust 4·5e6/9 = 2,222,222.22…, min 5e6, max 1e7.
 *   RT = 1e9/RO: 1e7×4, 5e6, 3,333,333.33…×3, 2.5e6 → sorted 2.5e6 3.33e6×3 5e6 1e7×4,
 *       median sorted[4] = 5e6, mean (2.5e6 + 1e7 + 5e6 + 4e7)/9 = 6,388,888.88…, min 2.5e6, max 1e7.
 *   Identity RO_n − SO_n = L_n − L_{n−1}: e.g. n = 1: 200 − 100 = 600 − 500; checked 9, no violation.
 *
 * M = 2 (n = 2..9, 8 values):
 *   O_n − O_{n−2}: 300 ×8 → SO 150 ×8, ST = 2e9/300 = 6,666,666.66… ×8, robust deviations 0.
 *   I_n − I_{n−2}: 300 400 400 400 400 400 400 500 → RO 150 200×6 250: mean 200, median sorted[3] = 200,
 *       robust (50 + 0 + 50)/8 = 12.5.
 *   RT = 2e9/(I_n − I_{n−2}): 6.67e6, 5e6×6, 4e6 → sorted 4e6 5e6×6 6.67e6, median sorted[3] = 5e6,
 *       mean (4e6 + 3e7 + 6,666,666.66…)/8 = 5,083,333.33…
 *   Identity checked for n = 2..9: 8.
 */
class TraceAnalysisTest {

    private static final double EPS = 1e-6;

    @Test
    void handTraceLatency() {
        AnalysisResult r = TraceAnalysis.analyse(HandTraces.plain(), 1);
        assertEquals(10, r.sent());
        assertEquals(10, r.received());
        assertEquals(0, r.lost());
        assertEquals(0, r.clampedNegative());
        SeriesStats l = r.latencyNs();
        assertEquals(10, l.n());
        assertEquals(720, l.mean(), EPS);
        assertEquals(700, l.median());
        assertEquals(140, l.robustDeviation(), EPS);
        assertEquals(500, l.min());
        assertEquals(1100, l.max());
        assertEquals(700, l.p50());
        assertEquals(900, l.p90());
        assertEquals(1100, l.p95());
        assertEquals(1100, l.p99());
        assertEquals(1100, l.p999());
        assertEquals(1100, l.p9999());
        assertNull(r.latencyCorrectedNs());
    }

    @Test
    void handTraceWindowOne() {
        AnalysisResult r = TraceAnalysis.analyse(HandTraces.plain(), 1);
        SeriesStats so = r.soNs();
        assertEquals(9, so.n());
        assertEquals(1300 / 9d, so.mean(), EPS);
        assertEquals(100, so.median());
        assertEquals(400 / 9d, so.robustDeviation(), EPS);
        assertEquals(100, so.min());
        assertEquals(200, so.max());
        assertEquals(200, so.p90());

        SeriesStats ro = r.roNs();
        assertEquals(9, ro.n());
        assertEquals(1900 / 9d, ro.mean(), EPS);
        assertEquals(200, ro.median());
        assertEquals(100, ro.robustDeviation(), EPS);
        assertEquals(100, ro.min());
        assertEquals(400, ro.max());
        assertEquals(400, ro.p90());

        SeriesStats st = r.stMsgPerSec();
        assertEquals(9, st.n());
        assertEquals(7e7 / 9, st.mean(), EPS);
        assertEquals(1e7, st.median());
        assertEquals(2e7 / 9, st.robustDeviation(), EPS);
        assertEquals(5e6, st.min());
        assertEquals(1e7, st.max());
        assertEquals(1e7, st.p50());

        SeriesStats rt = r.rtMsgPerSec();
        assertEquals(9, rt.n());
        assertEquals(5.75e7 / 9, rt.mean(), EPS);
        assertEquals(5e6, rt.median());
        assertEquals(2.5e6, rt.min());
        assertEquals(1e7, rt.max());
        assertEquals(5e6, rt.p50()); // rank ceil(4.5) = 5 → sorted[4]
    }

    @Test
    void handTraceWindowTwo() {
        AnalysisResult r = TraceAnalysis.analyse(HandTraces.plain(), 2);
        SeriesStats so = r.soNs();
        assertEquals(8, so.n());
        assertEquals(150, so.mean(), EPS);
        assertEquals(150, so.median());
        assertEquals(0, so.robustDeviation());
        SeriesStats st = r.stMsgPerSec();
        assertEquals(8, st.n());
        assertEquals(2e9 / 300, st.median(), EPS);
        assertEquals(2e9 / 300, st.mean(), EPS);
        assertEquals(0, st.robustDeviation(), EPS);

        SeriesStats ro = r.roNs();
        assertEquals(8, ro.n());
        assertEquals(200, ro.mean(), EPS);
        assertEquals(200, ro.median());
        assertEquals(12.5, ro.robustDeviation(), EPS);
        assertEquals(150, ro.min());
        assertEquals(250, ro.max());

        SeriesStats rt = r.rtMsgPerSec();
        assertEquals(8, rt.n());
        assertEquals(5e6, rt.median());
        assertEquals((4e6 + 3e7 + 2e9 / 300) / 8, rt.mean(), EPS);
        assertEquals(4e6, rt.min());
        assertEquals(2e9 / 300, rt.max(), EPS);

        assertEquals(new IdentityCheck(8, 0, 0), r.identity());
        assertTrue(r.identity().holds());
    }

    @Test
    void identityCheckedForEveryCompleteWindowOnly() {
        assertEquals(new IdentityCheck(9, 0, 0), TraceAnalysis.analyse(HandTraces.plain(), 1).identity());
        // Message 4 lost: n = 4 and n = 5 lack a receive time at n or n−1 → 9 − 2 = 7 checked.
        AnalysisResult lossy = TraceAnalysis.analyse(HandTraces.withLossAndNegative(), 1);
        assertEquals(7, lossy.identity().checked());
        assertTrue(lossy.identity().holds());
        // M = 2: n = 4 and n = 6 are incomplete → 8 − 2 = 6.
        assertEquals(6, TraceAnalysis.analyse(HandTraces.withLossAndNegative(), 2).identity().checked());
        // Window as long as the trace: nothing to check, no throughput.
        AnalysisResult none = TraceAnalysis.analyse(HandTraces.plain(), 10);
        assertEquals(new IdentityCheck(0, 0, 0), none.identity());
        assertTrue(none.soNs().isEmpty());
        assertTrue(Double.isNaN(none.stMsgPerSec().mean()));
    }

    @Test
    void lostMessagesAreCountedAndSkipped() {
        AnalysisResult r = TraceAnalysis.analyse(HandTraces.withLossAndNegative(), 1);
        assertEquals(10, r.sent());
        assertEquals(9, r.received());
        assertEquals(1, r.lost());
        assertEquals(9, r.latencyNs().n());
        assertEquals(9, r.soNs().n()); // send side complete
        assertEquals(7, r.roNs().n()); // RO_4 and RO_5 need I_4
        assertEquals(9, r.latencyHistogram().getTotalCount());
    }

    @Test
    void negativeLatencyIsClampedAndCounted() {
        AnalysisResult r = TraceAnalysis.analyse(HandTraces.withLossAndNegative(), 1);
        assertEquals(1, r.clampedNegative());
        // Latencies: 0 (clamped from −100), 600 500 700 800 700 900 800 1100 (message 4 lost).
        assertEquals(0, r.latencyNs().min());
        assertEquals(6100 / 9d, r.latencyNs().mean(), EPS);
        assertEquals(700, r.latencyNs().median()); // sorted 0 500 600 700 700 800 800 900 1100
        // Identity uses the raw latency, so the clamping does not break it.
        assertTrue(r.identity().holds());
    }

    @Test
    void rateModeCorrectedAndUncorrectedLatency() {
        AnalysisResult r = TraceAnalysis.analyse(HandTraces.rateMode(), 1);
        // Uncorrected as in the plain trace.
        assertEquals(720, r.latencyNs().mean(), EPS);
        // Corrected I_n − intended_n: 500 600 600 800 800 1000 1000 1200 1200 1500.
        SeriesStats c = r.latencyCorrectedNs();
        assertEquals(10, c.n());
        assertEquals(920, c.mean(), EPS);
        assertEquals(800, c.median());
        assertEquals(500, c.min());
        assertEquals(1500, c.max());
        assertEquals(1200, c.p90());
        // Σ|c − 800| = 300+200+200+0+0+200+200+400+400+700 = 2600.
        assertEquals(260, c.robustDeviation(), EPS);
        assertEquals(0, r.clampedNegativeCorrected());

        long[] intended = HandTraces.INTENDED.clone();
        intended[2] = 1900; // intended after receipt (1800): clock error
        AnalysisResult clamped = TraceAnalysis.analyse(
                new Trace(10, HandTraces.SEND.clone(), intended, HandTraces.RECV.clone()), 1);
        assertEquals(1, clamped.clampedNegativeCorrected());
        assertEquals(0, clamped.latencyCorrectedNs().min());
        assertEquals(0, clamped.clampedNegative());
    }

    @Test
    void zeroOverheadMakesThroughputUndefinedAndIsCounted() {
        long[] send = {0, 0, 100, 100, 300};
        long[] recv = {50, 60, 160, 300, 400};
        AnalysisResult r = TraceAnalysis.analyse(new Trace(5, send, null, recv), 1);
        // SO: 0 100 0 200 → SO stats over all four, ST only over 100 and 200.
        assertEquals(4, r.soNs().n());
        assertEquals(75, r.soNs().mean(), EPS);
        assertEquals(2, r.zeroSendOverhead());
        assertEquals(2, r.stMsgPerSec().n());
        assertEquals(5e6, r.stMsgPerSec().min());
        assertEquals(1e7, r.stMsgPerSec().max());
        assertEquals(0, r.zeroReceiveOverhead());
    }

    @Test
    void negativeReceiveSpansGiveNegativeThroughputInOrder() {
        // Reordered receipt: I_2 < I_1.
        long[] send = {0, 100, 200, 300};
        long[] recv = {1000, 1500, 1400, 1800};
        AnalysisResult r = TraceAnalysis.analyse(new Trace(4, send, null, recv), 1);
        // RO: 500, −100, 400 → RT: 2e6, −1e7, 2.5e6 → sorted −1e7, 2e6, 2.5e6.
        SeriesStats rt = r.rtMsgPerSec();
        assertEquals(-1e7, rt.min());
        assertEquals(2e6, rt.median());
        assertEquals(2.5e6, rt.max());
        assertEquals((-1e7 + 2e6 + 2.5e6) / 3, rt.mean(), EPS);
        assertEquals(-100, r.roNs().min());
    }

    @Test
    void histogramHasQ3RangeAndCountsValuesAbove() {
        long[] send = {0, 0, 0};
        long[] recv = {5_000, 20_000_000_000L, 2_000_000};
        AnalysisResult r = TraceAnalysis.analyse(new Trace(3, send, null, recv), 1);
        Histogram h = r.latencyHistogram();
        assertEquals(1_000, h.getLowestDiscernibleValue());
        assertEquals(10_000_000_000L, h.getHighestTrackableValue());
        assertEquals(3, h.getNumberOfSignificantValueDigits());
        assertEquals(3, h.getTotalCount());
        assertEquals(1, r.aboveRange());
        assertTrue(h.valuesAreEquivalent(10_000_000_000L, h.getMaxValue()));
        // The exact series keeps the true value.
        assertEquals(20_000_000_000d, r.latencyNs().max());
        // The histogram handed out is a copy.
        h.recordValue(7_000);
        assertEquals(3, r.latencyHistogram().getTotalCount());
    }

    @Test
    void q4FieldsFromExactSeriesInMicroseconds() {
        Map<String, Double> q4 = TraceAnalysis.analyse(HandTraces.plain(), 1).q4Fields();
        assertEquals(List.of("latency_min_us", "latency_max_us", "latency_mean_us", "latency_p50_us",
                "latency_p95_us", "latency_p99_us", "latency_p999_us"), List.copyOf(q4.keySet()));
        assertEquals(0.5, q4.get("latency_min_us"), EPS);
        assertEquals(1.1, q4.get("latency_max_us"), EPS);
        assertEquals(0.72, q4.get("latency_mean_us"), EPS);
        assertEquals(0.7, q4.get("latency_p50_us"), EPS);
        assertEquals(1.1, q4.get("latency_p95_us"), EPS);
        assertEquals(1.1, q4.get("latency_p99_us"), EPS);
        assertEquals(1.1, q4.get("latency_p999_us"), EPS);
    }

    @Test
    void emptyAndInvalidInputs() {
        AnalysisResult r = TraceAnalysis.analyse(new Trace(0, new long[0], null, new long[0]), 100);
        assertEquals(0, r.sent());
        assertTrue(r.latencyNs().isEmpty());
        assertTrue(Double.isNaN(r.q4Fields().get("latency_p50_us")));
        assertThrows(IllegalArgumentException.class, () -> TraceAnalysis.analyse(HandTraces.plain(), 0));
        assertThrows(IllegalArgumentException.class, () -> new Trace(11, new long[10], null, new long[11]));
    }

    @Test
    void receivedWithoutSendHasNoLatency() {
        long[] send = {0, Trace.ABSENT, 200};
        long[] recv = {100, 250, 400};
        AnalysisResult r = TraceAnalysis.analyse(new Trace(3, send, null, recv), 1);
        assertEquals(2, r.sent());
        assertEquals(3, r.received());
        assertEquals(1, r.receivedWithoutSend());
        assertEquals(0, r.lost());
        assertEquals(2, r.latencyNs().n());
    }
}
