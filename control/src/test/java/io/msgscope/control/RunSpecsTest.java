package io.msgscope.control;

import io.msgscope.core.Padding;
import io.msgscope.proto.RunSpec;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunSpecsTest {
    private static io.msgscope.core.RunSpec spec() {
        return io.msgscope.core.RunSpec.builder().count(5_000).warmupCount(700).size(128).rate(2_500)
                .padding(Padding.RANDOM).drainTimeoutMs(3_000).socketBuffer(65_536).sendBatch(1).seed(42)
                .cpuEvery(100).relayBurnNs(9).driver("amqp").uri("amqp://127.0.0.1:5672")
                .driverOptions(Map.of("confirm", "100")).build();
    }

    @Test
    void aTraceSpecCarriesEveryFieldTheRolesRead() {
        RunSpec p = RunSpecs.trace(spec(), "run-1");
        assertEquals("run-1", p.getRunId());
        assertEquals(5_000, p.getCount());
        assertEquals(700, p.getWarmupCount());
        assertEquals(128, p.getSize());
        assertEquals(2_500, p.getRate());
        assertTrue(p.getRandomPadding());
        assertEquals(3_000, p.getDrainTimeoutMs());
        assertEquals(65_536, p.getSocketBuffer());
        assertEquals(1, p.getSendBatch());
        assertEquals(42, p.getSeed());
        assertEquals(100, p.getCpuEvery());
        assertEquals(9, p.getRelayBurnNs());
        assertEquals("amqp", p.getDriver());
        assertEquals("amqp://127.0.0.1:5672", p.getUri());
        assertEquals(Map.of("confirm", "100"), p.getDriverOptionsMap());
        assertEquals(-1, p.getPinCpu(), "the run pins each role itself");
    }

    @Test
    void aThroughputSpecLeavesOutWhatWouldMakeTheRelayStamp() {
        RunSpec p = RunSpecs.throughput(spec()).build();
        assertEquals("throughput", p.getRunId());
        assertEquals(1, p.getCount());
        assertEquals(0, p.getCpuEvery());
        assertEquals(0, p.getRelayBurnNs());
        assertEquals(0, p.getRate());
        assertEquals(0, p.getWarmupCount());
        assertEquals(128, p.getSize());
        assertEquals(65_536, p.getSocketBuffer());
        assertTrue(p.getRandomPadding());
        assertEquals(Map.of("confirm", "100"), p.getDriverOptionsMap());
        assertEquals(-1, p.getPinCpu());
    }
}
