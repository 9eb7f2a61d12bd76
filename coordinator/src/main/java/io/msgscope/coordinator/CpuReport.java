package io.msgscope.coordinator;

import io.msgscope.analysis.SeriesStats;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.cpu.CpuWindows;
import io.msgscope.analysis.cpu.SidecarMapping;
import io.msgscope.analysis.cpu.StepSeries;
import io.msgscope.analysis.output.GnuplotScripts;
import io.msgscope.analysis.output.TraceDatWriter;
import io.msgscope.analysis.output.TraceEnvelope;
import io.msgscope.core.RunSpec;
import io.msgscope.proto.Series;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU per message for sender, broker and receiver (M3) and network utilisation (M4), after the run:
 * C = ΔU/ΔT between the every-Nth-message samples, as step series over the message number, their
 * M6 aggregates, the trace.dat columns and the gnuplot scripts. Says which source and mode
 * produced each number.
 *
 * <p>Each role's CPU is reported first as a time-weighted mean over the run (ΔU/ΔT from the first
 * to the last sample: the share of a core, as /proc shows it) with the CPU time per message; the M6
 * aggregates of the per-window values follow, labelled as per-window figures: windows of N messages
 * last from ~1 ms to ~1 s in one run, and per window a 1 ms burst weighs as much as a quiet second
 * (issue 17).
 */
public final class CpuReport {
    /** Process CPU comes in 10 ms ticks: its windows are merged to at least this span. */
    public static final long PROCESS_MIN_SPAN_NS = 100_000_000L;
    public static final String SENDER = "cpu_sender_pct";
    public static final String BROKER = "cpu_broker_pct";
    public static final String RECEIVER = "cpu_receiver_pct";
    public static final String RELAY_STAMPS = "cpu_relay_thread_pct";
    public static final String NET_RX = "net_rx_bytes_s";
    public static final String NET_RX_PACKETS = "net_rx_packets_s";

    private final TraceResult out;
    private final RunSpec spec;
    private final BrokerCpu brokerCpu;
    private final List<StepSeries> columns = new ArrayList<>();
    private final Map<String, Object> summary = new LinkedHashMap<>();
    private final Map<String, Object> network = new LinkedHashMap<>();

    private CpuReport(TraceResult out, BrokerCpu brokerCpu) {
        this.out = out;
        this.spec = out.spec();
        this.brokerCpu = brokerCpu;
    }

    /** Builds the report; with sampling off it is empty. */
    public static CpuReport build(TraceResult out, BrokerCpu brokerCpu) {
        CpuReport r = new CpuReport(out, brokerCpu);
        if (out.spec().cpuEvery() > 0) {
            r.compute();
        }
        return r;
    }

    private void compute() {
        final int every = spec.cpuEvery();
        final long count = spec.count();
        final double pct = CpuWindows.PERCENT_OF_ONE_CORE;
        summary.put("every", every);
        summary.put("unit", "% of one core");
        summary.put("windows", StepSeries.windowCount(count, every));

        StepSeries sender = threadSeries(SENDER, Series.SENDER_SAMPLE_NS, Series.SENDER_THREAD_CPU_NS);
        StepSeries receiver = threadSeries(RECEIVER, Series.RECEIVER_SAMPLE_NS, Series.RECEIVER_THREAD_CPU_NS);
        StepSeries relayStamps = threadSeries(RELAY_STAMPS, Series.BROKER_SAMPLE_NS, Series.BROKER_CPU_NS);
        StepSeries broker = null;
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("mode", brokerCpu.mode().name().toLowerCase(java.util.Locale.ROOT));
        if (brokerCpu.mode() == BrokerCpu.Mode.RELAY && relayStamps != null) {
            broker = new StepSeries(BROKER, every, count, relayStamps.values());
            b.put("source", "relay forwarding-thread CPU (ns"
                    + ("tcp".equals(spec.driver()) ? "" : ", plus the " + spec.driver() + " middle box's I/O threads")
                    + "), written by the relay into the probe slot of every "
                    + every + "th message and read by the receiver (D4); the relay's own clock");
            b.put("time_weighted", stampsTimeWeighted());
        } else if (brokerCpu.mode() == BrokerCpu.Mode.SIDECAR) {
            long[] t = series(Series.SIDECAR_SAMPLE_NS);
            long[] u = series(Series.SIDECAR_BROKER_CPU_NS);
            TraceResult.Sidecar sidecar = out.samples().sidecar();
            if (t != null && u != null && sidecar != null) {
                int n = present(t);
                broker = SidecarMapping.map(BROKER, t, u, n, sidecar.offset().offsetNs(), out.traces().sendNs(),
                        out.traces().recvNs(), count, every, pct);
                b.put("source", sidecar.source());
                b.put("probe_samples", n);
                b.put("clock_offset", offset(sidecar.offset(), sidecar.offsetAfter(), sidecar.sameBox()));
                b.put("time_weighted", sidecarTimeWeighted(t, u, n, sidecar.offset().offsetNs()));
                long[] busy = series(Series.SIDECAR_HOST_BUSY_NS);
                long[] total = series(Series.SIDECAR_HOST_TOTAL_NS);
                if (busy != null && total != null) {
                    b.put("host_busy_pct_of_all_cores", hostBusy(busy, total, n));
                }
                if (relayStamps != null && brokerCpu.targetsEmbeddedRelay()) {
                    columns.add(relayStamps);
                    Map<String, Object> stamps = new LinkedHashMap<>();
                    stamps.put("time_weighted", stampsTimeWeighted());
                    stamps.putAll(stats(relayStamps));
                    b.put("relay_thread_stamps", stamps);
                }
            } else {
                b.put("source", "sidecar samples missing");
            }
        } else if (brokerCpu.mode() == BrokerCpu.Mode.NONE) {
            b.put("source", "none: no broker or relay between sender and receiver (the sender connects straight to "
                    + "the receiver, --opt via=direct), so there is no broker CPU to measure");
        }
        if (broker != null) {
            b.putAll(stats(broker));
        }
        if (sender != null) {
            columns.add(0, sender);
        }
        if (broker != null) {
            columns.add(sender != null ? 1 : 0, broker);
        }
        if (receiver != null) {
            columns.add(Math.min(columns.size(), (sender != null ? 1 : 0) + (broker != null ? 1 : 0)), receiver);
        }
        summary.put("sender", side(sender, Series.SENDER_SAMPLE_NS, Series.SENDER_PROCESS_CPU_NS,
                "sending thread CPU (ThreadMXBean, ns) sampled every " + every + "th message"));
        summary.put("broker", b);
        summary.put("receiver", side(receiver, Series.RECEIVER_SAMPLE_NS, Series.RECEIVER_PROCESS_CPU_NS,
                "CPU (ThreadMXBean, ns) of the thread that delivered the first measured message (for a push "
                        + "driver its client library's delivery thread), sampled every " + every + "th message; "
                        + "every sample, the final one too, reads that thread's counter"));
        summary.put("sampling_overhead", overhead());
        computeNetwork(every, count);
    }

    private void computeNetwork(int every, long count) {
        long[] t = series(Series.RECEIVER_SAMPLE_NS);
        long[] rx = series(Series.NET_RX_BYTES);
        long[] pk = series(Series.NET_RX_PACKETS);
        if (t == null || rx == null || pk == null) {
            return;
        }
        StepSeries bytes = CpuWindows.rate(NET_RX, t, rx, every, count, 0, CpuWindows.PER_SECOND);
        StepSeries packets = CpuWindows.rate(NET_RX_PACKETS, t, pk, every, count, 0, CpuWindows.PER_SECOND);
        columns.add(bytes);
        columns.add(packets);
        network.put("interface", out.samples().netInterface());
        network.put("source", "/proc/net/dev on the receiver's box, read at the receiver's CPU samples at most "
                + "every 10 ms (missing samples bridged)");
        network.put("counted", netCounted(out.samples().netInterface()));
        network.put("rx_bytes_s", SummaryJson.stats(bytes.stats()));
        network.put("rx_packets_s", SummaryJson.stats(packets.stats()));
    }

    /** The relay forwarding thread's time-weighted CPU from the stamps in the messages. */
    private Map<String, Object> stampsTimeWeighted() {
        return timeWeighted(CpuWindows.timeWeighted(series(Series.BROKER_SAMPLE_NS), series(Series.BROKER_CPU_NS),
                spec.cpuEvery(), spec.count(), CpuWindows.PERCENT_OF_ONE_CORE));
    }

    /** One uploaded sample series, or null when it never came. */
    private long[] series(Series s) {
        return out.samples().series().get(s);
    }

    private StepSeries threadSeries(String name, Series time, Series cpu) {
        long[] t = series(time);
        long[] u = series(cpu);
        if (t == null || u == null) {
            return null;
        }
        return CpuWindows.rate(name, t, u, spec.cpuEvery(), spec.count(), 0, CpuWindows.PERCENT_OF_ONE_CORE);
    }

    private Map<String, Object> side(StepSeries thread, Series time, Series process, String source) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source", source);
        long[] t = series(time);
        if (thread != null) {
            Series cpu = time == Series.SENDER_SAMPLE_NS ? Series.SENDER_THREAD_CPU_NS : Series.RECEIVER_THREAD_CPU_NS;
            CpuWindows.TimeWeighted all = CpuWindows.timeWeighted(t, series(cpu), spec.cpuEvery(), spec.count(),
                    CpuWindows.PERCENT_OF_ONE_CORE);
            Map<String, Object> tw = timeWeighted(all);
            if (time == Series.SENDER_SAMPLE_NS) {
                tw.putAll(PacedSenderCpu.workAndWaiting(all, t, series(Series.SENDER_WAIT_CPU_NS), spec));
            }
            m.put("time_weighted", tw);
            m.putAll(stats(thread));
        }
        long[] u = series(process);
        if (t != null && u != null) {
            StepSeries p = CpuWindows.rateOverMinSpan("process", t, u, spec.cpuEvery(), spec.count(),
                    CpuWindows.PERCENT_OF_ONE_CORE, PROCESS_MIN_SPAN_NS);
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("source", "agent process CPU (10 ms ticks) over windows merged to >= 100 ms");
            pm.put("time_weighted", timeWeighted(CpuWindows.timeWeighted(t, u, spec.cpuEvery(), spec.count(),
                    CpuWindows.PERCENT_OF_ONE_CORE)));
            pm.putAll(stats(p));
            m.put("process", pm);
        }
        return m;
    }

    private Map<String, Object> overhead() {
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
    private static Map<String, Object> stats(StepSeries s) {
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
        m.put("mean_pct", SummaryJson.finite(w.rate()));
        m.put("cpu_ns_per_message", SummaryJson.finite(w.perMessage()));
        m.put("span_ms", w.spanNs() / 1e6);
        m.put("messages", w.messages());
        m.put("window_ms_min_median_max", w.spanNs() == 0 ? null
                : List.of(w.windowMinNs() / 1e6, w.windowMedianNs() / 1e6, w.windowMaxNs() / 1e6));
        m.put("method", "CPU time used / time elapsed from the first to the last sample (what /proc shows over "
                + "the same span); per message: CPU time / messages in the span");
        return m;
    }

    /**
     * The broker's time-weighted CPU in sidecar mode: the probe's samples bracketing the measurement (the
     * last at or before the first send, the first at or after the last receive, on the probe's clock).
     */
    private Map<String, Object> sidecarTimeWeighted(long[] t, long[] u, int n, long offsetNs) {
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        for (long o : out.traces().sendNs()) {
            if (o != Trace.ABSENT && o < start) {
                start = o;
            }
        }
        for (long r : out.traces().recvNs()) {
            if (r != Trace.ABSENT && r > end) {
                end = r;
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        if (start == Long.MAX_VALUE || end == Long.MIN_VALUE) {
            return m;
        }
        start += offsetNs;
        end += offsetNs;
        int i = -1;
        int j = -1;
        for (int k = 0; k < n; k++) {
            if (t[k] == Trace.ABSENT || u[k] == Trace.ABSENT) {
                continue;
            }
            if (i < 0 || t[k] <= start) {
                i = k; // the last sample at or before the start (or the first one)
            }
            if (j < 0 && t[k] >= end) {
                j = k;
            }
        }
        if (j < 0) {
            for (int k = n - 1; k >= 0; k--) {
                if (t[k] != Trace.ABSENT && u[k] != Trace.ABSENT) {
                    j = k;
                    break;
                }
            }
        }
        if (i < 0 || j <= i || t[j] <= t[i] || u[j] < u[i]) {
            return m;
        }
        long received = out.counts().received();
        m.put("mean_pct", 100.0 * (u[j] - u[i]) / (t[j] - t[i]));
        m.put("cpu_ns_per_message", received > 0 ? (double) (u[j] - u[i]) / received : null);
        m.put("span_ms", (t[j] - t[i]) / 1e6);
        m.put("messages", received);
        m.put("method", "broker CPU time / time elapsed between the probe samples bracketing the first send and the "
                + "last receive (probe clock); per message: over the messages received");
        return m;
    }

    private static Map<String, Object> offset(ClockOffset before, ClockOffset after, boolean sameBox) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("same_box", sameBox);
        m.put("offset_ns", before.offsetNs());
        m.put("error_bound_ns", before.errorNs());
        if (after != null) {
            m.put("offset_after_ns", after.offsetNs());
            m.put("error_bound_after_ns", after.errorNs());
        }
        m.put("method", sameBox ? "probe and receiver share one boot (CLOCK_MONOTONIC): offset is exactly 0"
                : "min-RTT ping-pong over the control channel, probe − receiver, before and after the run");
        return m;
    }

    private static Map<String, Object> hostBusy(long[] busy, long[] total, int n) {
        int first = -1;
        int last = -1;
        for (int i = 0; i < n; i++) {
            if (busy[i] != Trace.ABSENT && total[i] != Trace.ABSENT) {
                if (first < 0) {
                    first = i;
                }
                last = i;
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        if (first >= 0 && last > first && total[last] > total[first]) {
            m.put("mean", 100.0 * (busy[last] - busy[first]) / (total[last] - total[first]));
        }
        return m;
    }

    private static int present(long[] t) {
        int n = 0;
        while (n < t.length && t[n] != Trace.ABSENT) {
            n++;
        }
        return n;
    }

    /** The trace.dat columns, sender, broker, receiver first. */
    public List<StepSeries> columns() {
        return columns;
    }

    public Map<String, Object> summary() {
        return summary;
    }

    public Map<String, Object> network() {
        return network;
    }

    /** Writes cpu.gp (and net.gp when network was sampled); returns the scripts written. */
    public List<Path> writeScripts(Path dir, Trace trace) throws IOException {
        return writeScripts(dir, trace, false);
    }

    /** The same; with {@code envelope} the scripts read the step medians of trace-envelope.dat. */
    public List<Path> writeScripts(Path dir, Trace trace, boolean envelope) throws IOException {
        List<Path> scripts = new ArrayList<>();
        LinkedHashMap<String, Integer> cpu = new LinkedHashMap<>();
        for (StepSeries s : columns) {
            if (s.name().startsWith("cpu_")) {
                cpu.put(label(s.name()), column(trace, s.name(), envelope));
            }
        }
        if (!cpu.isEmpty()) {
            scripts.add(GnuplotScripts.writeSteps(dir, "cpu.gp", "cpu.png",
                    "CPU per message: sender, broker, receiver (every " + spec.cpuEvery() + "th message)",
                    "CPU [% of one core]", cpu, envelope));
        }
        for (StepSeries s : columns) {
            if (s.name().equals(NET_RX)) {
                LinkedHashMap<String, Integer> net = new LinkedHashMap<>();
                String nic = out.samples().netInterface();
                net.put("received bytes/s on " + nic, column(trace, NET_RX, envelope));
                scripts.add(GnuplotScripts.writeSteps(dir, "network.gp", "network.png",
                        "Network utilisation per message (" + nic + ": " + ("lo".equals(nic)
                                ? "all loopback traffic: every hop of the run and its acknowledgements"
                                : "all traffic it received") + ")", "bytes/s", net, envelope));
            }
        }
        return scripts;
    }

    /** What the interface's receive counter holds (issue 27: on lo it is several times the run's own bytes). */
    static String netCounted(String nic) {
        return "lo".equals(nic) ? "every loopback packet of the box: each hop of the run (sender to relay or broker "
                + "to receiver) and its acknowledgements, and any other traffic on lo; not the run's bytes alone"
                : "everything the interface received, the run's traffic and any other";
    }

    private int column(Trace trace, String name, boolean envelope) {
        return envelope ? TraceEnvelope.columnOf(trace, columns, name) : TraceDatWriter.columnOf(trace, columns, name);
    }

    private String label(String column) {
        return switch (column) {
            case SENDER -> "sender thread";
            case RECEIVER -> "receiver thread";
            case BROKER -> "broker (" + brokerCpu.mode().name().toLowerCase(java.util.Locale.ROOT) + " mode)";
            case RELAY_STAMPS -> "relay thread (stamps)";
            default -> column;
        };
    }
}
