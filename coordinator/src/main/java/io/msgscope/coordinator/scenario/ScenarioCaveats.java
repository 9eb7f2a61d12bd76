package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.results.LatencyFigures;

import java.util.Locale;

/**
 * What a scenario's figures do not say by themselves (issue 27): publishers that fell behind their schedule, and
 * what connect_time times (a driver's own caveats come from {@code Driver.latencyCaveat}).
 */
final class ScenarioCaveats {
    /** Intended-time p50 this far above the actual-send p50 means the publishers sent late, not the broker slow. */
    static final double BEHIND_US = 10_000;

    private ScenarioCaveats() {
    }

    /**
     * A warning when the publishers fell behind: sends were deferred (a full window) and the latency from the
     * intended send time has a p50 more than {@link #BEHIND_US} above the latency from the actual send. Null otherwise.
     */
    static String fellBehind(long sendsDeferred, LatencyFigures actual, LatencyFigures intended) {
        if (sendsDeferred <= 0 || actual == null || intended == null || actual.p50Us() == null
                || intended.p50Us() == null || intended.p50Us() - actual.p50Us() <= BEHIND_US) {
            return null;
        }
        return String.format(Locale.ROOT, "the publishers fell behind their schedule: %,d sends deferred (a publisher's "
                + "window was full), intended_latency p50 %.1f ms against latency p50 %.1f ms from the actual send; "
                + "the rates are what the system delivered, not the rate asked. Not failed: every scheduled message "
                + "was sent, late (a trace run fails with \"fell behind its rate\" only when it sends below 95 %% of "
                + "--rate)", sendsDeferred, intended.p50Us() / 1e3, actual.p50Us() / 1e3);
    }

    /**
     * What connect_time times: each open call of the connection ramp, which for an agent's first connections also
     * loads and warms up the client library; with few connections that cold start is most of the percentiles.
     * Null when no connection was timed.
     */
    static String connectTime(long timed) {
        if (timed <= 0) {
            return null;
        }
        return "connect_time_*: each connection's open call on the ramp's threads (TCP connect to the broker's answer; "
                + "a subscriber also its subscription's confirmation); an agent's first opens also load and warm up "
                + "the client library (classes, JIT, event loops, TLS), so over " + timed + " connection"
                + (timed == 1 ? "" : "s") + " the cold start weighs " + (timed < 100 ? "heavily in every percentile "
                + "(hundreds of ms here for a handful, ~1 ms over 2,000)" : "in the top percentiles and the max");
    }
}
