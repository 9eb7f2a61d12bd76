package io.msgscope.core.driver;

import java.io.IOException;

/**
 * The broker's own view of a consumer's backlog, read through the protocol on a connection of its own (issue 31
 * item 3): sampled several times a second during a run with paused consumers, beside the tool's own count of messages
 * in flight. Called from one thread.
 */
public interface BacklogProbe extends AutoCloseable {
    /** Messages the broker holds for the consumer now, as it reports them. */
    long depth() throws IOException;

    /**
     * At most this many messages a paused consumer holds (delivered to it, not acknowledged) that {@link #depth} leaves
     * out, so a read may be below the messages the broker accepted and the consumer did not take by up to this
     * (AMQP 0-9-1: the prefetch); 0 where the count includes them, -1 where there is no bound (no prefetch limit).
     */
    default long heldUncountedMax() {
        return 0;
    }

    /** What {@link #depth} reads, in words, for the results (e.g. "queue.declare passive: message_count"). */
    String source();

    @Override
    void close() throws IOException;
}
