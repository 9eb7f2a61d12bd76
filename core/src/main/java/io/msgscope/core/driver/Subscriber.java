package io.msgscope.core.driver;

import java.io.IOException;

/**
 * The receiving side of one connection. Owned by one thread; no allocation per message.
 */
public interface Subscriber extends AutoCloseable {
    /**
     * Waits up to {@code timeoutMs} for data and delivers every whole message received to the
     * handler.
     *
     * @return messages delivered (0 on timeout), or -1 when the peer closed the connection
     */
    int poll(MessageHandler handler, long timeoutMs) throws IOException;

    /** The local address of the receiving connection (for network sampling, M4), or null if unknown. */
    default java.net.InetAddress localAddress() {
        return null;
    }

    @Override
    void close() throws IOException;
}
