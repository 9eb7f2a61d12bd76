package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.results.Json;
import io.msgscope.analysis.cpu.CpuWindows;
import io.msgscope.analysis.cpu.StepSeries;
import io.msgscope.core.RunSpec;
import io.msgscope.core.driver.Driver;
import io.msgscope.proto.Series;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU per message for sender, broker and receiver (M3) and network utilisation (M4), after the run:
 * C = ΔU/ΔT between the every-Nth-message samples, as step series over the message number (trace.dat's columns),
 * and summary.json's {@code cpu} and {@code network} sections. Says which source and mode produced each number; the
 * broker's part is {@link BrokerCpuFigures}', the scripts {@link CpuScripts}'.
 *
 * <p>Each role's CPU is reported first as a time-weighted mean over the run (ΔU/ΔT from the first
 * to the last sample: the share of a core, as /proc shows it) with the CPU time per message; the M6
 * aggregates of the per-window values follow, labelled as per-window figures: windows of N messages
 * last from ~1 ms to ~1 s in one run, and per window a 1 ms burst weighs as much as a quiet second
 * (issue 17).
 *
 * @param columns the trace.dat columns: sender, broker, receiver, the relay's stamps beside a sidecar, network
 * @param summary summary.json's {@code cpu}; empty with sampling off
 * @param network summary.json's {@code network}; empty unless the receiver sampled its interface
 */
public record CpuReport(List<StepSeries> columns, Map<String, Object> summary, Map<String, Object> network) {
    /** Process CPU comes in 10 ms ticks: its windows are merged to at least this span. */
    public static final long PROCESS_MIN_SPAN_NS = 100_000_000L;
    public static final String SENDER = "cpu_sender_pct";
    public static final String BROKER = "cpu_broker_pct";
    public static final String RECEIVER = "cpu_receiver_pct";
    public static final String RELAY_STAMPS = "cpu_relay_thread_pct";
    public static final String NET_RX = "net_rx_bytes_s";
    public static final String NET_RX_PACKETS = "net_rx_packets_s";

    public CpuReport {
        columns = List.copyOf(columns);
        summary = Collections.unmodifiableMap(new LinkedHashMap<>(summary));
        network = Collections.unmodifiableMap(new LinkedHashMap<>(network));
    }

    /** Builds the report; with sampling off it is empty. {@code driver} says what its middle box's stamps count. */
    public static CpuReport build(TraceResult out, BrokerCpu brokerCpu, Driver driver) {
        RunSpec spec = out.spec();
        if (spec.cpuEvery() <= 0) {
            return new CpuReport(List.of(), Map.of(), Map.of());
        }
        final int every = spec.cpuEvery();
        StepSeries sender = threadSeries(out, SENDER, Series.SENDER_SAMPLE_NS, Series.SENDER_THREAD_CPU_NS);
        StepSeries receiver = threadSeries(out, RECEIVER, Series.RECEIVER_SAMPLE_NS, Series.RECEIVER_THREAD_CPU_NS);
        StepSeries relayStamps = threadSeries(out, RELAY_STAMPS, Series.BROKER_SAMPLE_NS, Series.BROKER_CPU_NS);
        BrokerCpuFigures broker = BrokerCpuFigures.of(out, brokerCpu, relayStamps, driver.middleBoxCpuSource());

        List<StepSeries> columns = new ArrayList<>();
        for (StepSeries s : new StepSeries[] {sender, broker.series(), receiver, broker.besideColumn()}) {
            if (s != null) {
                columns.add(s);
            }
        }
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("every", every);
        summary.put("unit", "% of one core");
        summary.put("windows", StepSeries.windowCount(spec.count(), every));
        summary.put("sender", side(out, sender, Series.SENDER_SAMPLE_NS, Series.SENDER_THREAD_CPU_NS,
                Series.SENDER_PROCESS_CPU_NS, "sending thread CPU (ThreadMXBean, ns) sampled every " + every
                        + "th message"));
        summary.put("broker", broker.summary());
        summary.put("receiver", side(out, receiver, Series.RECEIVER_SAMPLE_NS, Series.RECEIVER_THREAD_CPU_NS,
                Series.RECEIVER_PROCESS_CPU_NS, "CPU (ThreadMXBean, ns) of the thread that delivered the first "
                        + "measured message (for a push driver its client library's delivery thread), sampled every "
                        + every + "th message; every sample, the final one too, reads that thread's counter"));
        summary.put("sampling_overhead", overhead(out));
        Map<String, Object> network = new LinkedHashMap<>();
        columns.addAll(network(out, network));
        return new CpuReport(columns, summary, network);
    }

    /** Fills summary.json's {@code network}; returns its two columns, none when it was not sampled. */
    private static List<StepSeries> network(TraceResult out, Map<String, Object> network) {
        long[] t = series(out, Series.RECEIVER_SAMPLE_NS);
        long[] rx = series(out, Series.NET_RX_BYTES);
        long[] pk = series(out, Series.NET_RX_PACKETS);
        if (t == null || rx == null || pk == null) {
            return List.of();
        }
        int every = out.spec().cpuEvery();
        long count = out.spec().count();
        StepSeries bytes = CpuWindows.rate(NET_RX, t, rx, every, count, 0, CpuWindows.PER_SECOND);
        StepSeries packets = CpuWindows.rate(NET_RX_PACKETS, t, pk, every, count, 0, CpuWindows.PER_SECOND);
        network.put("interface", out.samples().netInterface());
        network.put("source", "/proc/net/dev on the receiver's box, read at the receiver's CPU samples at most "
                + "every 10 ms (missing samples bridged)");
        network.put("counted", netCounted(out.samples().netInterface()));
        network.put("rx_bytes_s", SummaryJson.stats(bytes.stats()));
        network.put("rx_packets_s", SummaryJson.stats(packets.stats()));
        return List.of(bytes, packets);
    }

    /** One uploaded sample series, or null when it never came. */
    static long[] series(TraceResult out, Series s) {
        return out.samples().series().get(s);
    }

    static StepSeries threadSeries(TraceResult out, String name, Series time, Series cpu) {
        long[] t = series(out, time);
        long[] u = series(out, cpu);
        if (t == null || u == null) {
            return null;
        }
        RunSpec spec = out.spec();
        return CpuWindows.rate(name, t, u, spec.cpuEvery(), spec.count(), 0, CpuWindows.PERCENT_OF_ONE_CORE);
    }

    /** Time-weighted CPU of a thread whose samples are {@code time}/{@code cpu}, over the run. */
    static CpuWindows.TimeWeighted timeWeighted(TraceResult out, Series time, Series cpu) {
        return CpuWindows.timeWeighted(series(out, time), series(out, cpu), out.spec().cpuEvery(), out.spec().count(),
                CpuWindows.PERCENT_OF_ONE_CORE);
    }

    private static Map<String, Object> side(TraceResult out, StepSeries thread, Series time, Series cpu,
                                            Series process, String source) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source", source);
        long[] t = series(out, time);
        if (thread != null) {
            CpuWindows.TimeWeighted all = timeWeighted(out, time, cpu);
            Map<String, Object> tw = timeWeighted(all);
            if (time == Series.SENDER_SAMPLE_NS) {
                tw.putAll(PacedSenderCpu.workAndWaiting(all, t, series(out, Series.SENDER_WAIT_CPU_NS), out.spec()));
            }
            m.put("time_weighted", tw);
            m.putAll(stats(thread));
        }
        long[] u = series(out, process);
        if (t != null && u != null) {
            StepSeries p = CpuWindows.rateOverMinSpan("process", t, u, out.spec().cpuEvery(), out.spec().count(),
                    CpuWindows.PERCENT_OF_ONE_CORE, PROCESS_MIN_SPAN_NS);
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("source", "agent process CPU (10 ms ticks) over windows merged to >= 100 ms");
            pm.put("time_weighted", timeWeighted(timeWeighted(out, time, process)));
            pm.putAll(stats(p));
            m.put("process", pm);
        }
        return m;
    }

    private static Map<String, Object> overhead(TraceResult out) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Map.Entry<String, TraceResult.Sampling> e : out.samples().overhead().entrySet()) {
            long samples = e.getValue().samples();
            long ns = e.getValue().ns();
            long messages = e.getKey().equals("sender") ? out.counts().sent() : out.counts().received();
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("samples", samples);
            s.put("ns_total", ns);
            s.put("ns_per_sample", samples > 0 ? (double) ns / samples : null);
            if (!e.getKey().equals("probe")) {
                s.put("ns_per_message", messages > 0 ? (double) ns / messages : null);
            }
            m.put(e.getKey(), s);
        }
        return m;
    }

    /** The per-window distribution, labelled as such (the mean of windows is not the CPU share). */
    static Map<String, Object> stats(StepSeries s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("defined_windows", s.definedWindows());
        m.put("stats_weighting", "per window of " + s.every() + " messages: each window counts once whatever it "
                + "lasted; not a time average (see time_weighted)");
        m.put("stats", SummaryJson.stats(s.stats()));
        return m;
    }

    /** The time-weighted mean over the run, CPU per message, and how long the windows were. */
    static Map<String, Object> timeWeighted(CpuWindows.TimeWeighted w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mean_pct", Json.finite(w.rate()));
        m.put("cpu_ns_per_message", Json.finite(w.perMessage()));
        m.put("span_ms", w.spanNs() / 1e6);
        m.put("messages", w.messages());
        m.put("window_ms_min_median_max", w.spanNs() == 0 ? null
                : List.of(w.windowMinNs() / 1e6, w.windowMedianNs() / 1e6, w.windowMaxNs() / 1e6));
        m.put("method", "CPU time used / time elapsed from the first to the last sample (what /proc shows over "
                + "the same span); per message: CPU time / messages in the span");
        return m;
    }

    /** What the interface's receive counter holds (issue 27: on lo it is several times the run's own bytes). */
    static String netCounted(String nic) {
        return "lo".equals(nic) ? "every loopback packet of the box: each hop of the run (sender to relay or broker "
                + "to receiver) and its acknowledgements, and any other traffic on lo; not the run's bytes alone"
                : "everything the interface received, the run's traffic and any other";
    }
}
