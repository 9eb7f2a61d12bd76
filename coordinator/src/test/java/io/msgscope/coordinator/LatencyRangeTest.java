package io.msgscope.coordinator;

import io.msgscope.analysis.TraceAnalysis;
import io.msgscope.core.LatencyRange;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Q3's range is defined once in core ({@link LatencyRange}) for every recorder; the analysis module, which
 * depends on no other msgscope module, keeps its own copy for trace runs, held equal here (issue 15).
 */
class LatencyRangeTest {
    @Test
    void traceAnalysisUsesTheSameRangeAsTheRecorders() {
        assertEquals(LatencyRange.LOWEST_NS, TraceAnalysis.HISTOGRAM_LOWEST_NS);
        assertEquals(LatencyRange.HIGHEST_NS, TraceAnalysis.HISTOGRAM_HIGHEST_NS);
        assertEquals(LatencyRange.DIGITS, TraceAnalysis.HISTOGRAM_DIGITS);
        assertEquals(0, LatencyRange.clamp(-5));
        assertEquals(LatencyRange.HIGHEST_NS, LatencyRange.clamp(Long.MAX_VALUE));
        assertEquals(1234, LatencyRange.clamp(1234));
    }
}
