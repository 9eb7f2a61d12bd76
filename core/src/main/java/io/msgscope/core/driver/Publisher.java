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
     * Sends one message of {@code length} bytes at {@code offset} of {@code buffer} if the driver can take
     * it now without waiting, as the scenario runtime's pacers need (issue 13: one pacer thread serves
     * many connections, so one full window must not hold up the others). Returns false when the driver's
     * window (e.g. {@code max_inflight} unacknowledged publishes) is full; the caller offers the same
     * message again later, its intended send time unchanged. Like {@link #send}, the bytes are taken
     * before it returns true. The default calls {@link #send}, which may wait: library engines that can
     * only block keep it, and the wait shows as lateness in the intended-time latency.
     *
     * @throws IOException when the connection is unusable, as {@link #send}
     */
    default boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        send(buffer, offset, length);
        return true;
    }

    /**
     * Waits until everything sent has been taken by the system under test as far as the driver's
     * guarantees go (publisher confirms, PUBACK/PUBCOMP, a flush); a no-op where nothing is pending.
     */
    default void drain(long timeoutMs) throws IOException {
    }

    /**
     * Asks, without waiting, for what {@link #drain} will wait for, where the driver must ask for it (a NATS PING):
     * a caller draining thousands of publishers calls this on each first, so that the answers come in together and
     * the drains that follow take one round trip in all rather than one each. A no-op by default.
     */
    default void beginDrain() throws IOException {
    }

    /** Driver counters for the results (e.g. messages_acked, returned); read after the run. */
    default java.util.Map<String, Long> counters() {
        return java.util.Map.of();
    }

    /**
     * The measured sequences sent and never confirmed by the system under test, as sorted {@code [from, to)} pairs
     * ({@link Confirmations#unconfirmedRanges}), read after {@link #drain}; null when these settings confirm nothing
     * (core NATS, QoS 0: loss is allowed, no guarantee to violate) or when there were too many ranges to hand over.
     * A message lost that is not among them was confirmed: a guarantee violation (issue 32 item 3).
     */
    default long[] unconfirmed() {
        return null;
    }

    /** Whether these settings confirm messages at all, so a lost confirmed message violates a guarantee. */
    default boolean confirms() {
        return false;
    }

    /**
     * Measured messages the system under test has confirmed so far (accepted: a publisher confirm's ack, a JetStream
     * publish ack), or -1 when these settings confirm nothing. Any thread may call it while sending goes on: a backlog
     * run samples it to compare the broker's count with what the broker accepted, not with what was sent (issue 31).
     */
    default long confirmedSoFar() {
        return -1;
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
