package io.msgscope.core.driver;

import java.io.IOException;

/**
 * The receiving side of one connection; no allocation per message in the driver's own code.
 *
 * <p>Pull drivers (raw TCP) read and deliver inside {@link #poll} on the caller's thread. Push drivers
 * (client libraries with their own delivery thread) call the handler on that thread — one thread at
 * a time, in delivery order, first thing in the library's callback (Q2) — and {@link #poll} waits up
 * to the timeout and returns how many were delivered since the previous call, publishing the
 * handler's writes to the caller through a volatile counter.
 */
public interface Subscriber extends AutoCloseable {
    /**
     * Waits up to {@code timeoutMs} for data and delivers every whole message received to the
     * handler.
     *
     * @return messages delivered (0 on timeout), or -1 when the peer closed the connection
     */
    int poll(MessageHandler handler, long timeoutMs) throws IOException;

    /**
     * Push delivery, the scenario runtime's way (issue 13): from now on the driver calls {@code handler}
     * for every whole message on its own I/O thread, first thing in its read callback (Q2); one I/O
     * thread may serve many connections, one connection is never served by two threads at once. Messages
     * that arrived before this call are handed over first, in order. {@code ended} is called at most
     * once, with a one-line reason, when the subscription ends other than by {@link #close} (the
     * connection lost, the subscription refused or cancelled by the broker). No thread of the caller
     * waits, and nothing wakes up while no message arrives. Not combined with {@link #poll}.
     *
     * @throws UnsupportedOperationException for drivers that can only be polled (raw TCP)
     */
    default void start(MessageHandler handler, java.util.function.Consumer<String> ended) {
        throw new UnsupportedOperationException("this subscriber can only be polled");
    }

    /**
     * Stops consuming for a phase whose consumers are paused ({@code --phases ...@RATE/paused}, issue 31): from now on
     * no message reaches the handler and the system under test keeps what arrives (a backlog), until {@link #resume}.
     * Called on the polling thread, between polls. Only drivers whose {@link Driver#whyConsumersCannotPause} is null
     * for the run's options implement it.
     *
     * @throws UnsupportedOperationException for subscribers that cannot leave the messages with the broker
     */
    default void pause() throws IOException {
        throw new UnsupportedOperationException("this subscriber cannot pause");
    }

    /** Consumes again after {@link #pause}: the backlog is delivered from where it stopped. */
    default void resume() throws IOException {
        throw new UnsupportedOperationException("this subscriber cannot pause");
    }

    /**
     * Tells the broker, before a {@link BacklogProbe}'s last read, what this subscriber has consumed where the broker
     * counts it only when told (Kafka: the group's committed offsets, issue 31 item 3), waiting for its answer. Called
     * on the polling thread once receiving has ended. Default: nothing to tell.
     */
    default void settleConsumed() throws IOException {
    }

    /** Where publishers must send (an AMQP server-named queue, a topic, ...); empty when implicit. */
    default String destination() {
        return "";
    }

    /** Driver counters for the results (e.g. errors, short payloads); read after the run. */
    default java.util.Map<String, Long> counters() {
        return java.util.Map.of();
    }

    /** Why the system under test ended the subscription (poll returned -1), or null when unknown. */
    default String closeReason() {
        return null;
    }

    /** The local address of the receiving connection (for network sampling, M4), or null if unknown. */
    default java.net.InetAddress localAddress() {
        return null;
    }

    /**
     * What the client sees of the broker once connected, for the results: e.g. {@code broker},
     * {@code server_name}, {@code version}, {@code protocol}, limits announced at connect. Empty when
     * the protocol tells nothing.
     */
    default java.util.Map<String, String> serverInfo() {
        return java.util.Map.of();
    }

    @Override
    void close() throws IOException;
}
