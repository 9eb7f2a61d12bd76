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
import java.util.ArrayList;
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

    public static Map<String, Object> build(RunOutcome out, AnalysisResult a, EnvironmentInfo coordinatorEnv,
                                            String startedAt, List<String> files) {
        Map<String, Object> spec = spec(out.spec);
        // the phase (issue 16): set-up, warm-up, measurement or upload; analysis for the coordinator's verdicts
        Envelope envelope = Envelope.of("trace", out.runId, out.spec.driver(), startedAt, out.failure,
                out.failedDuring != null ? out.failedDuring : "analysis", out.warnings, spec, sha256(spec.toString()),
                traceEnvironment(out, coordinatorEnv));
        Map<String, Object> root = envelope.toMap();
        root.put("topology", topology(out));

        Map<String, Object> c = new LinkedHashMap<>();
        int size = out.spec.size();
        // a count neither reported nor recorded in an uploaded trace is unknown, not 0 (issue 16)
        boolean sentKnown = out.sentReported || !out.tracesMissing.contains("sender");
        boolean receivedKnown = out.receivedReported || !out.tracesMissing.contains("receiver");
        c.put("messages_sent", sentKnown ? out.sent : null);
        c.put("messages_received", receivedKnown ? out.received : null);
        // lost = sent - received over what both recorded: unknown unless both traces came (issue 16)
        c.put("messages_lost", out.lossKnown() ? a.lost() : null);
        c.put("duplicates", out.duplicates);
        c.put("reordered", out.reordered);
        c.put("out_of_range", out.outOfRange);
        c.put("bytes_sent", sentKnown ? out.sent * size : null);
        c.put("bytes_received", receivedKnown ? out.received * size : null);
        c.put("warmup_sent", out.spec.warmupCount());
        c.put("warmup_received", out.warmupReceived);
        // as in scenarios (issue 16): what never arrived of the warm-up, reported, never failed; null if it never ended
        c.put("warmup_lost", out.warmupDone ? Math.max(0, out.spec.warmupCount() - out.warmupReceived) : null);
        c.put("relay_forwarded", out.relayForwarded < 0 ? null : out.relayForwarded);
        c.put("negative_latencies_clamped", a.clampedNegative());
        c.put("latencies_above_histogram_range", a.aboveRange());
        c.putAll(out.driverCounters);
        root.put("counters", c);

        Map<String, Object> alloc = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : out.hotThreadAllocatedBytes.entrySet()) {
            long n = e.getKey().equals("relay") ? out.relayForwarded : e.getKey().equals("sender") ? out.sent
                    : out.received;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("bytes", e.getValue() < 0 ? null : e.getValue());
            m.put("bytes_per_message", e.getValue() < 0 || n <= 0 ? null : (double) e.getValue() / n);
            alloc.put(e.getKey(), m);
        }
        root.put("hot_thread_allocation", alloc);

        Map<String, Object> latency = new LinkedHashMap<>();
        a.q4Fields().forEach((k, v) -> latency.put(k, finite(v)));
        root.put("latency", latency);
        root.put("throughput", throughput(out, a));

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

    /** The coordinator's machine and each agent's, with the pinning it obtained. */
    private static Map<String, Object> traceEnvironment(RunOutcome out, EnvironmentInfo coordinatorEnv) {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("coordinator", env(coordinatorEnv));
        Map<String, Object> agents = new LinkedHashMap<>();
        for (AgentInfo info : out.agents.values()) {
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
    static String topology(RunOutcome out) {
        if (out.spec.driver().equals("tcp")) {
            boolean direct = "direct".equalsIgnoreCase(out.spec.driverOptions().getOrDefault("via", "relay").trim());
            return direct ? "sender -> receiver (raw TCP, one hop" + (out.destination.isEmpty() ? ""
                    : ", receiver listening on " + out.destination) + ")" : "sender -> relay -> receiver (raw TCP, loopback)";
        }
        return "sender -> broker " + out.spec.uriForDisplay() + " -> receiver"
                + (out.destination.isEmpty() ? "" : " (destination " + out.destination + ")");
    }

    /** Whole-run rates: messages over the span from first to last, on each side. */
    private static Map<String, Object> throughput(RunOutcome out, AnalysisResult a) {
        Map<String, Object> t = new LinkedHashMap<>();
        double send = rate(out.sendNs, out.sent);
        double recv = rate(out.recvNs, out.received);
        t.put("send_msg_s", finite(send));
        t.put("receive_msg_s", finite(recv));
        t.put("send_bytes_s", finite(send * out.spec.size()));
        t.put("receive_bytes_s", finite(recv * out.spec.size()));
        t.put("st_median_msg_s", finite(a.stMsgPerSec().median()));
        t.put("rt_median_msg_s", finite(a.rtMsgPerSec().median()));
        t.put("st_rt_windows", io.msgscope.analysis.RateWindow.describe(a.window(), a.rateWindowMinNs()));
        t.put("window_min_ms", a.rateWindowMinNs() / 1e6);
        t.put("st_windows_longer_than_m", a.stExtended());
        t.put("rt_windows_longer_than_m", a.rtExtended());
        return t;
    }

    /** Messages per second over the span of the present times: (n - 1) / (last - first). */
    public static double rate(long[] times, long n) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long v : times) {
            if (v != Long.MIN_VALUE) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        if (n < 2 || max <= min) {
            return Double.NaN;
        }
        return (n - 1) * 1e9 / (max - min);
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
