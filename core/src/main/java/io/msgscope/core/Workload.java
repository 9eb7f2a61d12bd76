package io.msgscope.core;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What a run sends and through what — the part of a spec every mode shares (issue 15: one spec): the driver (M10) and
 * its broker address and options, the message size with its padding (R2), and the padding's seed. A trace or
 * throughput run's {@link RunSpec} and a scenario run's config each hold one and add only what their own roles read;
 * the control protocol's spec starts from it in one place ({@code control.RunSpecs.common}). Immutable; the
 * constructor checks every field and names the option that set it.
 *
 * @param driver        the driver's name: tcp (through the built-in relay), amqp, mqtt, ...
 * @param uri           the broker's address for broker drivers; empty for tcp
 * @param driverOptions driver-specific options ({@code --opt key=value}), as the agents use them
 * @param size          bytes per message, the measurement header included
 * @param padding       what fills each message after the header
 * @param seed          seed of random padding
 */
public record Workload(String driver, String uri, Map<String, String> driverOptions, int size, Padding padding,
                       long seed) {
    /** The smallest message: the measurement header alone. */
    public static final int MIN_SIZE = WireHeader.SIZE;
    /** The largest message. */
    public static final int MAX_SIZE = 64 * 1024 * 1024;

    public Workload {
        Objects.requireNonNull(driver, "driver");
        Objects.requireNonNull(padding, "padding");
        uri = uri == null ? "" : uri;
        driverOptions = Map.copyOf(driverOptions);
        if (driver.isBlank()) {
            throw new SpecException("--driver", "must name a driver, e.g. tcp");
        }
        checkSize(size);
    }

    /** A message size between the header alone and {@link #MAX_SIZE}, or a {@link SpecException} naming --size. */
    public static int checkSize(int size) {
        if (size < MIN_SIZE || size > MAX_SIZE) {
            throw new SpecException("--size", "must be between " + MIN_SIZE + " (the measurement header) and "
                    + MAX_SIZE + " bytes, got " + size);
        }
        return size;
    }

    /** The URI with its password masked, for output. */
    public String uriForDisplay() {
        return Secrets.uri(uri);
    }

    /** {@code zeros} or {@code random} as the CLI and spec files spell it, in any case. */
    public static Padding padding(String text) {
        try {
            return Padding.valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new SpecException("--padding", "must be zeros or random, got '" + text + "'");
        }
    }
}
