package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.agents.AgentInfo;
import io.msgscope.coordinator.agents.ClockOffset;
import io.msgscope.coordinator.faults.FaultLog;
import io.msgscope.core.RunSpec;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Series;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a trace run accumulates while it runs, private to the run (issue 15): {@link TraceRun} fills it on the
 * coordinator's thread — the raw series (absent slots stay {@code Long.MIN_VALUE}), the agents' counters, where each
 * agent ran, the phase and the failure if any — and hands the rest of the program its {@link #result()}, the
 * immutable {@link TraceResult}, once the run is over.
 */
final class TraceCollector {
    /** The run's spec; after the measurement its timeline is the one as run (issue 31: each drain's length). */
    RunSpec spec;
    final String runId;
    final long[] sendNs;
    long[] intendedNs;
    final long[] recvNs;
    final Map<String, AgentInfo> agents = new LinkedHashMap<>();
    final List<String> warnings = new ArrayList<>();
    long sent;
    long received;
    long duplicates;
    long reordered;
    long outOfRange;
    long relayForwarded = -1;
    long warmupReceived;
    /** The warm-up ended with the receiver's count: {@code warmup_lost} is known (issue 16). */
    boolean warmupDone;
    /** Wall-clock time (ms since the epoch) the measurement was started: latency.hlog's first interval. */
    long measureEpochMs;
    /** Sample series (CPU every Nth message, network, sidecar), by series, as uploaded. */
    final Map<Series, long[]> samples = new EnumMap<>(Series.class);
    /** Per role: samples taken and ns spent taking them during the measurement (the sampling overhead). */
    final Map<String, TraceResult.Sampling> sampling = new LinkedHashMap<>();
    /** Sidecar mode: what the probe sampled, and the clock offset probe − receiver box. */
    String sidecarSource;
    ClockOffset sidecarOffset;
    ClockOffset sidecarOffsetAfter;
    /** The faults planned (issue 32) and, after the measurement, as the probe reported them (its clock). */
    io.msgscope.core.fault.FaultPlan faultPlan = new io.msgscope.core.fault.FaultPlan(java.util.List.of());
    java.util.List<io.msgscope.proto.FaultApplied> faultsApplied = java.util.List.of();
    boolean sidecarSameBox;
    /** The receiver's data interface, where network utilisation was sampled (M4). */
    String netInterface = "";
    /** The destination the receiver reported (e.g. an AMQP server-named queue); empty for tcp. */
    String destination = "";
    /** Counters the drivers reported (messages_acked, returned, errors, ...). */
    final Map<String, Long> driverCounters = new TreeMap<>();
    /** Heap bytes each role's hot thread allocated while measuring (-1 = unknown), by role name. */
    final Map<String, Long> hotThreadAllocatedBytes = new LinkedHashMap<>();
    boolean sendUploaded;
    boolean recvUploaded;
    /** True once the sender's (receiver's) measurement report came with its count; else counted from the trace. */
    boolean sentReported;
    boolean receivedReported;
    /** Roles whose trace upload failed: the loss over what both sides recorded is then unknown (issue 16). */
    final Set<String> tracesMissing = new TreeSet<>();
    /** What the publisher's settings confirmed (issue 32 item 3). */
    io.msgscope.analysis.Guarantee guarantee = io.msgscope.analysis.Guarantee.NONE;
    /** Null while the run goes well. */
    String failure;
    /** The phase the run is in: set-up, warm-up, measurement, upload. */
    String phase = "set-up";
    /** The phase a failure ended ({@code failed_during}, as in scenarios); null: the coordinator's analysis. */
    String failedDuring;
    boolean usageFailure;
    /** The signal that interrupted the run (SIGINT, SIGTERM), null when none did (issue 29). */
    String interruptedBy;
    /** Sender and receiver on two boxes (issue 33 item 3): the clocks' correction, applied; null on one box. */
    TraceClocks clocks;

    TraceCollector(RunSpec spec, String runId) {
        this.spec = spec;
        this.runId = runId;
        int n = (int) spec.count();
        sendNs = new long[n];
        recvNs = new long[n];
        Arrays.fill(sendNs, Long.MIN_VALUE);
        Arrays.fill(recvNs, Long.MIN_VALUE);
    }

    /**
     * The sender's and the receiver's measurement reports: the counts, what sampling cost, what the hot threads
     * allocated, the receiver's interface, and the drivers' counters, the two sides' added up (Q5: errors are the
     * publisher's and the subscriber's).
     */
    void measured(PhaseDone sentReport, PhaseDone receivedReport) {
        sent = sentReport.getSent();
        sentReported = true;
        sampling.put("sender", new TraceResult.Sampling(sentReport.getSamples(), sentReport.getSamplingNs()));
        hotThreadAllocatedBytes.put("sender", sentReport.getHotThreadAllocatedBytes());
        received = receivedReport.getReceived();
        receivedReported = true;
        duplicates = receivedReport.getDuplicates();
        reordered = receivedReport.getReordered();
        outOfRange = receivedReport.getOutOfRange();
        hotThreadAllocatedBytes.put("receiver", receivedReport.getHotThreadAllocatedBytes());
        sampling.put("receiver", new TraceResult.Sampling(receivedReport.getSamples(),
                receivedReport.getSamplingNs()));
        netInterface = receivedReport.getNetInterface();
        if (sentReport.getConfirms()) {
            guarantee = new io.msgscope.analysis.Guarantee(true, sentReport.getUnconfirmedKnown()
                    ? sentReport.getUnconfirmedList().stream().mapToLong(Long::longValue).toArray() : null);
        }
        sentReport.getCountersMap().forEach((k, v) -> driverCounters.merge(k, v, Long::sum));
        receivedReport.getCountersMap().forEach((k, v) -> driverCounters.merge(k, v, Long::sum));
        long publishErrors = driverCounters.getOrDefault("publish_errors", 0L);
        if (publishErrors > 0 || driverCounters.containsKey("errors")) {
            driverCounters.merge("errors", publishErrors, Long::sum);
        }
    }

    /** The intended send times, created on the first chunk of them (rate mode only). */
    long[] intendedNs() {
        if (intendedNs == null) {
            intendedNs = new long[(int) spec.count()];
            Arrays.fill(intendedNs, Long.MIN_VALUE);
        }
        return intendedNs;
    }

    /** The run's first failure ends the phase it happened in; any later one is a warning. */
    void note(String message) {
        if (failure == null) {
            failure = message;
            failedDuring = phase;
        } else {
            warnings.add(message);
        }
    }

    /** Another agent's failure while one uploads, once, unless the run's failure already says it. */
    void setAside(String message) {
        String w = "during the uploads: " + message;
        if (!warnings.contains(w) && (failure == null || !failure.contains(message))) {
            warnings.add(w);
        }
    }

    /**
     * What arrived of a trace whose upload broke off is kept (issue 16: no recorded data dropped): trace.dat holds
     * those times, and a warning says how many, so a reader does not take them for the whole run.
     */
    void partial(String agent, String what, long[] times) {
        long arrived = recorded(times);
        if (arrived > 0) {
            warnings.add(String.format(Locale.ROOT, "the %s's trace arrived in part: %d of %d %s "
                    + "times, kept in trace.dat; latency covers the complete pairs only", agent, arrived,
                    times.length, what));
        }
    }

    /**
     * After a fault the agents' measurement reports may never have come: the counts are then taken from the
     * traces that were uploaded (issue 16), so summary.json agrees with trace.dat, and say so.
     */
    void countFromTraces() {
        if (!sentReported && sendUploaded) {
            sent = recorded(sendNs);
            warnings.add("messages_sent (" + sent + ") counted from the sender's uploaded trace: its "
                    + "measurement report never came");
        }
        if (!receivedReported && recvUploaded) {
            received = recorded(recvNs);
            warnings.add("messages_received (" + received + ") counted from the receiver's uploaded trace: "
                    + "its measurement report never came");
        }
    }

    private static long recorded(long[] times) {
        long n = 0;
        for (long t : times) {
            if (t != Long.MIN_VALUE) {
                n++;
            }
        }
        return n;
    }

    /** What the run brought back, as the writers and the command read it: a failure without a phase is analysis's. */
    TraceResult result() {
        TraceResult.Failure f = failure == null ? null
                : new TraceResult.Failure(failure, failedDuring != null ? failedDuring : "analysis", usageFailure,
                interruptedBy != null);
        if (interruptedBy != null && f == null) {
            f = new TraceResult.Failure("interrupted by " + interruptedBy + " after " + sent + " of " + spec.count()
                    + " measured messages were sent; every figure is over the part that ran", "measurement", false, true);
        }
        TraceResult.Sidecar sidecar = sidecarOffset == null ? null
                : new TraceResult.Sidecar(sidecarSource, sidecarOffset, sidecarOffsetAfter, sidecarSameBox);
        return new TraceResult(spec, runId, f, warnings, agents, destination,
                new TraceResult.Traces(sendNs, intendedNs, recvNs, tracesMissing),
                new TraceResult.Counts(sent, sentReported, received, receivedReported, duplicates, reordered,
                        outOfRange, relayForwarded, warmupReceived, warmupDone),
                driverCounters, hotThreadAllocatedBytes,
                new TraceResult.Samples(samples, sampling, netInterface, sidecar), measureEpochMs,
                FaultLog.of(faultPlan, faultsApplied, sidecarOffset == null ? 0 : sidecarOffset.offsetNs()), guarantee,
                clocks);
    }
}
