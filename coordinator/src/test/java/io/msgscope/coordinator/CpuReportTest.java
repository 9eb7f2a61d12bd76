package io.msgscope.coordinator;

import io.msgscope.core.RunSpec;
import io.msgscope.proto.Series;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Trace mode's CPU summary: time-weighted first, the per-window distribution kept and labelled. */
class CpuReportTest {
    private static final long MS = 1_000_000L;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    /**
     * The contradiction by hand: the receiver thread busy for two 1 ms windows and idle at
     * 10 % for one 1 s window. Per window its median is 100 % of a core, per unit of time 10.2 %.
     */
    @Test
    void theReceiverThreadIsReportedPerTimeAndPerWindowLabelled() {
        RunSpec spec = RunSpec.builder().count(30).window(1).warmupCount(0).size(64).pin(false).cpuEvery(10).build();
        TraceCollector out = new TraceCollector(spec, "cpu-test");
        out.sent = 30;
        out.received = 30;
        out.samples.put(Series.RECEIVER_SAMPLE_NS, new long[] {0, 1 * MS, 2 * MS, 1002 * MS});
        out.samples.put(Series.RECEIVER_THREAD_CPU_NS, new long[] {0, 1 * MS, 2 * MS, 102 * MS});
        out.samples.put(Series.RECEIVER_PROCESS_CPU_NS, new long[] {0, 10 * MS, 10 * MS, 210 * MS});
        CpuReport r = CpuReport.build(out.result(), new BrokerCpu(BrokerCpu.Mode.OFF, 0, "", "", 10_000));
        Map<String, Object> receiver = map(r.summary().get("receiver"));
        Map<String, Object> tw = map(receiver.get("time_weighted"));
        assertEquals(100.0 * 102 / 1002, (Double) tw.get("mean_pct"), 1e-9);
        assertEquals(102.0 * MS / 30, (Double) tw.get("cpu_ns_per_message"), 1e-6);
        assertEquals(List.of(1.0, 1.0, 1000.0), tw.get("window_ms_min_median_max"));
        assertTrue(((String) receiver.get("stats_weighting")).startsWith("per window of 10 messages"));
        assertEquals(100.0, (Double) map(receiver.get("stats")).get("median"), 1e-9);
        // the process: 210 ms over 1002 ms, whatever the 10 ms ticks did inside
        Map<String, Object> process = map(receiver.get("process"));
        assertEquals(100.0 * 210 / 1002, (Double) map(process.get("time_weighted")).get("mean_pct"), 1e-9);
        assertTrue(process.containsKey("stats_weighting"));
    }
}
