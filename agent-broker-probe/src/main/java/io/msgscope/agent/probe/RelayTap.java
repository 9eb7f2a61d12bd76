package io.msgscope.agent.probe;

import io.msgscope.core.driver.MiddleBox;

import java.nio.ByteBuffer;

/**
 * The relay's hook on the whole messages it forwards, before they are written on: the clean place
 * for the probe's in-place CPU stamping every Nth message (D4, M3) and for user-space fault
 * injection (delay, loss). Called on the relay thread; must not allocate. The same hook serves a
 * driver's own {@link MiddleBox} (e.g. the ZeroMQ proxy), one message at a time; the raw-TCP relay
 * (the tcp driver's middle box) hands it every read's whole messages at once ({@link MiddleBox.Tap#onMessages}).
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
}
