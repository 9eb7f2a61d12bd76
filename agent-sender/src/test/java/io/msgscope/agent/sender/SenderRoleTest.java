package io.msgscope.agent.sender;

import io.msgscope.control.AgentRole;
import io.msgscope.core.CpuSampler;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Drivers;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.Series;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import io.msgscope.core.test.FakeClock;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sender's hot path, read back from what it wrote: one write per message at {@code --send-batch 1}
 * (K per write otherwise), the header of every message (epoch send time derived from its O_n, sequence,
 * an empty probe slot, the padding untouched), O_n of every measured message in order, and the CPU
 * sample of every Nth message taken just before that message's O_n, plus the final one.
 */
class SenderRoleTest {
    private static final int SIZE = 48;

    private SenderRole role;

    @BeforeEach
    void fresh() {
        CaptureDriver.reset();
        role = new SenderRole(Drivers.load());
    }

    @AfterEach
    void close() {
        role.close();
    }

    private static final class Listener implements AgentRole.PhaseListener {
        final CompletableFuture<PhaseDone> result = new CompletableFuture<>();
        final java.util.List<io.msgscope.proto.PhaseEnd> ends = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void phaseEnded(io.msgscope.proto.PhaseEnd end) {
            ends.add(end);
        }

        @Override
        public void done(PhaseDone done) {
            result.complete(done);
        }

        @Override
        public void failed(String message) {
            result.completeExceptionally(new AssertionError(message));
        }
    }

    private static RunSpec.Builder spec(int count, int warmup) {
        return RunSpec.newBuilder().setDriver("capture").setCount(count).setWarmupCount(warmup).setSize(SIZE)
                .setPinCpu(-1).setSendBatch(1).setCpuEvery(0).setSeed(7);
    }

    private PhaseDone phase(Phase phase) throws Exception {
        Listener l = new Listener();
        role.start(phase, l);
        return l.result.get(60, TimeUnit.SECONDS);
    }

    private Map<Series, long[]> upload() throws Exception {
        Map<Series, long[]> got = new EnumMap<>(Series.class);
        role.upload((series, values, count) -> got.put(series, Arrays.copyOf(values, count)));
        return got;
    }

    private static ByteBuffer stream() {
        return ByteBuffer.wrap(CaptureDriver.BYTES.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void oneWritePerMessageEveryHeaderInPlaceAndTheCpuSampleBeforeEveryNthMessage() throws Exception {
        final int count = 2_500;
        final int warmup = 30;
        final int every = 1_000;
        role.prepare(spec(count, warmup).setCpuEvery(every).build());
        assertEquals(0, phase(Phase.WARMUP).getSent() - warmup);
        PhaseDone done = phase(Phase.MEASURE);
        assertEquals(count, done.getSent());
        assertEquals((long) count * SIZE, done.getBytes());
        assertEquals(4, done.getSamples(), "samples at messages 0, 1000, 2000 and the final one");

        assertEquals(warmup + count, CaptureDriver.WRITES.size(), "one write per message");
        assertTrue(CaptureDriver.WRITES.stream().allMatch(w -> w == SIZE), CaptureDriver.WRITES::toString);
        ByteBuffer s = stream();
        for (int i = 0; i < warmup; i++) {
            assertEquals(-1 - i, WireHeader.sequence(s, i * SIZE), "warm-up sequences count down from -1");
        }
        Map<Series, long[]> up = upload();
        assertFalse(up.containsKey(Series.SENDER_WAIT_CPU_NS), "at full speed nothing is waited, no series");
        long[] sendNs = up.get(Series.SEND_NS);
        assertEquals(count, sendNs.length);
        long offset = WireHeader.sendTime(s, warmup * SIZE) - sendNs[0];
        for (int n = 0; n < count; n++) {
            int at = (warmup + n) * SIZE;
            assertEquals(n, WireHeader.sequence(s, at));
            assertEquals(offset, WireHeader.sendTime(s, at) - sendNs[n], "epoch send time = O_n + one offset");
            assertEquals(0, WireHeader.probeCpu(s, at));
            assertEquals(0, WireHeader.probeTime(s, at));
            for (int b = WireHeader.SIZE; b < SIZE; b++) {
                assertEquals(0, s.get(at + b), "zero padding untouched");
            }
            if (n > 0) {
                assertTrue(sendNs[n] >= sendNs[n - 1], "O_n in order");
            }
        }
        long[] sampleNs = up.get(Series.SENDER_SAMPLE_NS);
        long[] threadCpu = up.get(Series.SENDER_THREAD_CPU_NS);
        assertEquals(4, sampleNs.length, "windows starting at messages 0, 1000 and 2000 of 2500, and the final sample");
        for (int k = 0; k < 3; k++) {
            assertTrue(sampleNs[k] <= sendNs[k * every], "sample " + k + " before O of message " + k * every);
            if (k > 0) {
                assertTrue(sampleNs[k] >= sendNs[k * every - 1], "sample " + k + " after the message before");
            }
            assertTrue(threadCpu[k] > 0);
        }
        assertTrue(sampleNs[3] >= sendNs[count - 1], "the final sample after the last message");
        assertTrue(threadCpu[3] >= threadCpu[2]);
        assertNull(up.get(Series.INTENDED_NS), "full speed keeps no intended times");
    }

    @Test
    void batchesOfKPerWriteKeepEveryMeasurementAndRunThroughTheSamples() throws Exception {
        final int count = 1_000;
        final int batch = 16;
        role.prepare(spec(count, 5).setSendBatch(batch).setCpuEvery(100).setRandomPadding(true).build());
        phase(Phase.WARMUP);
        PhaseDone done = phase(Phase.MEASURE);
        assertEquals(count, done.getSent());
        assertEquals(11, done.getSamples(), "windows starting at messages 0, 100, ..., 900 of 1000, and the final one");
        List<Integer> writes = CaptureDriver.WRITES.subList(5, CaptureDriver.WRITES.size());
        assertEquals(count / batch + 1, writes.size());
        assertTrue(writes.subList(0, count / batch).stream().allMatch(w -> w == batch * SIZE), writes::toString);
        assertEquals((count % batch) * SIZE, writes.get(writes.size() - 1));
        // random padding (R2): the seeded noise behind every header, the same bytes in every batch slot
        byte[] noise = new byte[batch * SIZE];
        new Random(7).nextBytes(noise);
        ByteBuffer s = stream();
        long[] sendNs = upload().get(Series.SEND_NS);
        for (int n = 0; n < count; n++) {
            int at = (5 + n) * SIZE;
            assertEquals(n, WireHeader.sequence(s, at));
            assertEquals(0, WireHeader.probeTime(s, at));
            int slot = (n % batch) * SIZE;
            for (int b = WireHeader.SIZE; b < SIZE; b++) {
                assertEquals(noise[slot + b], s.get(at + b), "padding of message " + n);
            }
            assertFalse(sendNs[n] == CpuSampler.ABSENT);
        }
    }

    @Test
    void atARateEachMessageGoesAtItsIntendedTimeAndBothTimesAreKept() throws Exception {
        final int count = 200;
        role.prepare(spec(count, 0).setRate(20_000).setCpuEvery(50).build());
        phase(Phase.WARMUP);
        assertEquals(count, phase(Phase.MEASURE).getSent());
        Map<Series, long[]> up = upload();
        long[] sendNs = up.get(Series.SEND_NS);
        long[] intended = up.get(Series.INTENDED_NS);
        for (int n = 0; n < count; n++) {
            assertTrue(sendNs[n] >= intended[n], "never before its intended time");
            if (n > 0) {
                assertEquals(50_000, intended[n] - intended[n - 1], 1, "1/rate apart");
            }
        }
        assertEquals(count, CaptureDriver.WRITES.size());
        assertEquals(5, up.get(Series.SENDER_SAMPLE_NS).length, "windows at messages 0, 50, 100, 150 of 200, the final");
        // issue 27: the CPU spent waiting for the send times, so far at each sample, within the thread's CPU
        long[] u = up.get(Series.SENDER_THREAD_CPU_NS);
        long[] waited = up.get(Series.SENDER_WAIT_CPU_NS);
        assertEquals(u.length, waited.length);
        assertEquals(0, waited[0], "nothing waited before the first message");
        for (int k = 1; k < u.length; k++) {
            assertTrue(waited[k] >= waited[k - 1], "waiting CPU only adds up, sample " + k);
            assertTrue(waited[k] - waited[k - 1] <= u[k] - u[k - 1], "window " + k + " waited more CPU than it used");
        }
        assertTrue(waited[u.length - 1] > 0, "50 µs gaps are spun through: some CPU was spent waiting");
    }

    /**
     * The same on a clock that moves only while the sender waits (issue 15): each message is stamped exactly at its
     * intended time, 1/rate apart, and the sender parks through all but the last {@code SPIN_NS} of each gap instead
     * of spinning through it.
     */
    @Test
    void atARateOnAFakeClockEachMessageIsStampedAtItsIntendedTimeAndTheWaitsPark() throws Exception {
        role.close();
        FakeClock clock = new FakeClock(5_000_000_000L);
        role = new SenderRole(Drivers.load(), clock);
        final int count = 100;
        role.prepare(spec(count, 0).setRate(10_000).build());
        phase(Phase.WARMUP);
        assertEquals(count, phase(Phase.MEASURE).getSent());
        Map<Series, long[]> up = upload();
        long[] sendNs = up.get(Series.SEND_NS);
        long[] intended = up.get(Series.INTENDED_NS);
        assertEquals(5_000_000_000L + io.msgscope.control.RunSpecs.MEASURE_LEAD_NS, intended[0], "the schedule starts a fixed lead after the Go");
        for (int n = 0; n < count; n++) {
            assertEquals(intended[n], sendNs[n], "message " + n + " stamped at its intended time");
            if (n > 0) {
                assertEquals(100_000, intended[n] - intended[n - 1], "1/rate apart");
            }
        }
        // one park per message (the first gap is 1 ms, the others 100 us), never a park shorter than the gap
        // less the spin; the spins only cover the last SPIN_NS of each gap
        assertEquals(count, clock.parks());
        assertEquals(count * (SenderRole.SPIN_NS / FakeClock.SPIN_STEP_NS), clock.spins());
    }

    /**
     * The constant rate's fast path (issue 31's review) keeps the schedule the operator gave: for 1,000,000 messages at
     * rates whose period is not a whole number of ns (and at ones whose is), {@code rateDueNs} equals the lambda
     * {@code --rate} called through a {@code LongUnaryOperator} before, and a fake-clock run at 3,000,000 msg/s (a
     * period of 333.3 ns) records exactly those intended times.
     */
    @Test
    void theConstantRatesFastPathKeepsTheOperatorsDueTimes() throws Exception {
        final int count = 1_000_000;
        for (double rate : new double[] {1, 3, 3_000, 5_000, 10_000, 123_456.7, 3_000_000, 100_000_000}) {
            final double periodNs = 1e9 / rate;
            java.util.function.LongUnaryOperator operator = seq -> (long) (seq * periodNs); // sendAtRate's, before
            for (int n = 0; n < count; n++) {
                if (SenderRole.rateDueNs(periodNs, n) != operator.applyAsLong(n)) {
                    throw new AssertionError("rate " + rate + ", message " + n + ": " + SenderRole.rateDueNs(periodNs, n)
                            + " != " + operator.applyAsLong(n));
                }
            }
        }
        role.close();
        FakeClock clock = new FakeClock(5_000_000_000L);
        role = new SenderRole(Drivers.load(), clock);
        role.prepare(spec(count, 0).setRate(3_000_000).build());
        phase(Phase.WARMUP);
        assertEquals(count, phase(Phase.MEASURE).getSent());
        long[] intended = upload().get(Series.INTENDED_NS);
        final double periodNs = 1e9 / 3_000_000;
        java.util.function.LongUnaryOperator operator = seq -> (long) (seq * periodNs);
        long start = 5_000_000_000L + io.msgscope.control.RunSpecs.MEASURE_LEAD_NS;
        int differ = 0;
        for (int n = 0; n < count; n++) {
            differ += intended[n] == start + operator.applyAsLong(n) ? 0 : 1;
        }
        assertEquals(0, differ, "messages whose intended time differs from the operator's schedule");
        assertEquals(start + 333_333_000L, intended[999_999], "message 999,999: 999,999 x 333.33 ns, truncated");
    }

    /**
     * {@code --phases} (issue 31) on the fake clock: 10 ms at 10,000 msg/s (100 messages 100 µs apart), a 5 ms pause,
     * then a ramp from 10,000 to 30,000 msg/s over 10 ms (200 messages): each message goes exactly at its timeline
     * offset, the pause leaves a 5.1 ms gap, and the ramp's gaps shrink from 100 µs towards 33 µs.
     */
    @Test
    void onATimelineEachMessageGoesAtItsPhasesDueTime() throws Exception {
        role.close();
        FakeClock clock = new FakeClock(5_000_000_000L);
        role = new SenderRole(Drivers.load(), clock);
        io.msgscope.core.timeline.Timeline timeline =
                io.msgscope.core.timeline.Timeline.parse("--phases", "a:10ms@10k, p:5ms@0, r:10ms@10k..30k");
        assertEquals(300, timeline.messages());
        role.prepare(spec(300, 0).addAllPhases(io.msgscope.control.RunSpecs.trace(io.msgscope.core.RunSpec.builder()
                .timeline(timeline).window(10).build(), "t").getPhasesList()).build());
        phase(Phase.WARMUP);
        assertEquals(300, phase(Phase.MEASURE).getSent());
        long[] sendNs = upload().get(Series.SEND_NS);
        long[] intended = upload().get(Series.INTENDED_NS);
        long start = 5_000_000_000L + io.msgscope.control.RunSpecs.MEASURE_LEAD_NS;
        for (int n = 0; n < 300; n++) {
            assertEquals(start + timeline.dueNs(n), intended[n], "message " + n + " due at its timeline offset");
            assertTrue(sendNs[n] >= intended[n] && sendNs[n] < intended[n] + FakeClock.SPIN_STEP_NS,
                    "message " + n + " sent at its due time (to the fake clock's spin step)");
        }
        assertEquals(99 * 100_000L, intended[99] - start, "phase a: 100 µs apart");
        assertEquals(15_000_000L, intended[100] - start, "phase r starts after the 5 ms pause");
        // the ramp: N(t) = 10 t + t² (t in ms, N in messages), so message 100 + j is due at sqrt(25 + j) - 5 ms
        assertEquals(15_000_000L + Math.round((Math.sqrt(25 + 1) - 5) * 1e6), intended[101] - start, 5);
        assertEquals(15_000_000L + Math.round((Math.sqrt(25 + 199) - 5) * 1e6), intended[299] - start, 5);
    }

    /**
     * A drain (issue 31) on the fake clock, no word from the receiver: 10 ms at 10k, 10 ms at 10k paused, a drain of at
     * most 100 ms, 10 ms at 10k. The sender waits at the drain until its cap, tells the receiver the drain lasted its cap,
     * and the last phase's messages are due from 120 ms on.
     */
    @Test
    void aDrainWithoutAWordLastsItsCapAndTheNextPhaseIsDueAfterIt() throws Exception {
        role.close();
        FakeClock clock = new FakeClock(5_000_000_000L);
        role = new SenderRole(Drivers.load(), clock);
        io.msgscope.core.timeline.Timeline timeline = io.msgscope.core.timeline.Timeline.parse("--phases",
                "a:10ms@10k, f:10ms@10k/paused, d:100ms@0/drained, b:10ms@10k");
        role.prepare(spec(300, 0).addAllPhases(io.msgscope.control.RunSpecs.trace(io.msgscope.core.RunSpec.builder()
                .timeline(timeline).window(10).build(), "t").getPhasesList()).build());
        phase(Phase.WARMUP);
        Listener l = new Listener();
        role.start(Phase.MEASURE, l);
        assertEquals(300, l.result.get(60, TimeUnit.SECONDS).getSent());
        long[] intended = upload().get(Series.INTENDED_NS);
        long start = 5_000_000_000L + io.msgscope.control.RunSpecs.MEASURE_LEAD_NS;
        assertEquals(199 * 100_000L, intended[199] - start);
        assertEquals(120_000_000L, intended[200] - start, "the last phase starts after the drain's 100 ms cap");
        assertEquals(120_000_000L + 99 * 100_000L, intended[299] - start);
        assertEquals(1, l.ends.size());
        assertEquals(2, l.ends.get(0).getPhase());
        assertEquals(100_000_000L, l.ends.get(0).getDurationNs());
        assertEquals("cap", l.ends.get(0).getEndedBy());
    }

    /**
     * A drain that publishes (issue 31) on the fake clock: 10 ms at 10k (0-99), 10 ms at 10k paused (100-199), a drain at
     * 1k of at most 100 ms (one message a ms from 20 ms), 10 ms at 10k. The receiver's word comes 30.5 ms into the
     * drain, while the sender waits for message 231 (due at 51 ms): the drain sent 200-230, message 231 is the last
     * phase's first, due at once, and the run holds 331 messages instead of the cap's 400, all of them sent and uploaded.
     */
    @Test
    void aDrainThatPublishesEndsOnTheWordAndTheLastPhaseIsNumberedOnFromIt() throws Exception {
        role.close();
        final long wordAt = 5_000_000_000L + io.msgscope.control.RunSpecs.MEASURE_LEAD_NS + 50_500_000L;
        FakeClock fake = new FakeClock(5_000_000_000L);
        final SenderRole[] self = new SenderRole[1];
        io.msgscope.core.NanoClock clock = new io.msgscope.core.test.OnFakeClock(fake) {
            private boolean told;

            @Override
            public <T> T poll(java.util.concurrent.BlockingQueue<T> queue, long ns) {
                if (!told && fake.nanoTime() + ns >= wordAt) { // the word comes through the coordinator now
                    fake.advance(wordAt - fake.nanoTime());
                    told = true;
                    self[0].phaseEnded(io.msgscope.proto.PhaseEnd.newBuilder().setPhase(2).setEndedBy("drained")
                            .setMissing(0).build());
                    return queue.poll();
                }
                return fake.poll(queue, ns);
            }
        };
        role = new SenderRole(Drivers.load(), clock);
        self[0] = role;
        io.msgscope.core.timeline.Timeline timeline = io.msgscope.core.timeline.Timeline.parse("--phases",
                "a:10ms@10k, f:10ms@10k/paused, d:100ms@1k/drained, b:10ms@10k");
        assertEquals(400, timeline.messages());
        role.prepare(spec(400, 0).setCpuEvery(50).addAllPhases(io.msgscope.control.RunSpecs.trace(
                io.msgscope.core.RunSpec.builder().timeline(timeline).window(10).build(), "t").getPhasesList()).build());
        phase(Phase.WARMUP);
        Listener l = new Listener();
        role.start(Phase.MEASURE, l);
        assertEquals(331, l.result.get(60, TimeUnit.SECONDS).getSent());
        Map<Series, long[]> got = upload();
        long[] intended = got.get(Series.INTENDED_NS);
        assertEquals(331, intended.length);
        assertEquals(331, got.get(Series.SEND_NS).length);
        assertEquals(CpuSampler.slots(331, 50), got.get(Series.SENDER_SAMPLE_NS).length, "samples of 331 messages");
        assertTrue(got.get(Series.SENDER_SAMPLE_NS)[CpuSampler.slots(331, 50) - 1] != CpuSampler.ABSENT,
                "the final sample in the last slot of the run as it was");
        long start = 5_000_000_000L + io.msgscope.control.RunSpecs.MEASURE_LEAD_NS;
        assertEquals(20_000_000L, intended[200] - start);
        assertEquals(50_000_000L, intended[230] - start, "the drain's last message");
        assertEquals(50_500_000L, intended[231] - start, "the last phase's first, at the word");
        assertEquals(50_500_000L + 99 * 100_000L, intended[330] - start);
        assertEquals(1, l.ends.size());
        assertEquals(30_500_000L, l.ends.get(0).getDurationNs());
        assertEquals(231, l.ends.get(0).getNextMessage());
        assertEquals("drained", l.ends.get(0).getEndedBy());
    }

    @Test
    void withoutCpuSamplingNoSampleSeriesIsUploaded() throws Exception {
        role.prepare(spec(3_000, 0).build());
        phase(Phase.WARMUP);
        PhaseDone done = phase(Phase.MEASURE);
        assertEquals(3_000, done.getSent());
        assertEquals(0, done.getSamples());
        Map<Series, long[]> up = upload();
        assertEquals(Set.of(Series.SEND_NS), up.keySet());
        assertEquals(3_000, CaptureDriver.WRITES.size());
    }
}
