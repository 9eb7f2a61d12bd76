package io.msgscope.agent.probe;

import java.nio.ByteBuffer;

/**
 * The relay's hook on every whole message it forwards, before it is written on: the clean place
 * for the probe's in-place CPU stamping every Nth message (D4, M3) and for user-space fault
 * injection (delay, loss). Called on the relay thread; must not allocate.
 */
@FunctionalInterface
public interface RelayTap {
    RelayTap NONE = (buffer, offset, index) -> { };

    /**
     * @param index the number of this message on the relay, from 0, warm-up included
     */
    void onMessage(ByteBuffer buffer, int offset, long index);
}
