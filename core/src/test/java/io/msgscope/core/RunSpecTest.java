package io.msgscope.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class RunSpecTest {

    @Test
    void defaultsBuild() {
        RunSpec s = RunSpec.builder().build();
        assertEquals(1_000_000, s.count());
        assertEquals(50_000, s.warmupCount());
        assertEquals(64, s.size());
        assertEquals(0.0, s.rate());
        assertEquals(Padding.ZEROS, s.padding());
        assertEquals(100, s.window());
        assertTrue(s.pin());
        assertEquals(2_000, s.drainTimeoutMs());
        assertEquals(0, s.socketBuffer());
        assertEquals(1, s.sendBatch());
        assertEquals(42, s.seed());
    }

    @Test
    void toBuilderRoundTrips() {
        RunSpec s = RunSpec.builder().count(500).window(10).size(128).rate(1000).padding(Padding.RANDOM)
                .pin(false).drainTimeoutMs(5).socketBuffer(65536).seed(7).warmupCount(3).build();
        assertEquals(s, s.toBuilder().build());
    }

    @Test
    void boundaryValuesAreAccepted() {
        RunSpec s = RunSpec.builder().count(2).window(1).size(WireHeader.SIZE).warmupCount(0)
                .drainTimeoutMs(1).sendBatch(65_536).build();
        assertEquals(2, s.count());
        assertEquals(32, s.size());
    }

    @Test
    void countZero() {
        expect("--count", "between 1 and " + RunSpec.MAX_COUNT, b -> b.count(0));
    }

    @Test
    void countNegative() {
        expect("--count", "between 1 and " + RunSpec.MAX_COUNT, b -> b.count(-5));
    }

    @Test
    void countTooLarge() {
        expect("--count", "between 1 and " + RunSpec.MAX_COUNT, b -> b.count(RunSpec.MAX_COUNT + 1));
    }

    @Test
    void warmupNegative() {
        expect("--warmup", "between 0 and", b -> b.warmupCount(-1));
    }

    @Test
    void sizeBelowHeader() {
        SpecException e = expect("--size", "between 32", b -> b.size(31));
        assertTrue(e.getMessage().contains("got 31"), e.getMessage());
    }

    @Test
    void windowEqualToCount() {
        SpecException e = expect("--window", "between 1 and count-1 (99)", b -> b.count(100).window(100));
        assertTrue(e.getMessage().contains("got 100"), e.getMessage());
    }

    @Test
    void windowAboveCount() {
        expect("--window", "between 1 and count-1 (999)", b -> b.count(1000).window(2000));
    }

    @Test
    void windowZero() {
        expect("--window", "between 1 and", b -> b.window(0));
    }

    @Test
    void rateNegative() {
        expect("--rate", "between 0 (full speed) and 100000000", b -> b.rate(-1));
    }

    @Test
    void rateNaN() {
        expect("--rate", "between 0 (full speed) and 100000000", b -> b.rate(Double.NaN));
    }

    @Test
    void rateInfinite() {
        expect("--rate", "between 0", b -> b.rate(Double.POSITIVE_INFINITY));
    }

    @Test
    void sendBatchZero() {
        expect("--send-batch", "between 1 and 65536", b -> b.sendBatch(0));
    }

    @Test
    void sendBatchWithRate() {
        expect("--send-batch", "must be 1 when --rate is set", b -> b.rate(1000).sendBatch(2));
    }

    @Test
    void drainTimeoutZero() {
        expect("--drain-timeout", "between 1 and 600000 ms", b -> b.drainTimeoutMs(0));
    }

    @Test
    void socketBufferNegative() {
        expect("--socket-buffer", "between 0 (OS default) and 1073741824", b -> b.socketBuffer(-1));
    }

    @Test
    void paddingRequired() {
        assertThrows(NullPointerException.class, () -> RunSpec.builder().padding(null).build());
    }

    private static SpecException expect(String option, String range, UnaryOperator<RunSpec.Builder> change) {
        SpecException e = assertThrows(SpecException.class, () -> change.apply(RunSpec.builder()).build());
        assertEquals(option, e.option());
        assertTrue(e.getMessage().startsWith(option + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(range), "message should state the range: " + e.getMessage());
        return e;
    }
}
