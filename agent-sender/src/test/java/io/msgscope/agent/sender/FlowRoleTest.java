package io.msgscope.agent.sender;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.proto.FlowProbe;
import io.msgscope.proto.FlowResult;
import io.msgscope.proto.RunSpec;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flow client's warm-up (by messages and by time, both) and what it reports about the sampling
 * period (issue 17), over an in-memory loop driver: every message sent is delivered by the poll loop.
 */
class FlowRoleTest {

    /** A driver whose publisher puts copies into a queue its subscriber's poll takes them from. */
    public static final class LoopDriver implements Driver {
        @Override
        public String name() {
            return "loop-test";
        }

        private final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>();

        @Override
        public Subscriber openSubscriber(DriverSpec spec, ClientContext context) {
            return new Subscriber() {
                @Override
                public int poll(MessageHandler handler, long timeoutMs) throws java.io.IOException {
                    try {
                        byte[] m = queue.poll(timeoutMs, TimeUnit.MILLISECONDS);
                        if (m == null) {
                            return 0;
                        }
                        handler.onMessage(ByteBuffer.wrap(m).order(java.nio.ByteOrder.LITTLE_ENDIAN), 0);
                        return 1;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return -1;
                    }
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public Publisher openPublisher(DriverSpec spec, ClientContext context) {
            return new Publisher() {
                @Override
                public void send(ByteBuffer buffer, int offset, int length) {
                    byte[] m = new byte[length];
                    buffer.get(offset, m, 0, length);
                    queue.add(m);
                }

                @Override
                public void close() {
                }
            };
        }
    }

    private static FlowRole prepared() throws Exception {
        FlowRole role = new FlowRole(Drivers.load());
        role.prepare(RunSpec.newBuilder().setDriver("loop-test").setSize(64).setPinCpu(-1).build());
        return role;
    }

    @Test
    void samplesOnlyAfterBothTheMessagesAndTheTimeOfTheWarmUp() throws Exception {
        FlowRole role = prepared();
        try {
            FlowResult r = role.flow(FlowProbe.newBuilder().setInFlight(10).setSamples(20).setThresholdNs(1_000_000)
                    .setSkip(20).setWarmupNs(200_000_000).setTimeoutMs(30_000).build());
            assertEquals(20, r.getSamplesCount());
            assertTrue(r.getWarmupElapsedNs() >= 200_000_000, "warm-up " + r.getWarmupElapsedNs());
            assertTrue(r.getWarmupReceived() >= 20, "warm-up messages " + r.getWarmupReceived());
            assertTrue(r.getSamplingNs() >= 20 * 1_000_000L, "sampling " + r.getSamplingNs());
            assertTrue(r.getSampledMessages() > 0 && r.getSampledMessages() <= r.getReceived() - r.getWarmupReceived());
            // in flight when a message arrives, itself included: between 1 and F
            assertTrue(r.getMeanInFlight() >= 1 && r.getMeanInFlight() <= 10, "in flight " + r.getMeanInFlight());
            // both threads moved messages while sampling: some CPU, and no more than a thread can use in that
            // time (the CPU is read a few statements from the sampling clock: 20 ms of slack)
            long most = r.getSamplingNs() + 20_000_000L;
            assertTrue(r.getSamplingProducerCpuNs() > 0 && r.getSamplingProducerCpuNs() <= most,
                    "producer CPU " + r.getSamplingProducerCpuNs() + " ns over " + r.getSamplingNs() + " ns");
            assertTrue(r.getSamplingConsumerCpuNs() > 0 && r.getSamplingConsumerCpuNs() <= most,
                    "consumer CPU " + r.getSamplingConsumerCpuNs() + " ns over " + r.getSamplingNs() + " ns");
            assertEquals(r.getSent(), r.getReceived(), "drained");

            // the warm-up by messages: 1,000 messages at F = 1 outlast a zero warm-up time
            FlowResult m = role.flow(FlowProbe.newBuilder().setInFlight(1).setSamples(5).setThresholdNs(100_000)
                    .setSkip(1_000).setWarmupNs(0).setTimeoutMs(30_000).build());
            assertEquals(1_000, m.getWarmupReceived());
            assertEquals(1.0, m.getMeanInFlight(), 1e-9, "F = 1: exactly one in flight");
        } finally {
            role.close();
        }
    }

    /**
     * Both in-flight figures stay within the window: counted at arrivals (the arriving message included,
     * so exactly 1 at F = 1) and Little's time average (rate x mean latency; at F = 1 below 1, since no
     * message is out while the producer turns round).
     */
    @Test
    void inFlightFiguresStayWithinTheWindow() throws Exception {
        FlowRole role = prepared();
        try {
            for (long f : new long[] {1, 10, 100}) {
                FlowResult r = role.flow(FlowProbe.newBuilder().setInFlight(f).setSamples(50).setThresholdNs(1_000_000)
                        .setSkip(2 * f).setWarmupNs(20_000_000).setTimeoutMs(30_000).build());
                org.HdrHistogram.Histogram h = org.HdrHistogram.Histogram.decodeFromCompressedByteBuffer(
                        r.getLatencyHistogram().asReadOnlyByteBuffer(), 0);
                double little = r.getSampledMessages() * 1e9 / r.getSamplingNs() * h.getMean() / 1e9;
                assertTrue(r.getMeanInFlight() >= 1 && r.getMeanInFlight() <= f, "F = " + f + ": counted "
                        + r.getMeanInFlight());
                assertTrue(little > 0 && little <= 1.01 * f, "F = " + f + ": Little " + little);
            }
        } finally {
            role.close();
        }
    }

    @Test
    void aProbeOfNoSamplesIsAWarmUpOnly() throws Exception {
        FlowRole role = prepared();
        try {
            FlowResult r = role.flow(FlowProbe.newBuilder().setInFlight(5).setSamples(0).setThresholdNs(1_000_000)
                    .setSkip(500).setWarmupNs(50_000_000).setTimeoutMs(30_000).build());
            assertEquals(0, r.getSamplesCount());
            assertTrue(r.getWarmupReceived() >= 500);
            assertTrue(r.getWarmupElapsedNs() >= 50_000_000);
            assertEquals(0, r.getSampledMessages());
            assertEquals(r.getSent(), r.getReceived());
        } finally {
            role.close();
        }
    }

    /**
     * Issue 29: a probe cut by an interrupted run (Stop) answers at once with the whole samples it took, and its
     * sampling period covers every message sampled, the group under way included: the rate over the period is
     * those messages over its time, and the samples are fewer than asked.
     */
    @Test
    void aProbeCutByStopKeepsTheSamplesItTook() throws Exception {
        FlowRole role = prepared();
        try {
            java.util.concurrent.CompletableFuture<FlowResult> answer = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> {
                        try {
                            return role.flow(FlowProbe.newBuilder().setInFlight(10).setSamples(1_000_000)
                                    .setThresholdNs(1_000_000).setSkip(20).setWarmupNs(0).setTimeoutMs(60_000).build());
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
            // cut once it has taken a few samples (a fixed 500 ms was 1 sample once, on a box at load 26)
            long until = System.nanoTime() + 30_000_000_000L;
            while (role.samplesTaken() <= 20 && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            long t0 = System.nanoTime();
            role.endEarly();
            FlowResult r = answer.get(10, TimeUnit.SECONDS);
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "answered soon after the stop");
            assertTrue(r.getSamplesCount() > 10 && r.getSamplesCount() < 1_000_000, "samples " + r.getSamplesCount());
            long inSamples = 0;
            long sampleNs = 0;
            for (int i = 0; i < r.getSamplesCount(); i++) {
                inSamples += Math.round(r.getSamples(i) * r.getSampleNs(i) / 1e9);
                sampleNs += r.getSampleNs(i);
            }
            // the period holds every whole sample and the group under way (shorter than the 1 ms threshold)
            assertTrue(r.getSampledMessages() >= inSamples, r.getSampledMessages() + " >= " + inSamples);
            assertTrue(r.getSamplingNs() >= sampleNs && r.getSamplingNs() < sampleNs + 1_000_000L + 50_000_000L,
                    "period " + r.getSamplingNs() + " ns, samples " + sampleNs + " ns");
            assertTrue(r.getSampledMessages() <= r.getReceived() - r.getWarmupReceived());
            assertEquals(r.getSent(), r.getReceived(), "drained");
        } finally {
            role.close();
        }
    }
}
