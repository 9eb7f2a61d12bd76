package io.msgscope.agent.probe;

import io.msgscope.core.driver.MiddleBox;

/**
 * The relay's hook on every whole message it forwards, before it is written on: the clean place
 * for the probe's in-place CPU stamping every Nth message (D4, M3) and for user-space fault
 * injection (delay, loss). Called on the relay thread; must not allocate. The same hook serves a
 * driver's own {@link MiddleBox} (e.g. the ZeroMQ proxy).
 */
@FunctionalInterface
public interface RelayTap extends MiddleBox.Tap {
    RelayTap NONE = (buffer, offset, index) -> { };
}
