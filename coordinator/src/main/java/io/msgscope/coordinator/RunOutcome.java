package io.msgscope.coordinator;

import io.msgscope.core.RunSpec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a trace run brought back, complete or not: the raw series (absent slots stay
 * {@code Long.MIN_VALUE}), the agents' counters, where each agent ran, and the failure if any.
 */
public final class RunOutcome {
    public final RunSpec spec;
    public final String runId;
    public final long[] sendNs;
    public long[] intendedNs;
    public final long[] recvNs;
    public final Map<String, AgentInfo> agents = new LinkedHashMap<>();
    public final List<String> warnings = new ArrayList<>();
    public long sent;
    public long received;
    public long duplicates;
    public long reordered;
    public long outOfRange;
    public long relayForwarded = -1;
    public long warmupReceived;
    /** The warm-up ended with the receiver's count: {@code warmup_lost} is known (issue 16). */
    public boolean warmupDone;
    public boolean receiverTimedOut;
    public long measureWallNs;
    /** Wall-clock time (ms since the epoch) the measurement was started: latency.hlog's first interval. */
    public long measureEpochMs;
    /** Sample series (CPU every Nth message, network, sidecar), by series, as uploaded. */
    public final Map<io.msgscope.proto.Series, long[]> samples = new java.util.EnumMap<>(io.msgscope.proto.Series.class);
    /** Per role: samples taken and ns spent taking them during the measurement (the sampling overhead). */
    public final Map<String, TraceResult.Sampling> sampling = new LinkedHashMap<>();
    /** Sidecar mode: what the probe sampled, and the clock offset probe − receiver box. */
    public String sidecarSource;
    public ClockOffset sidecarOffset;
    public ClockOffset sidecarOffsetAfter;
    public boolean sidecarSameBox;
    /** The receiver's data interface, where network utilisation was sampled (M4). */
    public String netInterface = "";
    /** The destination the receiver reported (e.g. an AMQP server-named queue); empty for tcp. */
    public String destination = "";
    /** Counters the drivers reported (messages_acked, returned, errors, ...). */
    public final Map<String, Long> driverCounters = new java.util.TreeMap<>();
    /** Heap bytes each role's hot thread allocated while measuring (-1 = unknown), by role name. */
    public final Map<String, Long> hotThreadAllocatedBytes = new LinkedHashMap<>();
    public boolean sendUploaded;
    public boolean recvUploaded;
    /** True once the sender's (receiver's) measurement report came with its count; else counted from the trace. */
    public boolean sentReported;
    public boolean receivedReported;
    /** Roles whose trace upload failed: the loss over what both sides recorded is then unknown (issue 16). */
    public final java.util.Set<String> tracesMissing = new java.util.TreeSet<>();

    /** Lost = sent − received over what both sides recorded, known only when both traces came. */
    public boolean lossKnown() {
        return tracesMissing.isEmpty();
    }
    /** Null when the run succeeded. */
    public String failure;
    /** The phase the run was in: set-up, warm-up, measurement, upload; then analysis (the coordinator's checks). */
    public String phase = "set-up";
    /** The phase a failure ended ({@code failed_during}, as in scenarios); null when the run succeeded. */
    public String failedDuring;
    public boolean usageFailure;

    public RunOutcome(RunSpec spec, String runId) {
        this.spec = spec;
        this.runId = runId;
        int n = (int) spec.count();
        sendNs = new long[n];
        recvNs = new long[n];
        java.util.Arrays.fill(sendNs, Long.MIN_VALUE);
        java.util.Arrays.fill(recvNs, Long.MIN_VALUE);
    }

    public boolean failed() {
        return failure != null;
    }

    /** What the run brought back, as the writers and the command read it: a failure without a phase is analysis's. */
    public TraceResult result() {
        TraceResult.Failure f = failure == null ? null
                : new TraceResult.Failure(failure, failedDuring != null ? failedDuring : "analysis", usageFailure);
        TraceResult.Sidecar sidecar = sidecarOffset == null ? null
                : new TraceResult.Sidecar(sidecarSource, sidecarOffset, sidecarOffsetAfter, sidecarSameBox);
        return new TraceResult(spec, runId, f, warnings, agents, destination,
                new TraceResult.Traces(sendNs, intendedNs, recvNs, tracesMissing),
                new TraceResult.Counts(sent, sentReported, received, receivedReported, duplicates, reordered,
                        outOfRange, relayForwarded, warmupReceived, warmupDone),
                driverCounters, hotThreadAllocatedBytes,
                new TraceResult.Samples(samples, sampling, netInterface, sidecar), measureEpochMs);
    }
}
