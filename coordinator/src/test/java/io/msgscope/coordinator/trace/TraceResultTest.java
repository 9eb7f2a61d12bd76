package io.msgscope.coordinator.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.msgscope.core.RunSpec;
import io.msgscope.proto.Series;
import org.junit.jupiter.api.Test;

import java.util.List;

/** The trace run's result is a value (issue 15): what the run collects later does not change it, nor can a reader. */
class TraceResultTest {
    private static TraceCollector collected() {
        TraceCollector c = new TraceCollector(RunSpec.builder().count(4).window(1).build(), "r1");
        c.warnings.add("pinning disabled");
        c.driverCounters.put("errors", 0L);
        c.samples.put(Series.RECEIVER_SAMPLE_NS, new long[] {1, 2});
        c.sampling.put("sender", new TraceResult.Sampling(2, 300));
        c.tracesMissing.add("receiver");
        return c;
    }

    @Test
    void theResultIsACopyThatNoReaderCanChange() {
        TraceCollector c = collected();
        TraceResult r = c.result();
        c.warnings.add("later");
        c.driverCounters.put("returned", 1L);
        c.tracesMissing.add("sender");
        assertEquals(List.of("pinning disabled"), r.warnings());
        assertEquals(List.of("errors"), List.copyOf(r.driverCounters().keySet()));
        assertEquals(List.of("receiver"), List.copyOf(r.traces().missing()));
        assertThrows(UnsupportedOperationException.class, () -> r.warnings().add("x"));
        assertThrows(UnsupportedOperationException.class, () -> r.driverCounters().put("x", 1L));
        assertThrows(UnsupportedOperationException.class, () -> r.samples().series().remove(Series.RECEIVER_SAMPLE_NS));
        assertThrows(UnsupportedOperationException.class, () -> r.samples().overhead().clear());
        assertThrows(UnsupportedOperationException.class, () -> r.traces().missing().clear());
        assertSame(c.sendNs, r.traces().sendNs(), "the series are shared read-only, not copied");
    }

    @Test
    void aFailureWithoutAPhaseIsTheAnalysissAndTheVerdictIsACopy() {
        TraceCollector c = collected();
        assertNull(c.result().failure());
        c.failure = "the self-check failed";
        TraceResult failed = c.result();
        assertEquals(new TraceResult.Failure("the self-check failed", "analysis", false), failed.failure());
        TraceResult other = failed.withFailure(new TraceResult.Failure("lost", "measurement", false));
        assertEquals("the self-check failed", failed.failureReason());
        assertEquals("lost", other.failureReason());
        assertSame(failed.traces(), other.traces());
    }

    @Test
    void countsFromTheTracesWhenTheReportsNeverCame() {
        TraceCollector c = new TraceCollector(RunSpec.builder().count(4).window(1).build(), "r1");
        c.sendNs[0] = 10;
        c.sendNs[1] = 20;
        c.sendUploaded = true;
        c.countFromTraces();
        TraceResult r = c.result();
        assertEquals(2, r.counts().sent());
        assertEquals(0, r.counts().received(), "the receiver's trace never came: nothing counted from it");
        assertEquals(List.of("messages_sent (2) counted from the sender's uploaded trace: its measurement report "
                + "never came"), r.warnings());
    }
}
