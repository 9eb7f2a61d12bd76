package io.msgscope.coordinator.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import io.msgscope.analysis.output.GnuplotScripts;
import io.msgscope.core.RunSpec;
import org.junit.jupiter.api.Test;

class ConsoleSummaryTest {

    private static AnalysisResult analyse(TraceCollector out) {
        return TraceAnalysis.analyse(new Trace(out.spec.count(), out.sendNs, out.intendedNs, out.recvNs),
                out.spec.window());
    }

    /**
     * 1,500 messages sent 1 µs apart; latency 2 µs except every hundredth message (15 of them, 1 %)
     * at 50 µs. p50 = p99 = 2 µs (rank 1,485 of 1,500 is still 2 µs), max 50 µs. The slow ones sit at
     * the same place in every window of 100, so every RO is 1 µs and RT is 1,000,000 msg/s. Whole-run
     * receive rate: 1,499 intervals from the first send (0) to the last arrival (1,499 µs + 50 µs, the last message
     * slow) = 1,549 µs: 967,721 → "968,000".
     */
    private static TraceCollector handOutcome() {
        TraceCollector out = new TraceCollector(RunSpec.builder().count(1_500).window(100).size(64).build(), "r");
        for (int i = 0; i < 1_500; i++) {
            out.sendNs[i] = 1_000L * i;
            out.recvNs[i] = out.sendNs[i] + (i % 100 == 99 ? 50_000 : 2_000);
        }
        out.sent = 1_500;
        out.received = 1_500;
        out.sentReported = true;
        out.receivedReported = true;
        return out;
    }

    @Test
    void sentenceForACompleteRun() {
        TraceCollector out = handOutcome();
        String s = ConsoleSummary.sentence(out.result(), analyse(out));
        assertEquals("1,500 messages of 64 B: received at 968,000 msg/s over the run (RT median 1,000,000 msg/s over M=100); "
                + "latency p50 2 µs, p99 2 µs, max 50 µs; 0 lost", s);
        assertTrue(s.contains("1,500"));
        assertTrue(s.contains("64 B"));
        assertTrue(s.contains("0 lost"));
    }

    @Test
    void lossDuplicatesAndReorderingAreNamed() {
        TraceCollector out = handOutcome();
        out.recvNs[10] = Long.MIN_VALUE;
        out.recvNs[11] = Long.MIN_VALUE;
        out.received = 1_498;
        out.duplicates = 1_234;
        out.reordered = 3;
        String s = ConsoleSummary.sentence(out.result(), analyse(out));
        assertTrue(s.endsWith("; 2 lost, 1,234 duplicated, 3 reordered"), s);
    }

    /**
     * issue 32 item 3: messages 10, 11 and 12 lost; the publisher never had 11 confirmed (range [11, 12)), so 10 and 12
     * are lost confirmed messages: 2 guarantee violations, red on a terminal; none without a guarantee.
     */
    @Test
    void guaranteeViolationsFollowTheLossInRedOnATerminal() {
        TraceCollector out = handOutcome();
        for (int i = 10; i <= 12; i++) {
            out.recvNs[i] = Long.MIN_VALUE;
        }
        out.received = 1_497;
        out.guarantee = new io.msgscope.analysis.Guarantee(true, new long[] {11, 12});
        assertEquals(2L, out.result().guaranteeViolations());
        String plain = ConsoleSummary.sentence(out.result(), analyse(out));
        assertTrue(plain.endsWith("; 3 lost (2 guarantee violations)"), plain);
        String red = ConsoleSummary.sentence(out.result(), analyse(out), true);
        assertTrue(red.endsWith("; 3 lost (\u001b[31m2\u001b[0m guarantee violations)"), red);
        out.guarantee = new io.msgscope.analysis.Guarantee(true, new long[] {10, 13});
        assertTrue(ConsoleSummary.sentence(out.result(), analyse(out), true).endsWith("; 3 lost (0 guarantee violations)"));
        out.guarantee = io.msgscope.analysis.Guarantee.NONE;
        assertEquals(null, out.result().guaranteeViolations());
        assertTrue(ConsoleSummary.sentence(out.result(), analyse(out)).endsWith("; 3 lost"));
    }

    /**
     * A run failed for its loss says how much of it were guarantee violations (the failure line is what a failed run
     * prints instead of the sentence): messages 10-12 lost, 11 never confirmed: 2; none confirmed: no clause.
     */
    @Test
    void aLossVerdictNamesItsGuaranteeViolations() {
        TraceCollector out = handOutcome();
        for (int i = 10; i <= 12; i++) {
            out.recvNs[i] = Long.MIN_VALUE;
        }
        out.received = 1_497;
        out.guarantee = new io.msgscope.analysis.Guarantee(true, new long[] {11, 12});
        assertEquals("3 of 1500 messages lost, 2 of them guarantee violations (the system had confirmed them)",
                TraceVerdict.judge(out.result(), 3, 1_500, false).failureReason());
        out.guarantee = new io.msgscope.analysis.Guarantee(true, new long[] {10, 13});
        assertEquals("3 of 1500 messages lost", TraceVerdict.judge(out.result(), 3, 1_500, false).failureReason());
        out.guarantee = io.msgscope.analysis.Guarantee.NONE;
        assertEquals("3 of 1500 messages lost", TraceVerdict.judge(out.result(), 3, 1_500, false).failureReason());
    }

    /** issue 27: without the receiver's report its duplicate and reordering counts are unknown, never "none". */
    @Test
    void duplicatesAndReorderingAreUnknownWithoutTheReceiversReport() {
        TraceCollector out = handOutcome();
        out.receivedReported = false;
        String s = ConsoleSummary.sentence(out.result(), analyse(out));
        assertTrue(s.endsWith("; 0 lost, duplicates and reordering unknown (the receiver's report never came)"), s);
    }

    @Test
    void rateModeShowsTheTargetAndCorrectedLatency() {
        TraceCollector out = new TraceCollector(RunSpec.builder().count(1_500).window(100).size(128).rate(1_000_000)
                .build(), "r");
        out.intendedNs = new long[1_500];
        for (int i = 0; i < 1_500; i++) {
            out.intendedNs[i] = 1_000L * i;
            out.sendNs[i] = out.intendedNs[i] + 500; // always sent 500 ns late
            out.recvNs[i] = out.sendNs[i] + 3_000;
        }
        out.sent = 1_500;
        out.received = 1_500;
        out.receivedReported = true;
        String s = ConsoleSummary.sentence(out.result(), analyse(out));
        // issue 27: from the first send (500 ns) to the last arrival (1,502,500 ns): 1,499 intervals, 998,003 msg/s
        assertTrue(s.startsWith("1,500 messages of 128 B at 1,000,000 msg/s: received at 998,000 msg/s"), s);
        assertTrue(s.contains("latency p50 3 µs, p99 3 µs, max 3 µs"), s);
        assertTrue(s.contains("(from the intended send time: p50 3.5 µs, p99 3.5 µs)"), s);
        assertTrue(s.endsWith("; 0 lost"), s);
    }

    @Test
    void nothingReceived() {
        TraceCollector out = new TraceCollector(RunSpec.builder().count(1_000).window(10).build(), "r");
        for (int i = 0; i < 1_000; i++) {
            out.sendNs[i] = i;
        }
        out.sent = 1_000;
        out.receivedReported = true;
        String s = ConsoleSummary.sentence(out.result(), analyse(out));
        assertEquals("1,000 messages of 64 B: received at n/a msg/s; no latency measured; 1,000 lost", s);
    }

    /**
     * issue 17: a receiver that reads 1,000 messages at once, 1 ns apart, every 1 ms receives 1 M msg/s;
     * over M = 100 its RT is mostly the parse rate, and the sentence says so. Over windows of at least
     * 1 ms RT is the receive rate again, and the sentence names the windows.
     */
    @Test
    void aParseRateIsNeverPrintedAsAReceiveRate() {
        TraceCollector out = new TraceCollector(RunSpec.builder().count(10_000).window(100).size(64).build(), "r");
        for (int i = 0; i < 10_000; i++) {
            out.sendNs[i] = 1_000L * i;
            out.recvNs[i] = 1_000_000L * (i / 1000 + 1) + i % 1000;
        }
        out.sent = 10_000;
        out.received = 10_000;
        Trace t = new Trace(10_000, out.sendNs, null, out.recvNs);
        AnalysisResult m2 = TraceAnalysis.analyse(t, 100);
        String s = ConsoleSummary.sentence(out.result(), m2);
        assertTrue(s.contains("over M=100: the rate of parsing messages read together, not a receive rate"), s);
        GnuplotScripts.ThroughputAxis axis = ConsoleSummary.throughputAxis(out.result(), m2);
        assertTrue(axis.yMax() > 0 && axis.note().startsWith("y axis clipped"), axis.toString());
        AnalysisResult spanned = TraceAnalysis.analyse(t, 100, 1_000_000);
        String s2 = ConsoleSummary.sentence(out.result(), spanned);
        assertTrue(s2.contains("(RT median 1,000,000 msg/s over windows of >= 100 messages and >= 1 ms)"), s2);
        assertTrue(Double.isNaN(ConsoleSummary.throughputAxis(out.result(), spanned).yMax()));
    }
}
