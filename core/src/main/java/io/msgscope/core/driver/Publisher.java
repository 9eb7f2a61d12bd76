package io.msgscope.core.driver;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The sending side of one connection. Owned by one thread; no allocation per message.
 */
public interface Publisher extends AutoCloseable {
    /**
     * Sends the whole messages in {@code [offset, offset + length)} of {@code buffer} (a multiple of
     * the message size), blocking until the transport has taken them.
     */
    void send(ByteBuffer buffer, int offset, int length) throws IOException;

    /**
     * Waits until everything sent has been taken by the system under test as far as the driver's
     * guarantees go (publisher confirms, PUBACK/PUBCOMP, a flush); a no-op where nothing is pending.
     */
    default void drain(long timeoutMs) throws IOException {
    }

    /** Driver counters for the results (e.g. messages_acked, returned); read after the run. */
    default java.util.Map<String, Long> counters() {
        return java.util.Map.of();
    }

    /**
     * The first asynchronous failure (a refused publish with its reason code, a missing ack), one line,
     * or null when there was none; failures of {@link #send} itself are thrown instead.
     */
    default String firstError() {
        return null;
    }

    @Override
    void close() throws IOException;
}
