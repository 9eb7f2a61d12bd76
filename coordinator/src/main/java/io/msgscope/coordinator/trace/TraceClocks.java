package io.msgscope.coordinator.trace;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.SeriesStats;
import io.msgscope.analysis.Trace;
import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlHub;
import io.msgscope.coordinator.agents.ClockErrorLimit;
import io.msgscope.coordinator.agents.ClockTrack;
import io.msgscope.coordinator.agents.ClockTracker;
import io.msgscope.coordinator.agents.ClockStampCorrection;
import io.msgscope.core.clock.OffsetFit;
import io.msgscope.proto.Series;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A trace run across two boxes (issue 33 item 3). M1 wants O_n and I_n from one CLOCK_MONOTONIC; when the sender's
 * and the receiver's boot ids differ (or one is unknown) the run is cross-host: the sender's monotonic clock is
 * followed against the receiver's through the warm-up and the measurement ({@link ClockTracker#monotonic}, probes
 * between the coordinator's waits), and once the traces are in, every send stamp — O_n, the intended time, the
 * sender's CPU sample times — is moved onto the receiver's clock by the offset at its own message's arrival
 * ({@link ClockStampCorrection}). Everything after (latency, ST/RT, phases, trace.dat, the plots) then reads one clock;
 * the uncorrected latency (the two clocks subtracted as they are) is kept in the summary beside the bound.
 *
 * @param track        the fitted offset sender − receiver on the receiver's clock (no fit: nothing was corrected)
 * @param why          what made the run cross-host, in words
 * @param errorBoundNs the widest bound over the messages that arrived, ns
 * @param uncorrected  I_n − O_n with the two clocks as they were (may be negative), ns
 */
record TraceClocks(ClockTrack track, String why, double errorBoundNs, SeriesStats uncorrected) {

    /** Set-up: a tracker probing between the coordinator's waits when the two agents are not known to share a box. */
    static ClockTracker start(ControlHub hub, AgentLink sender, AgentLink receiver, ClockErrorLimit limit)
            throws AgentFailure {
        ClockTracker tracker = ClockTracker.monotonic(hub, sender, receiver, limit);
        if (tracker.active()) {
            tracker.probe();
            hub.between(tracker::probeIfDue);
        }
        return tracker;
    }

    /** After the measurement: a last probe, so that every message lies between two; no more probing. */
    static void stop(ControlHub hub, ClockTracker tracker) throws AgentFailure {
        hub.between(null);
        if (tracker != null && tracker.active()) {
            tracker.probe();
        }
    }

    /** Why the two agents count as two boxes. */
    static String why(AgentLink sender, AgentLink receiver) {
        return why(sender.helloAck().getEnvironment().getBootId(), receiver.helloAck().getEnvironment().getBootId());
    }

    /** Why boot ids {@code s} and {@code r} count as two boxes; null when they name one boot (M1 holds). */
    static String why(String s, String r) {
        if (ClockTracker.sameBoot(s, r)) {
            return null;
        }
        return s.isEmpty() || r.isEmpty() ? "a boot id is unknown, so one CLOCK_MONOTONIC cannot be assumed"
                : "their boot ids differ (" + s + ", " + r + ")";
    }

    /**
     * The correction of {@code out}'s traces by {@code tracker}'s fit, in place; null when the run is on one box. A
     * cross-host run without a fit (it failed before the first probe) is left as recorded, with a warning.
     */
    static TraceClocks correct(TraceCollector out, ClockTracker tracker, String why) {
        if (tracker == null || !tracker.active()) {
            return null;
        }
        SeriesStats raw = uncorrected(out.sendNs, out.recvNs);
        ClockTrack track = tracker.track();
        if (track.fits().isEmpty()) {
            out.warnings.add("sender and receiver ran on two boxes (" + why + ") but their clocks were never probed: "
                    + "latency subtracts two clocks uncorrected");
            return new TraceClocks(track, why, Double.NaN, raw);
        }
        OffsetFit fit = track.fits().values().iterator().next();
        ClockStampCorrection c = new ClockStampCorrection(fit);
        ClockStampCorrection.Moved moved = c.moveSends(out.sendNs, out.intendedNs, out.recvNs);
        for (Series own : new Series[] {Series.SENDER_SAMPLE_NS, Series.CONFIRM_SAMPLE_NS}) { // the sender's clock too
            long[] times = out.samples.get(own);
            if (times != null) {
                c.moveSenderTimes(times);
            }
        }
        return new TraceClocks(track, why, moved.errorBoundNs(), raw);
    }

    /** I_n − O_n over the messages with both stamps, the clocks as recorded. */
    static SeriesStats uncorrected(long[] sendNs, long[] recvNs) {
        long[] l = new long[sendNs.length];
        int n = 0;
        for (int i = 0; i < sendNs.length; i++) {
            if (sendNs[i] != Trace.ABSENT && recvNs[i] != Trace.ABSENT) {
                l[n++] = recvNs[i] - sendNs[i];
            }
        }
        return SeriesStats.ofLongs(l, n);
    }

    /** True when the stamps were moved. */
    boolean corrected() {
        return !track.fits().isEmpty();
    }

    /** {@code --max-clock-error} in ns for a run whose (corrected) p50 is {@code p50Us}. */
    Double limitNs(Double p50Us) {
        return track.limit().limitNs(p50Us == null || p50Us.isNaN() ? null : p50Us * 1e3);
    }

    /** The warning when the bound is wider than {@code --max-clock-error}; else null. */
    String warning(AnalysisResult a) {
        return corrected() ? track.limit().warning(errorBoundNs, limitNs(a.q4Fields().get("latency_p50_us"))) : null;
    }

    /** summary.json's {@code latency} additions: the bound beside the corrected figures, the uncorrected ones. */
    void putLatency(Map<String, Object> latency) {
        latency.put("clock_error_bound_us", corrected() ? errorBoundNs / 1e3 : null);
        Map<String, Object> q4 = new LinkedHashMap<>();
        AnalysisResult.q4Fields(uncorrected).forEach((k, v) -> q4.put("uncorrected_" + k, v.isNaN() ? null : v));
        latency.putAll(q4);
    }

    /** summary.json's {@code clock_tracking}: why cross-host, whether corrected, the probing and the fit. */
    Map<String, Object> toMap(AnalysisResult a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cross_host_because", why);
        m.put("clocks", "monotonic (O_n and I_n); each send stamp moved onto the receiver's clock by the offset at its "
                + "message's arrival");
        m.put("corrected", corrected());
        if (corrected()) {
            m.putAll(track.toMap(errorBoundNs, limitNs(a.q4Fields().get("latency_p50_us"))));
        }
        return m;
    }

    /** The console's line: the run is cross-host, corrected by how much, within what. */
    String consoleLine() {
        if (!corrected()) {
            return "cross-host: sender and receiver on two boxes (" + why + "); latency NOT corrected (no clock probe)";
        }
        OffsetFit f = track.fits().values().iterator().next();
        OffsetFit.Segment first = f.segments().get(0);
        return String.format(Locale.ROOT, "cross-host: sender and receiver on two boxes; latency corrected by the "
                        + "tracked clock offset (%.1f us at the first probe, drift %.2f ppm, %d step%s), within +/- %.1f us "
                        + "(a link slower one way than the other is not covered)", first.at(first.fromNs()) / 1e3,
                f.driftPpm(), f.steps().size(), f.steps().size() == 1 ? "" : "s", errorBoundNs / 1e3);
    }
}
