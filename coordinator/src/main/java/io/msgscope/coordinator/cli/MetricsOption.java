package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.results.LiveMetrics;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/** {@code --metrics-port} of {@code run}, {@code throughput} and {@code scenario}: live metrics for Prometheus. */
public final class MetricsOption {
    @Option(names = "--metrics-port", paramLabel = "[HOST:]PORT",
            description = "Serve live metrics for Prometheus at http://HOST:PORT/metrics while the command runs "
                    + "(rate, latency percentiles, counts, errors, connections; HOST 127.0.0.1 unless given, e.g. "
                    + "0.0.0.0:9464; PORT 0 picks a free port). Not part of the spec (default: off).")
    String address;

    /** Starts the server when the option was given (its URL told to {@code say}); null otherwise. */
    LiveMetrics start(String mode, String runId, String driver, Consumer<String> say) {
        LiveMetrics m = LiveMetrics.start(address, mode, runId, driver);
        if (m != null) {
            say.accept("metrics: " + m.url());
        }
        return m;
    }
}
