package io.msgscope.coordinator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.IdentityCheck;
import io.msgscope.analysis.SeriesStats;
import io.msgscope.coordinator.result.Envelope;
import io.msgscope.core.EnvironmentInfo;
import io.msgscope.core.RunSpec;
import io.msgscope.core.Version;
import io.msgscope.proto.Affinity;
import io.msgscope.proto.Environment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes {@code summary.json}: status, run spec and its hash, environment of the coordinator and
 * of every agent (pinning obtained), counters (Q5 names where they apply), the Q4 latency fields
 * and the M6 aggregates of every series, the M12 identity check, and the files written.
 */
public final class SummaryJson {
    public static final String FILE_NAME = "summary.json";

    private SummaryJson() {
    }

    /** The tool's name and version, in that order every time (Map.of's order changes from one JVM to the next). */
    public static Map<String, Object> tool() {
        return Envelope.tool(Version.TOOL);
    }

    public static Map<String, Object> build(TraceResult r, AnalysisResult a, EnvironmentInfo coordinatorEnv,
                                            String startedAt, List<String> files) {
        Map<String, Object> spec = spec(r.spec());
        // the phase (issue 16): set-up, warm-up, measurement or upload; analysis for the coordinator's verdicts
        TraceResult.Failure f = r.failure();
        Envelope envelope = Envelope.of("trace", r.runId(), r.spec().driver(), startedAt, r.failureReason(),
                f == null ? null : f.during(), r.warnings(), spec, sha256(spec.toString()),
                traceEnvironment(r, coordinatorEnv), r.interrupted());
        Map<String, Object> root = envelope.toMap();
        root.put("topology", topology(r));
        root.put("counters", counters(r, a));
        root.put("hot_thread_allocation", allocation(r));

        Map<String, Object> latency = new LinkedHashMap<>();
        a.q4Fields().forEach((k, v) -> latency.put(k, finite(v)));
        root.put("latency", latency);
        root.put("throughput", throughput(r, a));

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

        IdentityCheck id = a.identity();
        Map<String, Object> ident = new LinkedHashMap<>();
        ident.put("window", a.window());
        ident.put("checked", id.checked());
        ident.put("violations", id.violations());
        ident.put("max_abs_error_ns", finite(id.maxAbsErrorNs()));
        ident.put("holds", id.holds());
        ident.put("in_memory", "exact integers on the recorded arrays over M: (I_n - I_n-M) - (O_n - O_n-M) = "
                + "L_n - L_n-M; trace_dat, when present, checks the values as written");
        root.put("identity_check", ident);
        root.put("files", files);
        return root;
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
        c.putAll(r.driverCounters());
        return c;
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
        env.put("coordinator", env(coordinatorEnv));
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

    /** Who talks to whom: through the relay, straight to the receiver (tcp via=direct), or through a broker. */
    static String topology(TraceResult r) {
        RunSpec spec = r.spec();
        String destination = r.destination();
        if (spec.driver().equals("tcp")) {
            boolean direct = "direct".equalsIgnoreCase(spec.driverOptions().getOrDefault("via", "relay").trim());
            return direct ? "sender -> receiver (raw TCP, one hop" + (destination.isEmpty() ? ""
                    : ", receiver listening on " + destination) + ")" : "sender -> relay -> receiver (raw TCP, loopback)";
        }
        return "sender -> broker " + spec.uriForDisplay() + " -> receiver"
                + (destination.isEmpty() ? "" : " (destination " + destination + ")");
    }

    /** Whole-run rates: sent over the span from the first send to the last, received from the first send to the last arrival. */
    private static Map<String, Object> throughput(TraceResult r, AnalysisResult a) {
        Map<String, Object> t = new LinkedHashMap<>();
        double send = r.sendRate();
        double recv = r.receiveRate();
        t.put("send_msg_s", finite(send));
        t.put("receive_msg_s", finite(recv));
        t.put("send_bytes_s", finite(send * r.spec().size()));
        t.put("receive_bytes_s", finite(recv * r.spec().size()));
        t.put("st_median_msg_s", finite(a.stMsgPerSec().median()));
        t.put("rt_median_msg_s", finite(a.rtMsgPerSec().median()));
        t.put("st_rt_windows", io.msgscope.analysis.RateWindow.describe(a.window(), a.rateWindowMinNs()));
        t.put("window_min_ms", a.rateWindowMinNs() / 1e6);
        t.put("st_windows_longer_than_m", a.stExtended());
        t.put("rt_windows_longer_than_m", a.rtExtended());
        return t;
    }

    static Map<String, Object> stats(SeriesStats s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", s.n());
        m.put("mean", finite(s.mean()));
        m.put("median", finite(s.median()));
        m.put("robust_deviation", finite(s.robustDeviation()));
        m.put("min", finite(s.min()));
        m.put("max", finite(s.max()));
        m.put("p50", finite(s.p50()));
        m.put("p90", finite(s.p90()));
        m.put("p95", finite(s.p95()));
        m.put("p99", finite(s.p99()));
        m.put("p99_9", finite(s.p999()));
        m.put("p99_99", finite(s.p9999()));
        return m;
    }

    private static Map<String, Object> spec(RunSpec s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", s.count());
        m.put("warmup", s.warmupCount());
        m.put("size", s.size());
        m.put("rate", s.rate());
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

    /** The environment block every mode's summary shares (issue 15). */
    static Map<String, Object> env(EnvironmentInfo e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("host", e.hostname());
        m.put("jvm", e.jvm());
        m.put("os", e.os());
        m.put("cpu_model", e.cpuModel());
        m.put("logical_cores", e.logicalCores());
        m.put("physical_cores", e.physicalCores());
        return m;
    }

    /** JSON has no NaN: undefined values are null. */
    public static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    /** The hash every mode's {@code spec_hash} is: SHA-256 (hex) of the spec map's text. */
    public static String specHash(Map<String, Object> spec) {
        return sha256(spec.toString());
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void write(Path file, Map<String, Object> summary) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), summary);
    }
}
