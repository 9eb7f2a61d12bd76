package io.msgscope.agent.probe;

import io.msgscope.core.driver.MiddleBox;

import java.nio.ByteBuffer;

/**
 * The relay's hook on the whole messages it forwards, before they are written on: the clean place
 * for the probe's in-place CPU stamping every Nth message (D4, M3) and for user-space fault
 * injection (delay, loss). Called on the relay thread; must not allocate. The same hook serves a
 * driver's own {@link MiddleBox} (e.g. the ZeroMQ proxy), one message at a time; the raw-TCP relay
 * hands it every read's whole messages at once ({@link #onMessages}).
 */
@FunctionalInterface
public interface RelayTap extends MiddleBox.Tap {
    /** Does nothing, per message or per batch. */
    RelayTap NONE = new RelayTap() {
        @Override
        public void onMessage(ByteBuffer buffer, int offset, long index) {
        }

        @Override
        public void onMessages(ByteBuffer buffer, int offset, int count, int size, long firstIndex) {
        }
    };

    /**
     * The {@code count} consecutive messages of {@code size} bytes at {@code offset} of {@code buffer}, the
     * first of them the relay's message {@code firstIndex}: what one read completed. The default calls
     * {@link #onMessage} for each; taps that can find the few messages they act on by arithmetic override it,
     * so the others cost nothing.
     */
    default void onMessages(ByteBuffer buffer, int offset, int count, int size, long firstIndex) {
        for (int i = 0, off = offset; i < count; i++, off += size) {
            onMessage(buffer, off, firstIndex + i);
        }
    }
}
