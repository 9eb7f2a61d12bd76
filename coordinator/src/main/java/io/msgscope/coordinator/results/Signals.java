package io.msgscope.coordinator.results;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * Ctrl-C's handler around a mode's measurement (issue 29): the command installs its own ({@code cli.Interrupts}), so
 * no mode holds signal code. {@code onSignal} gets the first signal's name ({@code SIGINT}, {@code SIGTERM}) on a
 * thread of its own; closing the returned handle puts the previous handlers back.
 */
@FunctionalInterface
public interface Signals {
    AutoCloseable install(Consumer<String> onSignal) throws IOException;
}
