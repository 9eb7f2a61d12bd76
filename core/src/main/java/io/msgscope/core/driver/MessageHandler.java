package io.msgscope.core.driver;

import java.nio.ByteBuffer;

/**
 * Called once per whole message delivered by a {@link Subscriber}. The buffer is the driver's
 * own receive buffer, little-endian; the message occupies {@code [offset, offset + size)}.
 * Take the receive time first thing (Q2) and do not keep a reference to the buffer.
 */
@FunctionalInterface
public interface MessageHandler {
    void onMessage(ByteBuffer buffer, int offset);
}
