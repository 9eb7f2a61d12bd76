package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.agents.AgentInfo;
import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.IdentityCheck;
import io.msgscope.analysis.SeriesStats;
import io.msgscope.coordinator.results.Envelope;
import io.msgscope.coordinator.results.Json;
import io.msgscope.core.EnvironmentInfo;
import io.msgscope.core.RunSpec;
import io.msgscope.proto.Affinity;
import io.msgscope.proto.Environment;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Trace mode's summary writer: {@code summary.json} from a {@link TraceReport}, built once in its order — the
 * envelope (status, run spec and its hash, environment of the coordinator and of every agent with the pinning
 * obtained), the topology, the counters (Q5 names where they apply), the Q4 latency fields and the M6 aggregates of
 * every series, the M12 identity check (with trace.dat's when it was checked), the files written, then the CPU,
 * network, distribution and peaks sections the report has. The helpers every mode shares are in
 * {@link io.msgscope.coordinator.results.Json}.
 */
public final class SummaryJson {
    private SummaryJson() {
    }

    /** The summary of {@code r}, {@code files} the files of the folder in the order they were written. */
    public static Map<String, Object> build(TraceReport report, List<String> files) {
        TraceResult r = report.result();
        AnalysisResult a = report.analysis();
        Map<String, Object> spec = spec(r.spec());
        if (report.faults() != null) {
            spec.put("faults", report.faults().plan().shorthand()); // only with faults: earlier hashes hold
        }
        // the phase (issue 16): set-up, warm-up, measurement or upload; analysis for the coordinator's verdicts
        TraceResult.Failure f = r.failure();
        Envelope envelope = Envelope.of("trace", r.runId(), r.spec().driver(), report.startedAt(), r.failureReason(),
                f == null ? null : f.during(), r.warnings(), spec, Json.specHash(spec),
                traceEnvironment(r, report.environment()), r.interrupted());
        Map<String, Object> root = envelope.toMap();
        root.put("topology", report.topology());
        root.put("counters", counters(r, a));
        root.put("hot_thread_allocation", allocation(r));

        Map<String, Object> latency = new LinkedHashMap<>();
        a.q4Fields().forEach((k, v) -> latency.put(k, Json.finite(v)));
        if (r.clocks() != null) { // two boxes: the bound beside the corrected figures, the uncorrected kept (issue 33)
            r.clocks().putLatency(latency);
        }
        root.put("latency", latency);
        root.put("cross_host", r.clocks() != null);
        if (r.clocks() != null) {
            root.put("clock_tracking", r.clocks().toMap(a));
        }
        root.put("throughput", throughput(r, a));
        if (report.phases() != null) {
            root.put("phases", report.phases().toList());
            if (report.phases().backlogList() != null) {
                root.put("backlog", report.phases().backlogList());
            }
        }
        if (report.faults() != null) {
            root.put("faults", report.faults().toList());
        }

        Map<String, Object> series = new LinkedHashMap<>();
        series.put("latency_ns", stats(a.latencyNs()));
        if (a.latencyCorrectedNs() != null) {
            series.put("latency_corrected_ns", stats(a.latencyCorrectedNs()));
        }
        series.put("so_ns", stats(a.soNs()));
        series.put("ro_ns", stats(a.roNs()));
        series.put("st_msg_s", stats(a.stMsgPerSec()));
        series.put("rt_msg_s", stats(a.rtMsgPerSec()));
        root.put("series", series);
        root.put("identity_check", identity(report));
        root.put("files", files);
        CpuReport cpu = report.cpu();
        if (!cpu.summary().isEmpty()) {
            root.put("cpu", cpu.summary());
        }
        if (!cpu.network().isEmpty()) {
            root.put("network", cpu.network());
        }
        DistributionReport distribution = report.distribution();
        if (distribution != null) {
            root.put("distribution", distribution.summary());
            root.put("peaks", distribution.peaksSummary());
        }
        return root;
    }

    /** The M12 identity on the recorded arrays and, once checked, on trace.dat as written: holds only if both do. */
    private static Map<String, Object> identity(TraceReport report) {
        AnalysisResult a = report.analysis();
        IdentityCheck id = a.identity();
        Map<String, Object> ident = new LinkedHashMap<>();
        ident.put("window", a.window());
        ident.put("checked", id.checked());
        ident.put("violations", id.violations());
        ident.put("max_abs_error_ns", Json.finite(id.maxAbsErrorNs()));
        ident.put("holds", report.identityHolds());
        ident.put("in_memory", "exact integers on the recorded arrays over M: (I_n - I_n-M) - (O_n - O_n-M) = "
                + "L_n - L_n-M; trace_dat, when present, checks the values as written");
        if (report.fileCheck() != null) {
            ident.put("trace_dat", report.fileCheck().toMap());
        }
        return ident;
    }

    /** The counters (Q5 names where they apply); a count neither reported nor recorded is unknown, not 0 (issue 16). */
    private static Map<String, Object> counters(TraceResult r, AnalysisResult a) {
        TraceResult.Counts n = r.counts();
        Map<String, Object> c = new LinkedHashMap<>();
        int size = r.spec().size();
        c.put("messages_sent", r.sentKnown() ? n.sent() : null);
        c.put("messages_received", r.receivedKnown() ? n.received() : null);
        // lost = sent - received over what both recorded: unknown unless both traces came (issue 16)
        c.put("messages_lost", r.lossKnown() ? a.lost() : null);
        // issue 32 item 3: lost messages the system had confirmed; null when the settings confirm nothing
        c.put("guarantee_violations", r.guaranteeViolations());
        // counted by the receiver as messages arrive, known only from its report (issue 27)
        boolean arrivals = r.arrivalCountsKnown();
        c.put("duplicates", arrivals ? n.duplicates() : null);
        c.put("reordered", arrivals ? n.reordered() : null);
        c.put("out_of_range", arrivals ? n.outOfRange() : null);
        c.put("bytes_sent", r.sentKnown() ? n.sent() * size : null);
        c.put("bytes_received", r.receivedKnown() ? n.received() * size : null);
        c.put("warmup_sent", r.spec().warmupCount());
        c.put("warmup_received", n.warmupReceived());
        // as in scenarios (issue 16): what never arrived of the warm-up, reported, never failed; null if it never ended
        c.put("warmup_lost", n.warmupDone() ? Math.max(0, r.spec().warmupCount() - n.warmupReceived()) : null);
        c.put("relay_forwarded", n.relayForwarded() < 0 ? null : n.relayForwarded());
        c.put("negative_latencies_clamped", a.clampedNegative());
        c.put("latencies_above_histogram_range", a.aboveRange());
        addDriverCounters(c, r.driverCounters());
        return c;
    }

    /**
     * Adds the drivers' counters after the summary's own: a driver counter named like one of them would overwrite a
     * figure the coordinator computed, so it is refused (a bug in that driver, caught by any run that reports it).
     */
    static void addDriverCounters(Map<String, Object> counters, Map<String, Long> driverCounters) {
        for (Map.Entry<String, Long> e : driverCounters.entrySet()) {
            if (counters.containsKey(e.getKey())) {
                throw new IllegalStateException("driver counter '" + e.getKey()
                        + "' has the name of the summary field counters." + e.getKey() + "; rename it in the driver");
            }
            counters.put(e.getKey(), e.getValue());
        }
    }

    /** Heap bytes each role's hot thread allocated, in all and per message. */
    private static Map<String, Object> allocation(TraceResult r) {
        TraceResult.Counts n = r.counts();
        Map<String, Object> alloc = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : r.hotThreadAllocatedBytes().entrySet()) {
            long messages = e.getKey().equals("relay") ? n.relayForwarded() : e.getKey().equals("sender") ? n.sent()
                    : n.received();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("bytes", e.getValue() < 0 ? null : e.getValue());
            m.put("bytes_per_message", e.getValue() < 0 || messages <= 0 ? null : (double) e.getValue() / messages);
            alloc.put(e.getKey(), m);
        }
        return alloc;
    }

    /** The coordinator's machine and each agent's, with the pinning it obtained. */
    private static Map<String, Object> traceEnvironment(TraceResult r, EnvironmentInfo coordinatorEnv) {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("coordinator", Json.env(coordinatorEnv));
        Map<String, Object> agents = new LinkedHashMap<>();
        for (AgentInfo info : r.agents().values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            Environment e = info.hello().getEnvironment();
            m.put("host", info.hello().getHost());
            m.put("address", info.address());
            m.put("pid", info.hello().getPid());
            m.put("tool_version", info.hello().getToolVersion());
            m.put("jvm", e.getJvm());
            m.put("os", e.getOs());
            m.put("cpu_model", e.getCpuModel());
            m.put("logical_cores", e.getLogicalCores());
            m.put("physical_cores", e.getPhysicalCores());
            Affinity af = info.affinity();
            Map<String, Object> pin = new LinkedHashMap<>();
            pin.put("requested_cpu", af.getRequestedCpu() < 0 ? null : af.getRequestedCpu());
            pin.put("obtained", af.getObtained());
            pin.put("pinned", af.getPinned());
            if (!af.getNote().isEmpty()) {
                pin.put("note", af.getNote());
            }
            m.put("affinity", pin);
            agents.put(info.role(), m);
        }
        env.put("agents", agents);
        return env;
    }

    /** Whole-run rates: sent over the span from the first send to the last, received from the first send to the last arrival. */
    private static Map<String, Object> throughput(TraceResult r, AnalysisResult a) {
        Map<String, Object> t = new LinkedHashMap<>();
        double send = r.sendRate();
        double recv = r.receiveRate();
        t.put("send_msg_s", Json.finite(send));
        t.put("receive_msg_s", Json.finite(recv));
        t.put("send_bytes_s", Json.finite(send * r.spec().size()));
        t.put("receive_bytes_s", Json.finite(recv * r.spec().size()));
        t.put("st_median_msg_s", Json.finite(a.stMsgPerSec().median()));
        t.put("rt_median_msg_s", Json.finite(a.rtMsgPerSec().median()));
        t.put("st_rt_windows", io.msgscope.analysis.RateWindow.describe(a.window(), a.rateWindowMinNs()));
        t.put("window_min_ms", a.rateWindowMinNs() / 1e6);
        t.put("st_windows_longer_than_m", a.stExtended());
        t.put("rt_windows_longer_than_m", a.rtExtended());
        return t;
    }

    static Map<String, Object> stats(SeriesStats s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", s.n());
        m.put("mean", Json.finite(s.mean()));
        m.put("median", Json.finite(s.median()));
        m.put("robust_deviation", Json.finite(s.robustDeviation()));
        m.put("min", Json.finite(s.min()));
        m.put("max", Json.finite(s.max()));
        m.put("p50", Json.finite(s.p50()));
        m.put("p90", Json.finite(s.p90()));
        m.put("p95", Json.finite(s.p95()));
        m.put("p99", Json.finite(s.p99()));
        m.put("p99_9", Json.finite(s.p999()));
        m.put("p99_99", Json.finite(s.p9999()));
        return m;
    }

    private static Map<String, Object> spec(RunSpec s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", s.count());
        m.put("warmup", s.warmupCount());
        m.put("size", s.size());
        m.put("rate", s.rate());
        if (s.timeline() != null) {
            m.put("phases", s.timeline().shorthand());
        }
        m.put("padding", s.padding().name().toLowerCase(java.util.Locale.ROOT));
        m.put("window", s.window());
        m.put("pin", s.pin());
        m.put("drain_timeout_ms", s.drainTimeoutMs());
        m.put("socket_buffer", s.socketBuffer());
        m.put("send_batch", s.sendBatch());
        m.put("seed", s.seed());
        m.put("cpu_every", s.cpuEvery());
        m.put("driver", s.driver());
        m.put("uri", s.uriForDisplay());
        m.put("driver_options", io.msgscope.core.Secrets.options(s.driverOptions()));
        return m;
    }

}
