package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.agents.ClockErrorLimit;
import io.msgscope.core.SpecException;
import picocli.CommandLine.Option;

/**
 * {@code --max-clock-error} of {@code run} and {@code scenario} (issue 33): how wide the clock's error bound on the
 * corrected cross-host latency may be before the run warns. A value that is neither a duration nor a percentage is
 * refused before anything runs (one line, exit 2).
 */
public final class ClockErrorOption {
    @Option(names = ClockErrorLimit.OPTION, paramLabel = "DURATION|PCT", defaultValue = "10%",
            description = "On a cross-host run, warn when the clock error bound on the corrected latency is wider than "
                    + "this: a duration (2ms, 500us) or a percentage of the corrected p50 (default: ${DEFAULT-VALUE}).")
    String maxClockError = "10%";

    /** The limit as given; a bad value is a usage error naming the option. */
    public ClockErrorLimit limit() {
        try {
            return ClockErrorLimit.parse(maxClockError);
        } catch (IllegalArgumentException e) {
            throw new SpecException(ClockErrorLimit.OPTION, e.getMessage());
        }
    }
}
