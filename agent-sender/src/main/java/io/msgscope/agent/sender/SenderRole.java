package io.msgscope.agent.sender;

import io.msgscope.control.AgentRole;
import io.msgscope.control.DriverSpecs;
import io.msgscope.control.RoleThread;
import io.msgscope.control.TraceSink;
import io.msgscope.core.Clock;
import io.msgscope.core.CpuClock;
import io.msgscope.core.CpuSampler;
import io.msgscope.core.NanoClock;
import io.msgscope.core.SendRecorder;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Publisher;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.Series;

import java.nio.ByteBuffer;
import java.util.Random;

/**
 * Sends the warm-up and then N measured messages, taking O_n from the monotonic clock into a
 * preallocated array (D5, M5) and writing the header in place in one payload buffer (R1):
 * epoch ns, sequence, an empty probe slot, then the padding. At full speed messages go back to
 * back ({@code send_batch} per write); with a rate, each goes at its intended time, and both the
 * intended and the actual time are kept (coordinated omission, STYLE "The hot path").
 */
public final class SenderRole implements AgentRole {
    static final long SPIN_NS = 50_000;
    private static final long DRAIN_MS = 30_000;

    private final Drivers drivers;
    private final NanoClock nanoClock;
    private RunSpec spec;
    private SendRecorder recorder;
    private ByteBuffer payload;
    private Publisher publisher;
    private RoleThread thread;
    private Clock clock;
    private CpuSampler sampler; // null when --cpu-every 0
    /** A backlog run's reads of the confirmed count (issue 31); null without paused consumers or confirms. */
    private volatile ConfirmSampler confirmSampler;
    private volatile boolean stopped;
    /** Stopped by the coordinator's Stop (an interrupted run): the phase ends done, not failed. */
    private volatile boolean endedEarly;
    /** Where a run on phases waits out its drains (issue 31); null before the measurement or without phases. */
    private volatile WordGate gate;

    public SenderRole(Drivers drivers) {
        this(drivers, NanoClock.SYSTEM);
    }

    /** With the clock the paced sends read and wait on (a test's clock; the full-speed paths read the system's). */
    SenderRole(Drivers drivers, NanoClock nanoClock) {
        this.drivers = drivers;
        this.nanoClock = nanoClock;
    }


    @Override
    public Role role() {
        return Role.SENDER;
    }

    @Override
    public Ready prepare(RunSpec spec) throws Exception {
        this.spec = spec;
        gate = null;
        int count = (int) spec.getCount();
        recorder = new SendRecorder(count, paced(spec));
        sampler = spec.getCpuEvery() > 0 ? new CpuSampler(count, spec.getCpuEvery()) : null;
        if (sampler != null) {
            sampler.warmUp();
        }
        int batch = Math.max(1, spec.getSendBatch());
        Driver driver = DriverSpecs.driverOf(drivers, spec);
        payload = driver.allocatePayload(spec.getSize() * batch);
        if (spec.getRandomPadding()) {
            byte[] noise = new byte[payload.capacity()];
            new Random(spec.getSeed()).nextBytes(noise);
            payload.put(0, noise);
        }
        for (int off = 0; off < payload.capacity(); off += spec.getSize()) {
            WireHeader.writeProbe(payload, off, 0, 0);
        }
        clock = Clock.calibrate();
        thread = new RoleThread("msgscope-sender", spec.getPinCpu());
        publisher = driver.openPublisher(DriverSpecs.of(spec));
        return thread.ready().setRole(Role.SENDER).build();
    }

    private volatile long warmupProgress;
    /** The clock test hook (issue 33), null in every normal run: it shifts the times this sender uploads. */
    private final io.msgscope.core.clock.ClockShift shift = Clock.process().shift();
    /** The series this sender takes by its own monotonic clock: the ones the test hook shifts. */
    private static final java.util.Set<Series> OWN_CLOCK = java.util.EnumSet.of(Series.SEND_NS, Series.INTENDED_NS,
            Series.SENDER_SAMPLE_NS, Series.CONFIRM_SAMPLE_NS);

    /** Measured messages sent, or during the warm-up the warm-up messages sent so far. */
    @Override
    public long progress() {
        SendRecorder r = recorder;
        long measured = r == null ? 0 : r.progress();
        return measured > 0 ? measured : warmupProgress;
    }

    /** When the measurement's Go was heard (the sender's clock): its schedule starts a fixed lead after it. */
    private volatile long measureGoNs;

    @Override
    public void start(Phase phase, PhaseListener listener) {
        if (phase == Phase.MEASURE) {
            measureGoNs = nanoClock.nanoTime();
        }
        thread.submit(() -> {
            try {
                PhaseDone.Builder done = PhaseDone.newBuilder().setPhase(phase);
                long allocated = thread.allocatedBytes();
                if (phase == Phase.WARMUP) {
                    if (shift != null) {
                        shift.atStamp(System.nanoTime()); // the hook's drift and step count from here
                    }
                    sendWarmup(spec.getWarmupCount());
                    done.setSent(spec.getWarmupCount());
                } else {
                    if (spec.getPhasesCount() > 0) {
                        io.msgscope.core.timeline.Timeline timeline = io.msgscope.control.RunSpecs.timeline(spec);
                        confirmSampler = timeline.pausesConsumers() ? ConfirmSampler.startFor(publisher) : null;
                        sendOnTimeline(new WordGate(timeline, nanoClock, listener));
                    } else if (spec.getRate() > 0) {
                        sendAtRate();
                    } else {
                        sendFullSpeed();
                    }
                    publisher.drain(DRAIN_MS); // e.g. outstanding publisher confirms
                    ConfirmSampler.stop(confirmSampler);
                    done.setSent(recorder.sent()).putAllCounters(publisher.counters());
                    confirmations(done, publisher);
                }
                done.setBytes(done.getSent() * spec.getSize());
                if (phase == Phase.MEASURE && sampler != null) {
                    done.setSamples(sampler.samples()).setSamplingNs(sampler.samplingNs());
                }
                done.setHotThreadAllocatedBytes(allocated < 0 ? -1 : thread.allocatedBytes() - allocated);
                if (stopped && !endedEarly) {
                    listener.failed("sender stopped after " + done.getSent() + " messages");
                } else {
                    listener.done(done.build());
                }
            } catch (Exception e) {
                listener.failed("sending failed after " + recorder.sent() + " measured messages: " + io.msgscope.control.AgentSession.describe(e));
            }
        });
    }

    /** Which measured messages the system confirmed, for the guarantee check (issue 32 item 3). */
    static void confirmations(PhaseDone.Builder done, Publisher pub) {
        if (pub.confirms()) {
            long[] ranges = pub.unconfirmed();
            done.setConfirms(true).setUnconfirmedKnown(ranges != null);
            if (ranges != null) {
                for (long r : ranges) {
                    done.addUnconfirmed(r);
                }
            }
        }
    }

    /** Messages between two looks at {@link #stopped} (a volatile read) on the full-speed paths. */
    static final int STOP_CHECK = 1024;

    /** Warm-up messages carry negative sequence numbers, so the receiver tells them apart. */
    private void sendWarmup(long n) throws Exception {
        final int size = spec.getSize();
        final ByteBuffer buf = payload;
        final Publisher pub = publisher;
        final long epochOffset = clock.epochMinusMono();
        for (long i = 0; i < n && !stopped; ) {
            final long end = Math.min(n, i + STOP_CHECK);
            for (; i < end; i++) {
                WireHeader.writeSendTime(buf, 0, System.nanoTime() + epochOffset);
                WireHeader.writeSequence(buf, 0, -1 - i);
                pub.send(buf, 0, size);
            }
            warmupProgress = i; // once per stretch: the heartbeat answer's progress during the warm-up
        }
    }

    /**
     * Back to back, one write per message ({@code --send-batch 1}). The messages run in stretches that end
     * at the next CPU sample (every Nth message) or stop check, whichever comes first: the index arithmetic
     * is paid once per stretch, so inside it a message costs only what it must, its O_n (one clock read),
     * two header stores, the recorder's store and the write.
     */
    private void sendFullSpeed() throws Exception {
        if (Math.max(1, spec.getSendBatch()) > 1) {
            sendBatched();
            return;
        }
        final int count = (int) spec.getCount();
        final CpuSampler cpu = sampler;
        final int every = cpu == null ? Integer.MAX_VALUE : cpu.every();
        int nextSample = cpu == null ? Integer.MAX_VALUE : 0;
        int seq = 0;
        while (seq < count) {
            if (stopped) {
                return;
            }
            if (seq == nextSample) {
                cpu.sample(seq / every);
                nextSample = seq + every;
            }
            final int end = (int) Math.min(Math.min(count, (long) nextSample), (long) seq + STOP_CHECK);
            sendStretch(seq, end);
            seq = end;
        }
        if (cpu != null) {
            cpu.sample(cpu.finalSlot());
        }
    }

    /** Messages {@code from .. end-1}, one write each, nothing else to look at on the way. */
    private void sendStretch(int from, int end) throws Exception {
        final int size = spec.getSize();
        final ByteBuffer buf = payload;
        final SendRecorder rec = recorder;
        final Publisher pub = publisher;
        final long epochOffset = clock.epochMinusMono();
        for (int n = from; n < end; n++) {
            final long t = System.nanoTime();
            WireHeader.writeSendTime(buf, 0, t + epochOffset);
            WireHeader.writeSequence(buf, 0, n);
            rec.recordSend(n, t);
            pub.send(buf, 0, size);
        }
    }

    /**
     * {@code --send-batch K > 1}: K messages per write (the last one shorter), O_n taken as each message is
     * written into the batch; the batches run straight through the CPU samples, which are taken before
     * their message's O_n.
     */
    private void sendBatched() throws Exception {
        final int count = (int) spec.getCount();
        final int size = spec.getSize();
        final int batch = Math.max(1, spec.getSendBatch());
        final ByteBuffer buf = payload;
        final SendRecorder rec = recorder;
        final Publisher pub = publisher;
        final long epochOffset = clock.epochMinusMono();
        final CpuSampler cpu = sampler;
        final int every = cpu == null ? Integer.MAX_VALUE : cpu.every();
        int nextSample = cpu == null ? Integer.MAX_VALUE : 0;
        int nextStopCheck = 0;
        int seq = 0;
        while (seq < count) {
            if (seq >= nextStopCheck) {
                if (stopped) {
                    return;
                }
                nextStopCheck = seq + STOP_CHECK;
            }
            final int k = Math.min(batch, count - seq);
            for (int j = 0, off = 0; j < k; j++, off += size) {
                final int n = seq + j;
                if (n == nextSample) { // every Nth message: one compare on the others' path
                    cpu.sample(n / every);
                    nextSample = n + every;
                }
                final long t = System.nanoTime();
                WireHeader.writeSendTime(buf, off, t + epochOffset);
                WireHeader.writeSequence(buf, off, n);
                rec.recordSend(n, t);
            }
            pub.send(buf, 0, k * size);
            seq += k;
        }
        if (cpu != null) {
            cpu.sample(cpu.finalSlot());
        }
    }

    /**
     * {@code --rate}: message {@code seq} is due at {@code seq} periods, computed in the loop ({@link #rateDueNs}), not
     * called through an operator: JMH {@code ScheduleBenchmark} measured the call at 0.2-2.4 ns a message more than the
     * arithmetic in the loop in each of seven rounds (median 0.6 ns; up to 2.4 ns on a call site that has also seen a
     * timeline), the fast path within noise of the inline arithmetic (BENCHMARKS.md).
     */
    private void sendAtRate() throws Exception {
        sendOnSchedule(1e9 / spec.getRate(), null, null);
    }

    /** Message {@code seq}'s due time at a constant rate, ns from the start: the fast path's arithmetic. */
    static long rateDueNs(double periodNs, int seq) {
        return (long) (seq * periodNs);
    }

    /**
     * {@code --phases} (issue 31): message {@code seq} is due at its timeline offset, so a step moves the rate at its
     * boundary, a ramp raises it message by message and a pause leaves a gap; the intended times recorded are the
     * timeline's, which is what the per-phase latency from the intended send time is taken against. A phase that
     * lasts until drained is waited out at its gate ({@link WordGate}), and the messages after it are due on the
     * timeline as run.
     */
    private void sendOnTimeline(WordGate drains) throws Exception {
        gate = drains;
        sendOnSchedule(0, seq -> drains.timeline().dueNs(seq), drains);
    }

    @Override
    public void phaseEnded(io.msgscope.proto.PhaseEnd end) {
        WordGate g = gate;
        if (g != null) {
            g.heard(end);
        }
    }

    /**
     * Each message at {@code start + dueNs(seq)}, or with no operator at {@code start + rateDueNs(periodNs, seq)} (the
     * constant rate's fast path), its intended and actual times both kept; before the first message after a drain,
     * the drain is waited out ({@code drains}: null without any).
     */
    private void sendOnSchedule(double periodNs, java.util.function.LongUnaryOperator dueNs, WordGate drains)
            throws Exception {
        int count = (int) spec.getCount(); // a drain that publishes may end before its cap: then fewer
        final int size = spec.getSize();
        final ByteBuffer buf = payload;
        final SendRecorder rec = recorder;
        final Publisher pub = publisher;
        final long epochOffset = clock.epochMinusMono();
        final CpuSampler cpu = sampler;
        final int every = cpu == null ? Integer.MAX_VALUE : cpu.every();
        int nextSample = cpu == null ? Integer.MAX_VALUE : 0;
        final NanoClock time = nanoClock;
        // a fixed lead after the Go, as the probe's fault clock after its FaultsGo (RunSpecs.MEASURE_LEAD_NS)
        final long start = Math.max(measureGoNs + io.msgscope.control.RunSpecs.MEASURE_LEAD_NS,
                time.nanoTime() + 1_000_000);
        long gateAt = drains == null ? Long.MAX_VALUE : drains.nextMessage();
        long publishingFrom = drains == null ? Long.MAX_VALUE : drains.publishingFrom();
        for (int seq = 0; seq < count; seq++) {
            if ((seq & 1023) == 0 && stopped) {
                return;
            }
            boolean ended = false;
            if (seq >= publishingFrom && seq < gateAt // a drain that publishes: its end may come before this one
                    && drains.awaitDue(start, seq, start + dueNs.applyAsLong(seq))) {
                ended = true;
                gateAt = drains.nextMessage();
            }
            while (seq == gateAt) { // (two drains in a row share their first message after)
                if (!drains.await(start, seq, () -> stopped)) {
                    return;
                }
                ended = true;
                gateAt = drains.nextMessage();
            }
            if (ended) { // the messages after a drain are numbered on from here, on the timeline as run
                count = (int) drains.timeline().messages();
                gateAt = drains.nextMessage();
                publishingFrom = drains.publishingFrom();
                if (cpu != null) {
                    cpu.endAt(count);
                }
                if (seq >= count) {
                    break;
                }
            }
            if (seq == nextSample) {
                cpu.sample(seq / every);
                nextSample = seq + every;
            }
            final long intended = start + (dueNs == null ? rateDueNs(periodNs, seq) : dueNs.applyAsLong(seq));
            final long now = cpu == null ? time.awaitUntil(intended, SPIN_NS) : awaitCounted(time, intended, cpu);
            WireHeader.writeSendTime(buf, 0, now + epochOffset);
            WireHeader.writeSequence(buf, 0, seq);
            rec.recordIntended(seq, intended);
            rec.recordSend(seq, now);
            pub.send(buf, 0, size);
        }
        if (cpu != null) {
            cpu.sample(cpu.finalSlot());
        }
    }

    /**
     * Waits for the send time with the thread's CPU clock read around the wait, so the CPU spent waiting (parking,
     * then spinning through the last {@link #SPIN_NS}) is counted apart from the work of sending (issue 27). Only
     * when there is a wait: a sender behind its schedule pays one clock read, as without sampling.
     */
    private static long awaitCounted(NanoClock time, long intended, CpuSampler cpu) {
        long now = time.nanoTime();
        if (now >= intended) {
            return now;
        }
        final long c0 = CpuClock.threadCpuNs();
        now = time.awaitUntil(intended, SPIN_NS);
        final long c1 = CpuClock.threadCpuNs();
        if (c0 != CpuSampler.ABSENT && c1 != CpuSampler.ABSENT) {
            cpu.addWaiting(c1 - c0);
        }
        return now;
    }

    @Override
    public void endEarly() {
        endedEarly = true;
        stopped = true; // the send loops look at it every STOP_CHECK messages (every 1,024 at a rate)
    }

    /** Messages go at their own times, at one rate or along load phases: intended times and waiting CPU are kept. */
    private static boolean paced(RunSpec spec) {
        return spec.getRate() > 0 || spec.getPhasesCount() > 0;
    }

    @Override
    public void upload(TraceSink to) throws Exception {
        final io.msgscope.core.clock.ClockShift sh = shift;
        // the test hook (issue 33 item 3) plays another box: its monotonic times as the coordinator's probes see them
        TraceSink sink = sh == null ? to : (series, values, n) -> to.series(series,
                OWN_CLOCK.contains(series) ? sh.shifted(values, n) : values, n);
        WordGate g = gate; // a drain that published and ended before its cap: the run holds fewer messages
        int count = (int) (g == null ? spec.getCount() : g.timeline().messages());
        sink.series(Series.SEND_NS, recorder.sendNs(), count);
        if (recorder.intendedNs() != null) {
            sink.series(Series.INTENDED_NS, recorder.intendedNs(), count);
        }
        ConfirmSampler.upload(confirmSampler, sink);
        if (sampler != null) {
            sink.series(Series.SENDER_SAMPLE_NS, sampler.sampleNs(), sampler.slots());
            sink.series(Series.SENDER_THREAD_CPU_NS, sampler.threadCpuNs(), sampler.slots());
            sink.series(Series.SENDER_PROCESS_CPU_NS, sampler.processCpuNs(), sampler.slots());
            if (paced(spec)) {
                sink.series(Series.SENDER_WAIT_CPU_NS, sampler.waitingCpuNs(), sampler.slots());
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        ConfirmSampler.stop(confirmSampler);
        if (thread != null) {
            thread.close();
        }
        try {
            if (publisher != null) {
                publisher.close();
            }
        } catch (Exception e) {
            // closing anyway
        }
    }
}
