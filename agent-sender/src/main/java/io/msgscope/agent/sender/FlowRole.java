package io.msgscope.agent.sender;

import io.msgscope.control.AgentRole;
import io.msgscope.control.DriverSpecs;
import io.msgscope.control.RoleThread;
import io.msgscope.control.TraceSink;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.proto.FlowProbe;
import io.msgscope.proto.FlowResult;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Seed 000's single client program (A1, A5-A7): one process with two connections — the publisher
 * and the consumer — and a fixed number F of messages in flight. The producer sends F messages,
 * then one more for each message consumed; the consumer warms up — until it has received more than
 * the probe's {@code skip} (~2F, A7) messages and the probe's warm-up time has passed, both — then
 * takes throughput samples over groups of messages spanning at least the threshold (~10 ms), until
 * it has enough. It also reports the sampling period itself (messages, duration, process, producer
 * and consumer CPU over it) and the counted mean in flight. A probe of 0 samples is a warm-up only.
 * Between probes the pipeline is drained, so every probe starts empty.
 */
public final class FlowRole implements AgentRole {
    private final Drivers drivers;
    private RunSpec spec;
    private Publisher publisher;
    private Subscriber subscriber;
    private ByteBuffer payload;
    private final io.msgscope.core.Clock clock = io.msgscope.core.Clock.calibrate();
    private RoleThread producer;
    private RoleThread consumer;
    private volatile boolean closed;
    private final Consumer handler = new Consumer();

    public FlowRole(Drivers drivers) {
        this.drivers = drivers;
    }

    /**
     * The consumer side: counts, warms up, and samples throughput; one object for the whole session.
     * Everything here runs on the delivering thread (the client's I/O thread or the poll loop), once
     * per message, without allocating; the warm-up's end and the sampling's end read the clocks once.
     */
    private static final class Consumer implements MessageHandler {
        volatile long received;
        volatile boolean done;
        /** The run was interrupted (issue 29): the probe under way ends at the next message, what it took kept. */
        volatile boolean cut;
        volatile Thread producerThread;
        volatile boolean producerParked;
        /** While the producer is parked: the received count at which the consumer wakes it. */
        volatile long wakeAt = Long.MAX_VALUE;
        /** Messages the producer has sent, published with a release store (no fence on the send path). */
        final java.util.concurrent.atomic.AtomicLong sentCount = new java.util.concurrent.atomic.AtomicLong();
        RoleThread producer;
        long skip;
        long warmupNs;
        long startNs;
        long thresholdNs;
        double[] samples;
        long[] sampleNs;
        /** Samples taken so far (volatile: a test waits on it; written once per sample, every ~10 ms). */
        volatile int taken;
        boolean sampling;
        long groupStartNs;
        long groupCount;
        long epochOffset;
        // the warm-up and the sampling period (issue 17)
        long warmupReceived;
        long warmupElapsedNs;
        long samplingStartNs;
        long samplingEndNs;
        long sampledMessages;
        long inFlightSum;
        long inFlightCount;
        long processCpu0;
        long processCpu1;
        long producerCpu0;
        long producerCpu1;
        long consumerCpu0;
        long consumerCpu1;
        Thread samplingThread;
        final org.HdrHistogram.Histogram latency = io.msgscope.core.LatencyRange.histogram();

        void reset(long skip, long warmupNs, long thresholdNs, int samples) {
            this.skip = skip;
            this.warmupNs = warmupNs;
            this.thresholdNs = thresholdNs;
            this.samples = new double[samples];
            this.sampleNs = new long[samples];
            taken = 0;
            sampling = false;
            groupStartNs = 0;
            groupCount = 0;
            warmupReceived = 0;
            warmupElapsedNs = 0;
            samplingStartNs = 0;
            samplingEndNs = 0;
            sampledMessages = 0;
            inFlightSum = 0;
            inFlightCount = 0;
            processCpu0 = processCpu1 = producerCpu0 = producerCpu1 = consumerCpu0 = consumerCpu1 = 0;
            samplingThread = null;
            latency.reset();
            startNs = System.nanoTime();
            sentCount.set(0);
            received = 0; // volatile writes last: the delivering thread reads `received` first
            done = false;
        }

        @Override
        public void onMessage(ByteBuffer buffer, int offset) {
            final long t = System.nanoTime();
            final long sentNow = sentCount.get(); // before `received` moves, which lets the producer send more
            final long n = received + 1;
            received = n; // single writer: the delivery thread
            if (producerParked && n >= wakeAt) {
                LockSupport.unpark(producerThread);
            }
            if (done) {
                return;
            }
            if (cut) {
                endEarly(t);
                return;
            }
            if (!sampling) {
                // warm-up: by messages (skip, ~2F, A7) and by time, both (issue 17)
                if (n <= skip || t - startNs < warmupNs) {
                    return;
                }
                startSampling(t, n);
                if (done) {
                    return;
                }
            }
            // latency from the header's epoch send time, taken on this box by this process (M1, Q1)
            long l = t + epochOffset - WireHeader.sendTime(buffer, offset);
            latency.recordValue(io.msgscope.core.LatencyRange.clamp(l));
            inFlightSum += sentNow - n + 1; // in flight when this message arrived, itself included
            inFlightCount++;
            if (groupStartNs == 0) {
                groupStartNs = t;
                return;
            }
            groupCount++;
            final long span = t - groupStartNs;
            if (span >= thresholdNs) {
                final int k = taken;
                sampleNs[k] = span;
                samples[k] = groupCount * 1e9 / span;
                taken = k + 1;
                sampledMessages += groupCount;
                groupStartNs = t;
                groupCount = 0;
                if (k + 1 == samples.length) {
                    endSampling(t);
                }
            }
        }

        private void startSampling(long t, long n) {
            sampling = true;
            warmupReceived = n - 1;
            warmupElapsedNs = t - startNs;
            samplingStartNs = t;
            samplingThread = Thread.currentThread();
            processCpu0 = io.msgscope.core.CpuClock.processCpuNs();
            producerCpu0 = producer == null ? -1 : producer.cpuNs();
            consumerCpu0 = io.msgscope.core.CpuClock.threadCpuNs();
            if (samples.length == 0) { // a warm-up-only probe
                endSampling(t);
            }
        }

        /**
         * The probe cut by an interrupted run: the sampling period ends at this message, its messages, time and CPU
         * over [start, t]; the samples are the whole groups taken (the group under way is shorter than the threshold,
         * so it is no sample, but its messages count in the period). Before the sampling began, nothing was sampled.
         */
        private void endEarly(long t) {
            if (!sampling) {
                done = true;
                return;
            }
            if (groupStartNs != 0) {
                sampledMessages += groupCount;
            }
            endSampling(t);
        }

        private void endSampling(long t) {
            samplingEndNs = t;
            processCpu1 = io.msgscope.core.CpuClock.processCpuNs();
            producerCpu1 = producer == null ? -1 : producer.cpuNs();
            consumerCpu1 = Thread.currentThread() == samplingThread ? io.msgscope.core.CpuClock.threadCpuNs() : -1;
            done = true;
        }
    }

    @Override
    public Role role() {
        return Role.FLOW;
    }

    @Override
    public Ready prepare(RunSpec spec) throws Exception {
        this.spec = spec;
        Driver driver = DriverSpecs.driverOf(drivers, spec);
        DriverSpec ds = DriverSpecs.of(spec);
        subscriber = driver.openSubscriber(ds);
        // through the relay the publisher has its own port (the relay's ingress)
        DriverSpec pub = new DriverSpec(ds.host(), spec.getIngressPort() > 0 ? spec.getIngressPort() : ds.port(),
                ds.uri(), ds.messageSize(), ds.socketBuffer(), ds.options(), subscriber.destination());
        publisher = driver.openPublisher(pub);
        payload = driver.allocatePayload(spec.getSize());
        if (spec.getRandomPadding()) {
            byte[] noise = new byte[payload.capacity()];
            new Random(spec.getSeed()).nextBytes(noise);
            payload.put(0, noise);
        }
        WireHeader.writeProbe(payload, 0, 0, 0);
        producer = new RoleThread("msgscope-flow-producer", spec.getPinCpu());
        int consumerCpu = spec.getPinCpu() >= 0 ? spec.getPinCpu() + 1 : -1;
        consumer = new RoleThread("msgscope-flow-consumer", consumerCpu < Runtime.getRuntime().availableProcessors()
                ? consumerCpu : -1);
        consumer.submit(this::consumeLoop);
        return producer.ready().setRole(Role.FLOW).setDestination(subscriber.destination()).build();
    }

    /** Polls for the whole session: pull drivers deliver here, push drivers on their own thread. */
    private void consumeLoop() {
        try {
            while (!closed) {
                if (subscriber.poll(handler, 50) < 0) {
                    return;
                }
            }
        } catch (Exception e) {
            // the producer sees no progress and reports the probe as timed out
        }
    }

    @Override
    public void start(Phase phase, PhaseListener listener) {
        listener.done(PhaseDone.newBuilder().setPhase(phase).build());
    }

    @Override
    public FlowResult flow(FlowProbe probe) throws Exception {
        CompletableFuture<FlowResult> result = new CompletableFuture<>();
        producer.submit(() -> {
            try {
                result.complete(runProbe(probe));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result.get(probe.getTimeoutMs() + 30_000, TimeUnit.MILLISECONDS);
    }

    private FlowResult runProbe(FlowProbe probe) throws Exception {
        final long inFlight = probe.getInFlight();
        final Consumer c = handler;
        c.producerThread = Thread.currentThread();
        c.producer = producer;
        c.reset(probe.getSkip(), probe.getWarmupNs(), probe.getThresholdNs(), probe.getSamples());
        c.epochOffset = clock.epochMinusMono();
        final long cpu0 = io.msgscope.core.CpuClock.processCpuNs();
        final long alloc0 = producer.allocatedBytes();
        final Publisher pub = publisher;
        final ByteBuffer buf = payload;
        final int size = spec.getSize();
        final long epochOffset = clock.epochMinusMono();
        final long t0 = System.nanoTime();
        final long deadline = t0 + TimeUnit.MILLISECONDS.toNanos(probe.getTimeoutMs());
        final long wakeBatch = wakeBatch(inFlight);
        final java.util.concurrent.atomic.AtomicLong sentCount = c.sentCount;
        long sent = 0;
        boolean timedOut = false;
        while (!c.done && !closed) {
            if (sent - c.received < inFlight) {
                WireHeader.writeSendTime(buf, 0, System.nanoTime() + epochOffset);
                WireHeader.writeSequence(buf, 0, sent);
                sentCount.lazySet(sent + 1); // counted before the send: the consumer may see it before send returns
                pub.send(buf, 0, size);
                sent++;
                continue;
            }
            if (!awaitProgress(c, sent - inFlight, wakeBatch, deadline)) {
                timedOut = true;
                break;
            }
        }
        pub.drain(10_000);
        // drain the pipeline so the next probe starts empty
        final long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.received < sent && System.nanoTime() < drainUntil && !closed) {
            LockSupport.parkNanos(100_000);
        }
        long elapsed = System.nanoTime() - t0;
        FlowResult.Builder r = FlowResult.newBuilder().setInFlight(inFlight).setSent(sent).setReceived(c.received)
                .setElapsedNs(elapsed).setTimedOut(timedOut).putAllCounters(pub.counters())
                .putAllCounters(subscriber.counters());
        long alloc = producer.allocatedBytes();
        r.setProcessCpuNs(io.msgscope.core.CpuClock.processCpuNs() - cpu0);
        java.nio.ByteBuffer hb = java.nio.ByteBuffer.allocate(c.latency.getNeededByteBufferCapacity());
        int len = c.latency.encodeIntoCompressedByteBuffer(hb);
        r.setLatencyHistogram(com.google.protobuf.ByteString.copyFrom(hb.array(), 0, len));
        r.setHotThreadAllocatedBytes(alloc0 < 0 ? -1 : alloc - alloc0);
        for (int i = 0; i < c.taken; i++) {
            r.addSamples(c.samples[i]);
            r.addSampleNs(c.sampleNs[i]);
        }
        if (c.sampling) {
            r.setWarmupReceived(c.warmupReceived).setWarmupElapsedNs(c.warmupElapsedNs);
        }
        if (c.done && c.sampling) {
            r.setSampledMessages(c.sampledMessages).setSamplingNs(c.samplingEndNs - c.samplingStartNs)
                    .setSamplingProcessCpuNs(cpuDelta(c.processCpu0, c.processCpu1))
                    .setSamplingProducerCpuNs(cpuDelta(c.producerCpu0, c.producerCpu1))
                    .setSamplingConsumerCpuNs(cpuDelta(c.consumerCpu0, c.consumerCpu1))
                    .setMeanInFlight(c.inFlightCount == 0 ? Double.NaN : (double) c.inFlightSum / c.inFlightCount);
        }
        return r.build();
    }

    /** b − a for two CPU readings, −1 when either is unknown. */
    private static long cpuDelta(long a, long b) {
        return a < 0 || b < 0 ? -1 : b - a; // ABSENT is Long.MIN_VALUE
    }

    /**
     * How many consumed messages wake a parked producer at once: 1 up to F = 8, then F/8. Waking it for
     * every consumed message cost a futex call per message on the consumer's (the client library's)
     * thread and capped MQTT at ~17 k msg/s; in batches, F stays between 7/8 F and F while the producer
     * sleeps, and exactly F whenever it keeps up (A5).
     */
    static long wakeBatch(long inFlight) {
        return Math.max(1, inFlight / 8);
    }

    /**
     * Waits until the consumer has taken more than {@code target} messages; spins briefly, then parks
     * until {@code batch} more than that are taken (or the run ends).
     */
    private static boolean awaitProgress(Consumer c, long target, long batch, long deadline) {
        for (int spin = 0; spin < 200; spin++) {
            if (c.received > target || c.done) {
                return true;
            }
            Thread.onSpinWait();
        }
        c.wakeAt = target + batch;
        c.producerParked = true;
        try {
            while (c.received < target + batch && !c.done) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                LockSupport.parkNanos(1_000_000);
            }
            return true;
        } finally {
            c.producerParked = false;
            c.wakeAt = Long.MAX_VALUE;
        }
    }

    /** Samples the probe under way has taken so far. */
    int samplesTaken() {
        return handler.taken;
    }

    /** Ctrl-C at the coordinator (issue 29): the probe under way ends now and answers what it measured. */
    @Override
    public void endEarly() {
        handler.cut = true;
    }

    @Override
    public void upload(TraceSink sink) {
        // throughput probes return their samples directly
    }

    @Override
    public void close() {
        closed = true;
        if (producer != null) {
            producer.close();
        }
        if (consumer != null) {
            consumer.close();
        }
        for (AutoCloseable c : new AutoCloseable[] {publisher, subscriber}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // closing anyway
            }
        }
    }
}
