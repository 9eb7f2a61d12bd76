package io.msgscope.core.driver;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A publisher's asynchronous outcomes, counted from the client library's threads: acknowledged
 * publishes (warm-up messages, with a negative sequence, apart from measured ones), failed publishes,
 * and among those the ones the system under test refused; the first failure's one-line description is
 * kept for the results ({@link Publisher#firstError}). An ack is one atomic increment, nothing allocated.
 */
public final class AckCounts {
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong warmupAcked = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile String firstError;

    /** One publish acknowledged: a warm-up message counts as {@code warmup_acked}, a measured one as {@code messages_acked}. */
    public void acked(boolean warmup) {
        (warmup ? warmupAcked : acked).incrementAndGet();
    }

    /**
     * One publish failed ({@code publish_errors}); {@code message} is kept if it is the first failure. It
     * may be null, e.g. to spare building a description once {@link #firstError} holds one.
     */
    public void error(String message) {
        errors.incrementAndGet();
        keepFirst(message);
    }

    /** One publish refused by the system under test: a failure ({@code publish_errors}) and a refusal ({@code publish_refused}). */
    public void refused(String message) {
        refused.incrementAndGet();
        error(message);
    }

    private void keepFirst(String message) {
        if (firstError == null && message != null) {
            synchronized (this) {
                if (firstError == null) {
                    firstError = message;
                }
            }
        }
    }

    /** The first failure's description, or null when no publish failed. */
    public String firstError() {
        return firstError;
    }

    /** Measured publishes acknowledged so far ({@code messages_acked}); any thread may read it while acks arrive. */
    public long measuredAcked() {
        return acked.get();
    }

    /** Measured and warm-up acks together: whether the other side ever acknowledged anything. */
    public long totalAcked() {
        return acked.get() + warmupAcked.get();
    }

    /**
     * The counters for the results: {@code publish_errors} always; {@code messages_acked} and
     * {@code warmup_acked} where the publisher has acks; {@code publish_refused} where it can tell a
     * refusal from other failures.
     */
    public Map<String, Long> counters(boolean acks, boolean refusals) {
        Map<String, Long> m = new HashMap<>();
        m.put("publish_errors", errors.get());
        if (acks) {
            m.put("messages_acked", acked.get());
            m.put("warmup_acked", warmupAcked.get());
        }
        if (refusals) {
            m.put("publish_refused", refused.get());
        }
        return Map.copyOf(m);
    }
}
