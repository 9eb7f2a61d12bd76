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

    @Override
    void close() throws IOException;
}
