package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.result.LatencyFigures;

import java.util.Locale;

/**
 * What a scenario's figures do not say by themselves (issue 27): publishers that fell behind their schedule, and
 * the JetStream pull consumer's fetch batches in its latency.
 */
final class ScenarioCaveats {
    /** Intended-time p50 this far above the actual-send p50 means the publishers sent late, not the broker slow. */
    static final double BEHIND_US = 10_000;
    /** The JetStream pull consumer's batch and wait per fetch (driver-nats NatsSubscriber: PULL_BATCH, 1 s). */
    static final int PULL_BATCH = 256;
    static final double PULL_WAIT_S = 1.0;

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
     * For a JetStream pull consumer: each subscriber fetches up to {@link #PULL_BATCH} messages per request, and a
     * request waits up to {@link #PULL_WAIT_S} s for its batch to fill, so at a low rate per subscriber a message
     * waits in the stream for its batch. Null for other drivers.
     */
    static String pullBatch(ScenarioConfig c, long received, double seconds) {
        if (!c.driver().equals("nats") || !"true".equalsIgnoreCase(c.options().get("jetstream"))
                || !"pull".equalsIgnoreCase(c.options().get("consumer")) || seconds <= 0) {
            return null;
        }
        double perSubscriber = received / seconds / Math.max(1, c.subscribers());
        double fillS = perSubscriber <= 0 ? PULL_WAIT_S : Math.min(PULL_WAIT_S, PULL_BATCH / perSubscriber);
        return String.format(Locale.ROOT, "JetStream pull consumer: each subscriber fetches up to %d messages per "
                + "request and a request waits up to %.0f s for its batch to fill; at %.0f msg/s per subscriber a batch "
                + "takes %.0f ms, so a message waits up to that long in the stream before it is fetched (about half of "
                + "it at p50): the latency shows the fetch batching, not JetStream's delivery", PULL_BATCH,
                PULL_WAIT_S, perSubscriber, fillS * 1e3);
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
