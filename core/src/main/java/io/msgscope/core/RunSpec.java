package io.msgscope.core;

import java.util.Objects;

/**
 * One trace run, immutable (STYLE: "a run spec is an immutable value with a builder").
 * {@link Builder#build()} range-checks every field and names the CLI option that set it.
 *
 * @param count            measured messages N (M2: N should be orders of magnitude above the window)
 * @param warmupCount      warm-up messages sent before the measurement and discarded
 * @param workload         the driver, its URI and options, the message size, padding and seed: what every mode's
 *                         spec shares ({@link Workload})
 * @param sender           what only the sender reads: its rate and write batching
 * @param receiver         what only the receiver reads: how long it drains
 * @param relay            what only the relay reads
 * @param window           M of M2: SO/RO/ST/RT are computed over M-message windows (the analysis's)
 * @param pin              pin sender and receiver to their own cores (D3, M5)
 * @param socketBuffer     SO_SNDBUF/SO_RCVBUF in bytes of every data socket, 0 = the OS default
 * @param cpuEvery         N of M3: CPU and network sampled every Nth message by every role; 0 = off
 */
public record RunSpec(long count, long warmupCount, Workload workload, Sender sender, Receiver receiver, Relay relay,
                      int window, boolean pin, int socketBuffer, int cpuEvery) {

    /**
     * The sender's part.
     *
     * @param rate      msg/s the sender aims at; 0 = full speed
     * @param sendBatch messages coalesced per write (1 = one write per message)
     * @param timeline  the load phases the sender follows instead of one rate (issue 31), or null
     */
    public record Sender(double rate, int sendBatch, io.msgscope.core.timeline.Timeline timeline) {
    }

    /** @param drainTimeoutMs quiet time the receiver waits after the sender finished before the rest counts as lost */
    public record Receiver(long drainTimeoutMs) {
    }

    /** @param burnNs test-only: the relay spins this long per message (a known CPU burner) */
    public record Relay(long burnNs) {
    }

    /**
     * Default N of M3. Thread CPU has ns resolution and costs ~1 µs to read, so every 1,000th message
     * keeps the sampling cost near 1 ns per message while a window still spans ~1–100 ms at
     * 10k–1M msg/s; process CPU (10 ms ticks) is aggregated over windows of at least 100 ms.
     */
    public static final int DEFAULT_CPU_EVERY = 1000;

    public static final long MAX_COUNT = 500_000_000L;
    public static final int MAX_SIZE = Workload.MAX_SIZE;

    /** Every default, as the builder holds it: the one place they are written (the CLI's help reads them here). */
    public static final RunSpec DEFAULTS = new Builder().build();

    public RunSpec {
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(sender, "sender");
        Objects.requireNonNull(receiver, "receiver");
        Objects.requireNonNull(relay, "relay");
    }

    /** The sender's rate, msg/s; 0 = full speed. */
    public double rate() {
        return sender.rate();
    }

    /** The load phases the sender follows (issue 31), or null for one rate. */
    public io.msgscope.core.timeline.Timeline timeline() {
        return sender.timeline();
    }

    /** The sender's messages per write. */
    public int sendBatch() {
        return sender.sendBatch();
    }

    /** The receiver's drain time-out, ms. */
    public long drainTimeoutMs() {
        return receiver.drainTimeoutMs();
    }

    /** The relay's test-only burn per message, ns. */
    public long relayBurnNs() {
        return relay.burnNs();
    }

    /** The workload's message size. */
    public int size() {
        return workload.size();
    }

    /** The workload's padding. */
    public Padding padding() {
        return workload.padding();
    }

    /** The workload's padding seed. */
    public long seed() {
        return workload.seed();
    }

    /** The workload's driver. */
    public String driver() {
        return workload.driver();
    }

    /** The workload's broker URI. */
    public String uri() {
        return workload.uri();
    }

    /** The workload's driver options. */
    public java.util.Map<String, String> driverOptions() {
        return workload.driverOptions();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().count(count).warmupCount(warmupCount).workload(workload).rate(rate())
                .window(window).pin(pin).drainTimeoutMs(drainTimeoutMs()).socketBuffer(socketBuffer)
                .sendBatch(sendBatch()).cpuEvery(cpuEvery).relayBurnNs(relayBurnNs()).timeline(timeline());
    }

    /** The URI without its password, for results and logs. */
    public String uriForDisplay() {
        return workload.uriForDisplay();
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
        private io.msgscope.core.timeline.Timeline timeline;
        private String driver = io.msgscope.core.driver.DefaultDrivers.MEASURING;
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
        /** Load phases instead of one rate: the measured count becomes the timeline's messages (issue 31). */
        public Builder timeline(io.msgscope.core.timeline.Timeline v) { timeline = v; return this; }
        public Builder driver(String v) { driver = v; return this; }
        public Builder uri(String v) { uri = v; return this; }
        public Builder driverOptions(java.util.Map<String, String> v) { driverOptions = v; return this; }

        /** Every field of a workload at once. */
        public Builder workload(Workload w) {
            return driver(w.driver()).uri(w.uri()).driverOptions(w.driverOptions()).size(w.size()).padding(w.padding())
                    .seed(w.seed());
        }

        public RunSpec build() {
            if (timeline != null) {
                if (rate > 0) {
                    throw new SpecException("--phases", "gives each phase its rate: leave out --rate");
                }
                if (sendBatch != 1) {
                    throw new SpecException("--send-batch", "must be 1 with --phases (each message is sent at its own time)");
                }
                if (timeline.messages() > MAX_COUNT) {
                    throw new SpecException("--phases", "schedules " + timeline.messages() + " messages, more than "
                            + MAX_COUNT + "; shorten the phases or lower their rates");
                }
                count = timeline.messages();
            }
            if (count < 1 || count > MAX_COUNT) {
                throw new SpecException("--count", "must be between 1 and " + MAX_COUNT + ", got " + count);
            }
            if (warmupCount < 0 || warmupCount > MAX_COUNT) {
                throw new SpecException("--warmup", "must be between 0 and " + MAX_COUNT + ", got " + warmupCount);
            }
            Workload workload = new Workload(driver, uri, driverOptions, size, padding, seed);
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
            return new RunSpec(count, warmupCount, workload, new Sender(rate, sendBatch, timeline), new Receiver(drainTimeoutMs),
                    new Relay(relayBurnNs), window, pin, socketBuffer, cpuEvery);
        }
    }
}
