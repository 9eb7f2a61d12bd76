package io.msgscope.coordinator.results;

import io.msgscope.core.SpecException;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.core.metrics.SummaryWithCallback;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import java.io.IOException;
import java.net.InetAddress;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * Live metrics of a running command for Prometheus (issue 18, {@code --metrics-port}): served by the Prometheus
 * Java client's HTTP server at {@code /metrics} in the Prometheus text format or OpenMetrics (as the scraper asks),
 * read from the coordinator's own view of the run at each scrape. Nothing is computed for a scrape that the run
 * does not already have: counts come from the agents' heartbeats (trace runs) or the per-second reports
 * (scenarios), latency and rate from the last one-second interval (scenarios) or the last probe (throughput).
 *
 * <ul>
 *   <li>{@code msgscope_run_info{mode, run_id, driver}} 1</li>
 *   <li>{@code msgscope_phase{phase}} 1 for the phase the run is in (set-up, warm-up, measurement, ...)</li>
 *   <li>{@code msgscope_messages_sent_total}, {@code msgscope_messages_received_total}: the current phase's
 *       counts (a new phase starts them again at 0, which Prometheus takes as a counter reset)</li>
 *   <li>{@code msgscope_receive_rate_messages_per_second}: over the last interval (scenario second, probe)</li>
 *   <li>{@code msgscope_latency_seconds{quantile}} (a summary: count, sum, p50/p90/p99/p99.9) and
 *       {@code msgscope_latency_max_seconds} over the last interval</li>
 *   <li>{@code msgscope_errors_total}, {@code msgscope_connections_open}</li>
 *   <li>{@code msgscope_faults_due_total} and {@code msgscope_fault_due{fault}} 1 for each fault of {@code --faults}
 *       whose planned time on the run's clock has passed (issue 34: the dashboard's annotations); when the probe
 *       really applied it is in summary.json's {@code faults[]} after the run</li>
 * </ul>
 * A metric the mode does not know is absent rather than 0 (a trace run's latency exists only after the analysis).
 */
public final class LiveMetrics implements AutoCloseable {
    /** One interval's latency, in ns. */
    private record Latency(long count, double sumNs, long p50, long p90, long p99, long p999, long max) {
    }

    private final HTTPServer server;
    private final String url;
    private volatile String phase = "set-up";
    private volatile LongSupplier sent;
    private volatile LongSupplier received;
    private volatile double rate = Double.NaN;
    private volatile Latency latency;
    private volatile long errors = -1;
    private volatile long connections = -1;
    private volatile java.util.List<io.msgscope.core.fault.FaultStep> faults = java.util.List.of();
    private volatile long faultOriginNanos;

    private LiveMetrics(String host, int port, String mode, String runId, String driver) throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        Info info = Info.builder().name("msgscope_run").help("The run being measured")
                .labelNames("mode", "run_id", "driver").register(registry);
        info.setLabelValues(mode, runId, driver);
        GaugeWithCallback.builder().name("msgscope_phase").help("1 for the phase the run is in").labelNames("phase")
                .callback(cb -> cb.call(1, phase)).register(registry);
        CounterWithCallback.builder().name("msgscope_messages_sent").help("Messages sent in the current phase")
                .callback(cb -> {
                    LongSupplier s = sent;
                    if (s != null) {
                        cb.call(s.getAsLong());
                    }
                }).register(registry);
        CounterWithCallback.builder().name("msgscope_messages_received")
                .help("Messages received in the current phase").callback(cb -> {
                    LongSupplier r = received;
                    if (r != null) {
                        cb.call(r.getAsLong());
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("msgscope_receive_rate_messages_per_second")
                .help("Messages received per second over the last interval (a scenario's second, a throughput probe)")
                .callback(cb -> {
                    double r = rate;
                    if (!Double.isNaN(r)) {
                        cb.call(r);
                    }
                }).register(registry);
        SummaryWithCallback.builder().name("msgscope_latency_seconds")
                .help("Latency over the last interval (HdrHistogram, 1 us to 10 s, 3 digits)").callback(cb -> {
                    Latency l = latency;
                    if (l != null) {
                        cb.call(l.count(), l.sumNs() / 1e9, Quantiles.of(new Quantile(0.5, l.p50() / 1e9),
                                new Quantile(0.9, l.p90() / 1e9), new Quantile(0.99, l.p99() / 1e9),
                                new Quantile(0.999, l.p999() / 1e9)));
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("msgscope_latency_max_seconds").help("Largest latency of the last interval")
                .callback(cb -> {
                    Latency l = latency;
                    if (l != null) {
                        cb.call(l.max() / 1e9);
                    }
                }).register(registry);
        CounterWithCallback.builder().name("msgscope_errors").help("Errors the agents and the coordinator counted")
                .callback(cb -> {
                    long e = errors;
                    if (e >= 0) {
                        cb.call(e);
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("msgscope_connections_open").help("Client connections the agents opened")
                .callback(cb -> {
                    long c = connections;
                    if (c >= 0) {
                        cb.call(c);
                    }
                }).register(registry);
        CounterWithCallback.builder().name("msgscope_faults_due").help("Faults of --faults whose planned time passed")
                .callback(cb -> {
                    if (!faults.isEmpty()) {
                        cb.call(due().size());
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("msgscope_fault_due")
                .help("1 for each fault of --faults whose planned time passed, named as --faults writes it")
                .labelNames("fault").callback(cb -> {
                    for (io.msgscope.core.fault.FaultStep f : due()) {
                        cb.call(1, f.label());
                    }
                }).register(registry);
        this.server = HTTPServer.builder().inetAddress(InetAddress.getByName(host)).port(port).registry(registry)
                .buildAndStart();
        this.url = "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + server.getPort() + "/metrics";
    }

    /**
     * Starts serving on {@code address}, {@code [HOST:]PORT} (HOST 127.0.0.1 when not given; PORT 0 picks a free
     * one); null when {@code address} is null (the option not given).
     *
     * @throws SpecException naming {@code --metrics-port} for an address that is not one, or one that cannot be bound
     */
    public static LiveMetrics start(String address, String mode, String runId, String driver) {
        if (address == null) {
            return null;
        }
        int colon = address.lastIndexOf(':');
        String host = colon < 0 ? "127.0.0.1" : address.substring(0, colon).replace("[", "").replace("]", "");
        String portText = colon < 0 ? address : address.substring(colon + 1);
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new SpecException("--metrics-port", "must be [HOST:]PORT, e.g. 9464 or 0.0.0.0:9464, got '" + address
                    + "'");
        }
        if (port < 0 || port > 65_535 || host.isEmpty()) {
            throw new SpecException("--metrics-port", "must be [HOST:]PORT with PORT 0-65535, got '" + address + "'");
        }
        try {
            return new LiveMetrics(host, port, mode, runId, driver);
        } catch (IOException | RuntimeException e) {
            throw new SpecException("--metrics-port", "cannot serve metrics on " + host + ":" + port + ": "
                    + e.getMessage());
        }
    }

    /** Where the metrics are served. */
    public String url() {
        return url;
    }

    /** The phase the run is in now. */
    public void phase(String p) {
        phase = p;
    }

    /** The current phase's counts, read at each scrape. */
    public void counts(LongSupplier sentNow, LongSupplier receivedNow) {
        sent = sentNow;
        received = receivedNow;
    }

    /** The last interval's receive rate and latency (null when none was measured). */
    public void interval(double ratePerSecond, Histogram h) {
        rate = ratePerSecond;
        latency = h == null || h.getTotalCount() == 0 ? null : new Latency(h.getTotalCount(),
                h.getMean() * h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
    }

    /**
     * The run's faults, their clock starting at {@code originNanos} ({@link System#nanoTime()}): each is due once its
     * {@code atNs} has passed on it.
     */
    public void faults(java.util.List<io.msgscope.core.fault.FaultStep> steps, long originNanos) {
        faultOriginNanos = originNanos;
        faults = java.util.List.copyOf(steps);
    }

    private java.util.List<io.msgscope.core.fault.FaultStep> due() {
        long now = System.nanoTime() - faultOriginNanos;
        return faults.stream().filter(f -> f.atNs() <= now).toList();
    }

    /** Errors counted so far and connections open now. */
    public void health(long errorsSoFar, long connectionsOpen) {
        errors = errorsSoFar;
        connections = connectionsOpen;
    }

    @Override
    public void close() {
        server.close();
    }
}
