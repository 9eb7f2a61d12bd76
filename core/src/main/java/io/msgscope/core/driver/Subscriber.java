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
