package io.msgscope.coordinator.trace;

import io.msgscope.core.RunSpec;
import io.msgscope.driver.tcp.TcpDriver;
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
        CpuReport r = CpuReport.build(out.result(), new BrokerCpu(BrokerCpu.Mode.OFF, 0, "", "", 10_000), new TcpDriver());
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

    /**
     * Issue 27: a sender paced at 1,000 msg/s over 30 messages (three windows of 10 ms) used 12 ms of CPU in all,
     * 9 ms of it inside its waits for the send times (3 ms per window): per message 400 µs in all, 300 µs waiting and
     * 100 µs of work; 40 % of a core in all, 30 % waiting, 10 % work.
     */
    @Test
    void aPacedSendersCpuIsSplitIntoWorkAndWaiting() {
        RunSpec spec = RunSpec.builder().count(30).window(1).warmupCount(0).size(64).pin(false).cpuEvery(10)
                .rate(1_000).build();
        TraceCollector out = new TraceCollector(spec, "cpu-paced");
        out.sent = 30;
        out.received = 30;
        out.samples.put(Series.SENDER_SAMPLE_NS, new long[] {0, 10 * MS, 20 * MS, 30 * MS});
        out.samples.put(Series.SENDER_THREAD_CPU_NS, new long[] {5 * MS, 9 * MS, 13 * MS, 17 * MS});
        out.samples.put(Series.SENDER_WAIT_CPU_NS, new long[] {0, 3 * MS, 6 * MS, 9 * MS});
        Map<String, Object> tw = senderTimeWeighted(out);
        assertEquals(40.0, (Double) tw.get("mean_pct"), 1e-9);
        assertEquals(400_000.0, (Double) tw.get("cpu_ns_per_message"), 1e-6);
        assertEquals(10.0, (Double) tw.get("work_pct"), 1e-9);
        assertEquals(100_000.0, (Double) tw.get("work_ns_per_message"), 1e-6);
        assertEquals(30.0, (Double) tw.get("waiting_pct"), 1e-9);
        assertEquals(300_000.0, (Double) tw.get("waiting_ns_per_message"), 1e-6);
        assertTrue(((String) tw.get("waiting_method")).contains("before and after each wait"));
        assertEquals("sender thread CPU per message: 100 µs work + 300 µs waiting for the send times (--rate pacing: "
                + "parked, then spinning the last 50 µs)", PacedSenderCpu.consoleLine(out.result()));

        // at full speed nothing is waited: all of it is work
        out.samples.remove(Series.SENDER_WAIT_CPU_NS);
        Map<String, Object> full = senderTimeWeighted(out);
        assertEquals(400_000.0, (Double) full.get("work_ns_per_message"), 1e-6);
        assertEquals(0.0, (Double) full.get("waiting_ns_per_message"), 1e-9);
        assertEquals(null, PacedSenderCpu.consoleLine(out.result()), "no pacing, no line");
    }

    private static Map<String, Object> senderTimeWeighted(TraceCollector out) {
        CpuReport r = CpuReport.build(out.result(), new BrokerCpu(BrokerCpu.Mode.OFF, 0, "", "", 10_000), new TcpDriver());
        return map(map(r.summary().get("sender")).get("time_weighted"));
    }

    /** Issue 27: on lo the receive counter holds every hop of the run both ways; the summary says what it counts. */
    @Test
    void theNetworkFigureSaysWhatTheInterfaceCounts() {
        RunSpec spec = RunSpec.builder().count(20).window(1).warmupCount(0).size(64).pin(false).cpuEvery(10).build();
        TraceCollector out = new TraceCollector(spec, "net");
        out.netInterface = "lo";
        out.samples.put(Series.RECEIVER_SAMPLE_NS, new long[] {0, 10 * MS, 20 * MS});
        out.samples.put(Series.RECEIVER_THREAD_CPU_NS, new long[] {0, 1 * MS, 2 * MS});
        out.samples.put(Series.NET_RX_BYTES, new long[] {0, 10_000, 20_000});
        out.samples.put(Series.NET_RX_PACKETS, new long[] {0, 100, 200});
        CpuReport r = CpuReport.build(out.result(), new BrokerCpu(BrokerCpu.Mode.OFF, 0, "", "", 10_000), new TcpDriver());
        assertEquals(1_000_000.0, (Double) map(r.network().get("rx_bytes_s")).get("median"), 1e-6);
        assertTrue(((String) r.network().get("counted")).startsWith("every loopback packet of the box"),
                r.network().toString());
        assertTrue(CpuReport.netCounted("eth0").startsWith("everything the interface received"));
    }
}
