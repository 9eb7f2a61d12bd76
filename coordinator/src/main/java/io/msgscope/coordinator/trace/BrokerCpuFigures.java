package io.msgscope.coordinator.trace;

import io.msgscope.analysis.Trace;
import io.msgscope.analysis.cpu.BracketedCpu;
import io.msgscope.analysis.cpu.CpuWindows;
import io.msgscope.analysis.cpu.SidecarMapping;
import io.msgscope.analysis.cpu.StepSeries;
import io.msgscope.coordinator.agents.ClockOffset;
import io.msgscope.proto.Series;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The broker's CPU per message (M3, D4), as its mode gives it: stamped into the messages by the middle box (relay),
 * sampled beside the broker by the probe and mapped onto the message windows (sidecar), nothing to measure (none), or
 * not measured (off); summary.json's {@code cpu.broker}.
 *
 * @param series       the broker's step series (trace.dat's broker column), null when there is none
 * @param besideColumn the relay's own stamps when a sidecar samples the embedded relay, else null
 * @param summary      summary.json's {@code cpu.broker}
 */
record BrokerCpuFigures(StepSeries series, StepSeries besideColumn, Map<String, Object> summary) {
    BrokerCpuFigures {
        summary = Collections.unmodifiableMap(summary);
    }

    /**
     * @param relayStamps    the middle box's stamps as a step series, null when none came
     * @param middleBoxCount what the middle box's stamps count, in the driver's words
     */
    static BrokerCpuFigures of(TraceResult out, BrokerCpu brokerCpu, StepSeries relayStamps, String middleBoxCount) {
        int every = out.spec().cpuEvery();
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("mode", brokerCpu.mode().name().toLowerCase(Locale.ROOT));
        StepSeries broker = null;
        StepSeries beside = null;
        if (brokerCpu.mode() == BrokerCpu.Mode.RELAY && relayStamps != null) {
            broker = new StepSeries(CpuReport.BROKER, every, out.spec().count(), relayStamps.values());
            b.put("source", middleBoxCount + ", written by the relay into the probe slot of every " + every
                    + "th message and read by the receiver (D4); the relay's own clock");
            b.put("time_weighted", stampsTimeWeighted(out));
        } else if (brokerCpu.mode() == BrokerCpu.Mode.SIDECAR) {
            long[] t = CpuReport.series(out, Series.SIDECAR_SAMPLE_NS);
            long[] u = CpuReport.series(out, Series.SIDECAR_BROKER_CPU_NS);
            TraceResult.Sidecar sidecar = out.samples().sidecar();
            if (t != null && u != null && sidecar != null) {
                broker = sidecar(out, t, u, sidecar, b);
                if (relayStamps != null && brokerCpu.targetsEmbeddedRelay()) {
                    beside = relayStamps;
                    Map<String, Object> stamps = new LinkedHashMap<>();
                    stamps.put("time_weighted", stampsTimeWeighted(out));
                    stamps.putAll(CpuReport.stats(relayStamps));
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
            b.putAll(CpuReport.stats(broker));
        }
        return new BrokerCpuFigures(broker, beside, b);
    }

    /** The probe's samples mapped onto the message windows, and what they were; fills {@code b}. */
    private static StepSeries sidecar(TraceResult out, long[] t, long[] u,
                                      TraceResult.Sidecar sidecar, Map<String, Object> b) {
        int n = present(t);
        long offsetNs = sidecar.offset().offsetNs();
        StepSeries broker = SidecarMapping.map(CpuReport.BROKER, t, u, n, offsetNs, out.traces().sendNs(),
                out.traces().recvNs(), out.spec().count(), out.spec().cpuEvery(), CpuWindows.PERCENT_OF_ONE_CORE);
        b.put("source", sidecar.source());
        b.put("probe_samples", n);
        b.put("clock_offset", offset(sidecar.offset(), sidecar.offsetAfter(), sidecar.sameBox()));
        b.put("time_weighted", bracketed(BracketedCpu.of(t, u, n, offsetNs, out.traces().sendNs(),
                out.traces().recvNs()), out.counts().received()));
        long[] busy = CpuReport.series(out, Series.SIDECAR_HOST_BUSY_NS);
        long[] total = CpuReport.series(out, Series.SIDECAR_HOST_TOTAL_NS);
        if (busy != null && total != null) {
            b.put("host_busy_pct_of_all_cores", hostBusy(busy, total, n));
        }
        return broker;
    }

    /** The relay forwarding thread's time-weighted CPU from the stamps in the messages. */
    private static Map<String, Object> stampsTimeWeighted(TraceResult out) {
        return CpuReport.timeWeighted(CpuReport.timeWeighted(out, Series.BROKER_SAMPLE_NS, Series.BROKER_CPU_NS));
    }

    /** The broker's time-weighted CPU in sidecar mode, per message over the messages received; empty if undefined. */
    private static Map<String, Object> bracketed(BracketedCpu c, long received) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (c == null) {
            return m;
        }
        m.put("mean_pct", c.meanPct());
        m.put("cpu_ns_per_message", received > 0 ? (double) c.cpuNs() / received : null);
        m.put("span_ms", c.spanNs() / 1e6);
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
}
