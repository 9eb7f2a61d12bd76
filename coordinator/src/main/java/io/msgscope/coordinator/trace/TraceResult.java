package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.agents.AgentInfo;
import io.msgscope.coordinator.agents.ClockOffset;
import io.msgscope.coordinator.faults.FaultLog;
import io.msgscope.analysis.Trace;
import io.msgscope.core.RunSpec;
import io.msgscope.proto.Series;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a trace run brought back, complete or not, as the results, the console and the command read it (issue 15: the
 * run accumulates privately and hands over this value, as JMH's runner hands its result to the {@code ResultFormat}
 * writers). Immutable: its lists, sets and maps are unmodifiable copies in the run's order. The {@code long[]}
 * series (the traces, the sample series) are shared with the run rather than copied — they can take hundreds of MB —
 * and are read-only by contract: nothing writes into them once the run has returned.
 *
 * @param spec                    the run's spec
 * @param runId                   the id the agents were given
 * @param failure                 why the run failed, or null when it did not
 * @param warnings                what the reader must know to trust the figures, one line each, in the order said
 * @param agents                  where each agent ran and the pinning it obtained, by role, in the order they were
 *                                set up
 * @param destination             the destination the receiver reported (e.g. an AMQP server-named queue); empty for tcp
 * @param traces                  the recorded times, and which traces never came whole
 * @param counts                  the messages counted by the agents (or from their traces)
 * @param driverCounters          what the drivers reported (messages_acked, returned, errors, ...), by name, sorted
 * @param hotThreadAllocatedBytes heap bytes each role's hot thread allocated while measuring (-1 = unknown), by role
 * @param samples                 the sample series and what sampling cost
 * @param measureEpochMs          wall-clock time (ms since the epoch) the measurement was started, 0 if it never was:
 *                                latency.hlog's first interval
 * @param faults                  the faults planned and as the broker-probe agent applied them (issue 32); none: empty
 * @param guarantee               what the publisher's settings confirmed, for the guarantee check (issue 32 item 3)
 * @param clocks                  sender and receiver on two boxes (issue 33 item 3): how their clocks were followed and
 *                                the send stamps moved onto the receiver's; null on one box
 */
public record TraceResult(RunSpec spec, String runId, Failure failure, List<String> warnings,
                          Map<String, AgentInfo> agents, String destination, Traces traces, Counts counts,
                          Map<String, Long> driverCounters, Map<String, Long> hotThreadAllocatedBytes,
                          Samples samples, long measureEpochMs, FaultLog faults,
                          io.msgscope.analysis.Guarantee guarantee, TraceClocks clocks) {

    public TraceResult {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(traces, "traces");
        Objects.requireNonNull(counts, "counts");
        Objects.requireNonNull(samples, "samples");
        warnings = List.copyOf(warnings);
        agents = ordered(agents);
        destination = Objects.requireNonNullElse(destination, "");
        driverCounters = ordered(driverCounters);
        hotThreadAllocatedBytes = ordered(hotThreadAllocatedBytes);
        faults = Objects.requireNonNullElse(faults, FaultLog.NONE);
        guarantee = Objects.requireNonNullElse(guarantee, io.msgscope.analysis.Guarantee.NONE);
    }

    /**
     * Why a run failed.
     *
     * @param reason      one line
     * @param during      the phase it ended: set-up, warm-up, measurement or upload, or analysis for the coordinator's
     *                    own checks ({@code failed_during})
     * @param usage       the user's input was at fault (exit code 2)
     * @param interrupted stopped by SIGINT or SIGTERM (issue 29)
     * @param kind        what failed it, for what the coordinator adds (a driver's hint on lost messages)
     */
    public record Failure(String reason, String during, boolean usage, boolean interrupted, Kind kind) {
        public Failure {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(during, "during");
            Objects.requireNonNull(kind, "kind");
        }

        /** A failure of the run itself: an agent's, the set-up's, or an interruption. */
        public Failure(String reason, String during, boolean usage, boolean interrupted) {
            this(reason, during, usage, interrupted, Kind.RUN);
        }

        /** A failure of the run itself that is not an interruption (issue 29: SIGINT or SIGTERM, {@code interrupted}). */
        public Failure(String reason, String during, boolean usage) {
            this(reason, during, usage, false);
        }

        /** The same failure said with {@code more} after its reason. */
        public Failure adding(String more) {
            return new Failure(reason + "; " + more, during, usage, interrupted, kind);
        }
    }

    /** What failed a run: the run itself, or one of the coordinator's verdicts on what it recorded. */
    public enum Kind {
        /** An agent, the set-up or an interruption: the run did not complete as planned. */
        RUN,
        /** Messages sent were never received. */
        MESSAGES_LOST,
        /** Messages carried a sequence outside the run. */
        OUT_OF_RANGE,
        /** Messages arrived more than once, without --allow-duplicates. */
        DUPLICATES,
        /** The sender fell behind the rate asked. */
        FELL_BEHIND,
        /** trace.dat, read back, does not agree with the analysis (M12). */
        SELF_CHECK
    }

    /** Stopped by SIGINT or SIGTERM: the figures are over the part that ran (issue 29). */
    public boolean interrupted() {
        return failure != null && failure.interrupted();
    }

    /**
     * The times recorded per sequence number, absent slots {@link Trace#ABSENT}. The arrays are the run's own, shared
     * read-only (see the class comment).
     *
     * @param sendNs     O_n, the sender's stamps
     * @param intendedNs the intended send times (rate mode), or null when none were uploaded
     * @param recvNs     I_n, the receiver's stamps
     * @param missing    the roles (sender, receiver) whose trace upload failed, sorted: then what both sides recorded
     *                   is not all there, and the loss over it is unknown (issue 16)
     */
    public record Traces(long[] sendNs, long[] intendedNs, long[] recvNs, Set<String> missing) {
        public Traces {
            Objects.requireNonNull(sendNs, "sendNs");
            Objects.requireNonNull(recvNs, "recvNs");
            missing = Collections.unmodifiableSet(new LinkedHashSet<>(missing));
        }
    }

    /**
     * The messages counted.
     *
     * @param sent             as the sender reported it, or counted from its uploaded trace when the report never came
     * @param sentReported     the sender's measurement report came with its count
     * @param received         likewise for the receiver
     * @param receivedReported the receiver's measurement report came with its count
     * @param duplicates       messages delivered more than once (the first arrival is measured)
     * @param reordered        messages that arrived after a later one
     * @param outOfRange       messages carrying a sequence outside the run
     * @param relayForwarded   what the relay forwarded, -1 without a relay (or without its count)
     * @param warmupReceived   warm-up messages that arrived
     * @param warmupDone       the warm-up ended with the receiver's count, so what it lost is known
     */
    public record Counts(long sent, boolean sentReported, long received, boolean receivedReported, long duplicates,
                         long reordered, long outOfRange, long relayForwarded, long warmupReceived,
                         boolean warmupDone) {
    }

    /**
     * What the agents sampled besides the traces.
     *
     * @param series       CPU every Nth message, network and sidecar series, as uploaded (arrays shared read-only)
     * @param overhead     per role (sender, receiver, probe): samples taken and the time spent taking them
     * @param netInterface the receiver's data interface, where network utilisation was sampled (M4); may be empty
     * @param sidecar      the sidecar probe, or null unless its clock offset was measured
     */
    public record Samples(Map<Series, long[]> series, Map<String, Sampling> overhead, String netInterface,
                          Sidecar sidecar) {
        public Samples {
            EnumMap<Series, long[]> copy = new EnumMap<>(Series.class);
            copy.putAll(series);
            series = Collections.unmodifiableMap(copy);
            overhead = ordered(overhead);
            netInterface = Objects.requireNonNullElse(netInterface, "");
        }
    }

    /** One role's sampling during the measurement: samples taken, and the ns spent taking them. */
    public record Sampling(long samples, long ns) {
    }

    /**
     * The sidecar probe (broker CPU sampled beside the broker).
     *
     * @param source      what the probe sampled, as it said; null when its report never came
     * @param offset      probe clock − receiver clock before the run
     * @param offsetAfter the same after the run, or null when it was not measured
     * @param sameBox     probe and receiver share one boot: the offset is exactly 0
     */
    public record Sidecar(String source, ClockOffset offset, ClockOffset offsetAfter, boolean sameBox) {
        public Sidecar {
            Objects.requireNonNull(offset, "offset");
        }
    }

    public boolean failed() {
        return failure != null;
    }

    /** The failure's reason, or null when the run did not fail. */
    public String failureReason() {
        return failure == null ? null : failure.reason();
    }

    /** This result with {@code f} as its failure (the coordinator's verdict after the analysis). */
    public TraceResult withFailure(Failure f) {
        return new TraceResult(spec, runId, f, warnings, agents, destination, traces, counts, driverCounters,
                hotThreadAllocatedBytes, samples, measureEpochMs, faults, guarantee, clocks);
    }

    /** This result with one more warning at the end (null: this result as it is). */
    public TraceResult withWarning(String w) {
        if (w == null) {
            return this;
        }
        List<String> more = new java.util.ArrayList<>(warnings);
        more.add(w);
        return new TraceResult(spec, runId, failure, more, agents, destination, traces, counts, driverCounters,
                hotThreadAllocatedBytes, samples, measureEpochMs, faults, guarantee, clocks);
    }

    /**
     * Lost messages the system had confirmed (issue 32 item 3), or null when unknown: the settings confirm nothing
     * (no guarantee), the publisher could not say which it confirmed, or the loss itself is unknown.
     */
    public Long guaranteeViolations() {
        return lossKnown() ? guarantee.violations(trace()) : null;
    }

    /** The traces as the analysis reads them. */
    public Trace trace() {
        return new Trace(spec.count(), traces.sendNs(), traces.intendedNs(), traces.recvNs());
    }

    /** Lost = sent − received over what both sides recorded, known only when both traces came. */
    public boolean lossKnown() {
        return traces.missing().isEmpty();
    }

    /** The sent count is known: reported, or recorded in the sender's uploaded trace (else it is unknown, not 0). */
    public boolean sentKnown() {
        return counts.sentReported() || !traces.missing().contains("sender");
    }

    /** Likewise for the received count. */
    public boolean receivedKnown() {
        return counts.receivedReported() || !traces.missing().contains("receiver");
    }

    /**
     * Duplicates, reordered and out-of-range messages are counted by the receiver as they arrive and come only with
     * its measurement report: its trace keeps each sequence's first arrival, so they cannot be counted from it. Without
     * the report they are unknown, not 0 (issue 27).
     */
    public boolean arrivalCountsKnown() {
        return counts.receivedReported();
    }

    /** The whole run's send rate: messages over the span from the first send to the last. */
    public double sendRate() {
        return rate(traces.sendNs(), counts.sent());
    }

    /**
     * The whole run's receive rate: messages over the span from the first send to the last arrival (issue 27). From
     * the first arrival, a start-up stall that delivered the first messages late and together shortened the span
     * and raised the rate above the one asked of the sender (24,920 msg/s received at --rate 20000); a message
     * cannot arrive before it was sent, so this span is never shorter than the sending one.
     */
    public double receiveRate() {
        return deliveredRate(traces.sendNs(), traces.recvNs(), counts.received());
    }

    /**
     * (n - 1) / (last arrival - first send, or first arrival when nothing earlier was sent); NaN under 2 or no span.
     */
    public static double deliveredRate(long[] sendNs, long[] recvNs, long n) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (long v : recvNs) {
            if (v != Trace.ABSENT) {
                first = Math.min(first, v);
                last = Math.max(last, v);
            }
        }
        for (long v : sendNs) {
            if (v != Trace.ABSENT) {
                first = Math.min(first, v);
            }
        }
        if (n < 2 || last == Long.MIN_VALUE || last <= first) {
            return Double.NaN;
        }
        return (n - 1) * 1e9 / (last - first);
    }

    /** Messages per second over the span of the present times: (n - 1) / (last - first); NaN under 2 or no span. */
    public static double rate(long[] times, long n) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long v : times) {
            if (v != Trace.ABSENT) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        if (n < 2 || max <= min) {
            return Double.NaN;
        }
        return (n - 1) * 1e9 / (max - min);
    }

    private static <K, V> Map<K, V> ordered(Map<K, V> m) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(m));
    }
}
