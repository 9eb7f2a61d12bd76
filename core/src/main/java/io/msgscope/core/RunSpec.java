package io.msgscope.core;

import java.util.Objects;

/**
 * One trace run, immutable (STYLE: "a run spec is an immutable value with a builder").
 * {@link Builder#build()} range-checks every field and names the CLI option that set it.
 *
 * @param count            measured messages N (M2: N should be orders of magnitude above the window)
 * @param warmupCount      warm-up messages sent before the measurement and discarded
 * @param size             bytes per message, header included ({@link WireHeader#SIZE} minimum)
 * @param rate             msg/s the sender aims at; 0 = full speed
 * @param padding          payload padding after the header (R2)
 * @param window           M of M2: SO/RO/ST/RT are computed over M-message windows
 * @param pin              pin sender and receiver to their own cores (D3, M5)
 * @param drainTimeoutMs   quiet time the receiver waits after the sender finished before the rest counts as lost
 * @param socketBuffer     SO_SNDBUF/SO_RCVBUF in bytes, 0 = the OS default
 * @param sendBatch        messages coalesced per write on the sender (1 = one write per message)
 * @param seed             seed of random padding
 * @param cpuEvery         N of M3: CPU and network sampled every Nth message; 0 = off
 * @param relayBurnNs      test-only: the relay spins this long per message (a known CPU burner)
 * @param driver           the driver's name (M10): tcp (through the built-in relay), amqp, ...
 * @param uri              the broker's address for broker drivers; empty for tcp
 * @param driverOptions    driver-specific options ({@code --opt key=value})
 */
public record RunSpec(long count, long warmupCount, int size, double rate, Padding padding, int window,
                      boolean pin, long drainTimeoutMs, int socketBuffer, int sendBatch, long seed,
                      int cpuEvery, long relayBurnNs, String driver, String uri,
                      java.util.Map<String, String> driverOptions) {

    /**
     * Default N of M3. Thread CPU has ns resolution and costs ~1 µs to read, so every 1,000th message
     * keeps the sampling cost near 1 ns per message while a window still spans ~1–100 ms at
     * 10k–1M msg/s; process CPU (10 ms ticks) is aggregated over windows of at least 100 ms.
     */
    public static final int DEFAULT_CPU_EVERY = 1000;

    public static final long MAX_COUNT = 500_000_000L;
    public static final int MAX_SIZE = 64 * 1024 * 1024;

    public RunSpec {
        Objects.requireNonNull(padding, "padding");
        Objects.requireNonNull(driver, "driver");
        uri = uri == null ? "" : uri;
        driverOptions = java.util.Map.copyOf(driverOptions);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().count(count).warmupCount(warmupCount).size(size).rate(rate).padding(padding)
                .window(window).pin(pin).drainTimeoutMs(drainTimeoutMs).socketBuffer(socketBuffer)
                .sendBatch(sendBatch).seed(seed).cpuEvery(cpuEvery).relayBurnNs(relayBurnNs).driver(driver).uri(uri).driverOptions(driverOptions);
    }

    /** The URI without its password, for results and logs. */
    public String uriForDisplay() {
        return Secrets.uri(uri);
    }

    /** Fluent builder; defaults are the CLI defaults. */
    public static final class Builder {
        private long count = 1_000_000;
        private long warmupCount = 50_000;
        private int size = 64;
        private double rate = 0;
        private Padding padding = Padding.ZEROS;
        private int window = 100;
        private boolean pin = true;
        private long drainTimeoutMs = 2_000;
        private int socketBuffer = 0;
        private int sendBatch = 1;
        private long seed = 42;
        private int cpuEvery = DEFAULT_CPU_EVERY;
        private long relayBurnNs = 0;
        private String driver = "tcp";
        private String uri = "";
        private java.util.Map<String, String> driverOptions = java.util.Map.of();

        public Builder count(long v) { count = v; return this; }
        public Builder warmupCount(long v) { warmupCount = v; return this; }
        public Builder size(int v) { size = v; return this; }
        public Builder rate(double v) { rate = v; return this; }
        public Builder padding(Padding v) { padding = v; return this; }
        public Builder window(int v) { window = v; return this; }
        public Builder pin(boolean v) { pin = v; return this; }
        public Builder drainTimeoutMs(long v) { drainTimeoutMs = v; return this; }
        public Builder socketBuffer(int v) { socketBuffer = v; return this; }
        public Builder sendBatch(int v) { sendBatch = v; return this; }
        public Builder seed(long v) { seed = v; return this; }
        public Builder cpuEvery(int v) { cpuEvery = v; return this; }
        public Builder relayBurnNs(long v) { relayBurnNs = v; return this; }
        public Builder driver(String v) { driver = v; return this; }
        public Builder uri(String v) { uri = v; return this; }
        public Builder driverOptions(java.util.Map<String, String> v) { driverOptions = v; return this; }

        public RunSpec build() {
            if (count < 1 || count > MAX_COUNT) {
                throw new SpecException("--count", "must be between 1 and " + MAX_COUNT + ", got " + count);
            }
            if (warmupCount < 0 || warmupCount > MAX_COUNT) {
                throw new SpecException("--warmup", "must be between 0 and " + MAX_COUNT + ", got " + warmupCount);
            }
            if (size < WireHeader.SIZE || size > MAX_SIZE) {
                throw new SpecException("--size", "must be between " + WireHeader.SIZE
                        + " (the measurement header) and " + MAX_SIZE + " bytes, got " + size);
            }
            if (!(rate >= 0) || Double.isInfinite(rate) || rate > 100_000_000) {
                throw new SpecException("--rate", "must be between 0 (full speed) and 100000000 msg/s, got " + rate);
            }
            if (window < 1 || window >= count) {
                throw new SpecException("--window", "must be between 1 and count-1 (" + (count - 1)
                        + "), got " + window);
            }
            if (drainTimeoutMs < 1 || drainTimeoutMs > 600_000) {
                throw new SpecException("--drain-timeout", "must be between 1 and 600000 ms, got " + drainTimeoutMs);
            }
            if (socketBuffer < 0 || socketBuffer > (1 << 30)) {
                throw new SpecException("--socket-buffer", "must be between 0 (OS default) and 1073741824, got "
                        + socketBuffer);
            }
            if (sendBatch < 1 || sendBatch > 65_536) {
                throw new SpecException("--send-batch", "must be between 1 and 65536, got " + sendBatch);
            }
            if (rate > 0 && sendBatch != 1) {
                throw new SpecException("--send-batch", "must be 1 when --rate is set (each message is sent at its own time)");
            }
            if (cpuEvery < 0 || cpuEvery > MAX_COUNT) {
                throw new SpecException("--cpu-every", "must be between 0 (off) and " + MAX_COUNT + ", got " + cpuEvery);
            }
            if (relayBurnNs < 0 || relayBurnNs > 1_000_000_000L) {
                throw new SpecException("--relay-burn-ns", "must be between 0 and 1000000000, got " + relayBurnNs);
            }
            if (driver.isBlank()) {
                throw new SpecException("--driver", "must name a driver, e.g. tcp");
            }
            return new RunSpec(count, warmupCount, size, rate, padding, window, pin, drainTimeoutMs, socketBuffer,
                    sendBatch, seed, cpuEvery, relayBurnNs, driver, uri, driverOptions);
        }
    }
}
