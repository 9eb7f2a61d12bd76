package io.msgscope.analysis.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.msgscope.analysis.Trace;
import org.junit.jupiter.api.Test;

/** The broker's sidecar CPU over the measurement, bracketed by the probe's samples (moved here from the coordinator). */
class BracketedCpuTest {
    private static final long A = Trace.ABSENT;

    /**
     * Sent from 100 to 130, received up to 150 (receiver clock); the probe's clock is 1,000 ahead, so the measurement
     * spans 1,100..1,150 there. Samples at 1,000, 1,090, 1,120, 1,160, 1,200: the last at or before 1,100 is 1,090,
     * the first at or after 1,150 is 1,160, so 70 ns of time in which the counter rose 35: 50 % of a core.
     */
    @Test
    void theSamplesBracketingTheFirstSendAndTheLastReceive() {
        long[] t = {1_000, 1_090, 1_120, 1_160, 1_200};
        long[] u = {0, 10, 30, 45, 90};
        BracketedCpu c = BracketedCpu.of(t, u, 5, 1_000, new long[] {100, 130, A}, new long[] {140, 150, A});
        assertEquals(new BracketedCpu(35, 70), c);
        assertEquals(50.0, c.meanPct(), 1e-12);
    }

    /** No sample after the last receive: the last present one closes the span; absent ones are skipped. */
    @Test
    void theLastPresentSampleWhenNoneCameAfterTheEnd() {
        long[] t = {1_000, 1_090, 1_120, A};
        long[] u = {0, 10, A, A};
        assertEquals(new BracketedCpu(10, 90), BracketedCpu.of(t, u, 4, 1_000, new long[] {50}, new long[] {500}));
    }

    @Test
    void undefinedWithoutATraceOrTwoSamplesOrWithACounterGoingBack() {
        long[] t = {0, 10, 20};
        assertNull(BracketedCpu.of(t, new long[] {0, 5, 9}, 3, 0, new long[] {A}, new long[] {A}), "nothing sent");
        assertNull(BracketedCpu.of(t, new long[] {0, 5, 9}, 1, 0, new long[] {5}, new long[] {15}), "one sample");
        assertNull(BracketedCpu.of(t, new long[] {9, 5, 4}, 3, 0, new long[] {5}, new long[] {15}), "went back");
    }
}
