package io.msgscope.agent.receiver;

import io.msgscope.control.AgentRole;
import io.msgscope.control.DriverSpecs;
import io.msgscope.control.RoleThread;
import io.msgscope.control.TraceSink;
import io.msgscope.core.CpuSampler;
import io.msgscope.core.ReceiveRecorder;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.core.proc.NetDevReader;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.Series;

import java.nio.ByteBuffer;

/**
 * Receives on its own connection and thread (M5.6), taking I_n first thing for every message (Q2)
 * into a preallocated array indexed by sequence (D5); warm-up messages (negative sequence) are
 * only counted. One receive loop runs from the warm-up to the end of the measurement: the
 * warm-up phase ends when every warm-up message arrived; the measurement ends when every measured
 * message arrived, or when the sender has finished and nothing arrived for the drain timeout
 * (the rest is lost), or when the connection closes.
 */
public final class ReceiverRole implements AgentRole {
    private static final long POLL_MS = 50;
    /** At most this many messages before the first pause align the receiver's timeline on the sender's. */
    private static final long ALIGN_MESSAGES = 10_000;
    /** The receiver pauses and resumes this long (at most) before the timeline's boundary, never after it. */
    private static final long LEAD_NS = 1_000_000;
    private static final long NET_MIN_INTERVAL_NS = 10_000_000L;

    private final Drivers drivers;
    private RunSpec spec;
    private ReceiveRecorder recorder;
    private Subscriber subscriber;
    private RoleThread thread;
    private volatile boolean stopped;
    private volatile long senderSent = -1;
    /** The sender finished its warm-up (a SenderFinished before the warm-up was reported). */
    private volatile boolean warmupSent;
    /** Set by the receive loop before it reports the warm-up, so later SenderFinished frames are the measurement's. */
    private volatile boolean warmupOver;
    /** The measure phase's listener, once the coordinator started it; null when the role closes first. */
    private final java.util.concurrent.CompletableFuture<PhaseListener> measureListener =
            new java.util.concurrent.CompletableFuture<>();
    private final Handler handler = new Handler();
    /**
     * The load phases when some pause the consumers (issue 31), else null: the receive loop follows their clock. A drain
     * phase's length replaces its cap here when the sender says how long it made it ({@link #phaseEnded}).
     */
    private volatile io.msgscope.core.timeline.Timeline timeline;
    /** The drain phases whose end this receiver has seen and told (issue 31), by index; null without any drain. */
    private boolean[] wordSeen;
    /** Drains of the timeline this receiver has not yet said drained or quiet; the receive loop stops looking at 0. */
    private int wordsLeft;
    /** The drain ends the sender told, for the timeline as run. */
    private final java.util.List<io.msgscope.core.timeline.Timeline.WordEnd> wordEnds =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    /** When the measurement's timeline starts on this clock by the go (as the sender's: its go plus 1 ms); 0 = not yet. */
    private volatile long timelineStartNs;
    /**
     * The sender's timeline start as its messages before the first pause tell it, on this clock: the least of
     * (send time less due time) over them, which is the start plus the sender's least lateness; MAX_VALUE = none yet.
     * It replaces the go's estimate, which leads the sender's by the control channel's delay.
     */
    private volatile long alignedStartNs = Long.MAX_VALUE;
    /** The broker's backlog read during a run with paused consumers, when the driver can read it; else null. */
    private BacklogSampler backlog;

    public ReceiverRole(Drivers drivers) {
        this.drivers = drivers;
    }

    /**
     * The per-message callback: one object for the whole run, no allocation per message. Every Nth
     * message (the first arrival with a sequence at or past the next multiple of N) it also takes
     * the receiver's CPU sample and keeps the broker's CPU stamp from the probe slot (D4, M3).
     */
    private final class Handler implements MessageHandler {
        long warmupReceived;
        long lastArrivalNs;
        long nextSample = Long.MAX_VALUE;
        long lastSeq = Long.MAX_VALUE;
        int every;
        CpuSampler cpu;
        long[] brokerNs;
        long[] brokerCpuNs;
        long alignBelow; // measured messages below this sequence align the receiver's timeline (0: none)
        long backlogBelow; // a drain's backlog: the messages scheduled before it (0: no drain under way)
        long lastBacklogArrivalNs; // when one of them last arrived
        long epochMinusMono;
        NetDevReader net; // null: network not sampled
        final long[] netNow = new long[4];
        long[][] netSeries; // rx bytes, rx packets, tx bytes, tx packets per sample slot
        long lastNetNs = Long.MIN_VALUE / 2;
        long netSamplingNs;

        @Override
        public void onMessage(ByteBuffer buffer, int offset) {
            final long t = System.nanoTime();
            final long seq = WireHeader.sequence(buffer, offset);
            if (seq < 0) {
                warmupReceived++;
            } else {
                recorder.recordReceive(seq, t);
                if (seq < alignBelow) {
                    align(buffer, offset, seq);
                }
                if (seq < backlogBelow) {
                    lastBacklogArrivalNs = t;
                }
                if (seq >= nextSample) {
                    sampleAt(buffer, offset, seq);
                } else if (seq == lastSeq) {
                    keepBrokerStamp(buffer, offset, brokerNs.length - 1);
                }
            }
            lastArrivalNs = t;
        }

        /** See {@link #alignedStartNs}: one look at a message sent before the first pause. */
        private void align(ByteBuffer buffer, int offset, long seq) {
            long start = WireHeader.sendTime(buffer, offset) - epochMinusMono - timeline.dueNs(seq);
            if (start < alignedStartNs) {
                alignedStartNs = start;
            }
        }

        private void sampleAt(ByteBuffer buffer, int offset, long seq) {
            final int k = (int) (seq / every);
            cpu.sample(k);
            sampleNetwork(k, false);
            nextSample = (long) (k + 1) * every;
            if (seq == (long) k * every) {
                keepBrokerStamp(buffer, offset, k);
            }
            if (seq == lastSeq) {
                keepBrokerStamp(buffer, offset, brokerNs.length - 1);
            }
        }

        /** /proc/net/dev costs ~10 µs: read at most every 10 ms (skipped slots are bridged after the run). */
        void sampleNetwork(int slot, boolean always) {
            if (net == null) {
                return;
            }
            final long t0 = System.nanoTime();
            if (!always && t0 - lastNetNs < NET_MIN_INTERVAL_NS) {
                return;
            }
            try {
                if (net.read(netNow)) {
                    for (int i = 0; i < 4; i++) {
                        netSeries[i][slot] = netNow[i];
                    }
                }
            } catch (java.io.IOException e) {
                net = null; // stop sampling the network, keep measuring
            }
            lastNetNs = t0;
            netSamplingNs += System.nanoTime() - t0;
        }

        private void keepBrokerStamp(ByteBuffer buffer, int offset, int slot) {
            long ts = WireHeader.probeTime(buffer, offset);
            if (ts != 0) { // 0 = the relay did not stamp this message
                brokerNs[slot] = ts;
                brokerCpuNs[slot] = WireHeader.probeCpu(buffer, offset);
            }
        }
    }

    @Override
    public Role role() {
        return Role.RECEIVER;
    }

    @Override
    public Ready prepare(RunSpec spec) throws Exception {
        this.spec = spec;
        recorder = new ReceiveRecorder((int) spec.getCount());
        if (spec.getCpuEvery() > 0) {
            handler.every = spec.getCpuEvery();
            handler.cpu = new CpuSampler(spec.getCount(), spec.getCpuEvery());
            handler.cpu.warmUp();
            handler.brokerNs = new long[handler.cpu.slots()];
            handler.brokerCpuNs = new long[handler.cpu.slots()];
            java.util.Arrays.fill(handler.brokerNs, CpuSampler.ABSENT);
            java.util.Arrays.fill(handler.brokerCpuNs, CpuSampler.ABSENT);
            handler.nextSample = 0;
            handler.lastSeq = spec.getCount() - 1;
        }
        io.msgscope.core.timeline.Timeline t = io.msgscope.control.RunSpecs.timeline(spec);
        timeline = t != null && t.pausesConsumers() ? t : null;
        wordsLeft = 0;
        if (timeline != null) {
            int firstPaused = 0;
            while (!timeline.phases().get(firstPaused).consumersPaused()) {
                firstPaused++;
            }
            handler.alignBelow = Math.min(ALIGN_MESSAGES, timeline.firstMessage(firstPaused));
            handler.epochMinusMono = io.msgscope.core.Clock.calibrate().epochMinusMono();
            wordSeen = timeline.wordPhases().isEmpty() ? null : new boolean[timeline.phases().size()];
            wordsLeft = timeline.wordPhases().size();
        }
        thread = new RoleThread("msgscope-receiver", spec.getPinCpu());
        subscriber = DriverSpecs.driverOf(drivers, spec).openSubscriber(DriverSpecs.of(spec));
        if (handler.cpu != null) {
            openNetwork();
        }
        if (timeline != null) {
            io.msgscope.core.driver.BacklogProbe probe = DriverSpecs.driverOf(drivers, spec)
                    .openBacklogProbe(DriverSpecs.of(spec), subscriber.destination());
            backlog = probe == null ? null : new BacklogSampler(probe, timeline.durationNs() + 60_000_000_000L);
            for (io.msgscope.core.timeline.LoadPhase p : timeline.phases()) {
                if (p.untilBacklog() && probe == null) { // the coordinator refuses it before: a driver changed
                    throw new io.msgscope.core.SpecException("--phases", "phase '" + p.name() + "' ends on the "
                            + "broker's count of the backlog, which the " + spec.getDriver() + " driver does not read");
                }
            }
        }
        primeSubscriber();
        return thread.ready().setRole(Role.RECEIVER).setDestination(subscriber.destination()).build();
    }

    /**
     * One short poll on the receiving thread before the sender may start: push drivers take the handler
     * from their first poll, so no delivery can find them without one; pull drivers just find nothing.
     */
    private void primeSubscriber() throws Exception {
        java.util.concurrent.CompletableFuture<Integer> primed = new java.util.concurrent.CompletableFuture<>();
        thread.submit(() -> {
            try {
                primed.complete(subscriber.poll(handler, 1));
            } catch (Throwable t) {
                primed.completeExceptionally(t);
            }
        });
        try {
            primed.get(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        }
    }

    /** Network utilisation on the interface the data arrives on (M4), when /proc/net/dev lists it. */
    private void openNetwork() {
        java.net.InetAddress local = subscriber.localAddress();
        if (local == null) {
            return;
        }
        try {
            handler.net = new NetDevReader(java.nio.file.Path.of("/proc/net/dev"), NetDevReader.interfaceOf(local));
            handler.netSeries = new long[4][handler.cpu.slots()];
            for (int i = 0; i < 2_000; i++) {
                handler.net.read(handler.netNow); // warm the parser up before the run
            }
            for (long[] a : handler.netSeries) {
                java.util.Arrays.fill(a, CpuSampler.ABSENT);
            }
        } catch (Exception e) {
            handler.net = null; // not Linux, or the interface is not listed
        }
    }

    /** Measured messages received, or during the warm-up the warm-up messages so far (a racy read: progress only). */
    @Override
    public long progress() {
        ReceiveRecorder r = recorder;
        Handler h = handler;
        long measured = r == null ? 0 : r.progress();
        return measured > 0 || h == null ? measured : h.warmupReceived;
    }

    @Override
    public void start(Phase phase, PhaseListener listener) {
        if (phase == Phase.MEASURE) {
            timelineStartNs = System.nanoTime() + 1_000_000; // the sender starts its schedule 1 ms after its go
            if (backlog != null) {
                backlog.start();
            }
            measureListener.complete(listener); // the receive loop is already running
            return;
        }
        thread.submit(() -> receiveLoop(listener));
    }

    @Override
    public void senderFinished(long sent) {
        // the measurement's, once its go came (the coordinator sends the warm-up's before it, on the same ordered
        // channel): the receive loop may have counted the whole warm-up before the warm-up's own SenderFinished came,
        // which then ended the measurement after the drain timeout of silence — a backlog's pause (issue 31)
        if (warmupOver && measureListener.isDone()) {
            senderSent = sent;
        } else {
            warmupSent = true;
        }
    }

    private void receiveLoop(PhaseListener warmupListener) {
        final Subscriber sub = subscriber;
        final Handler h = handler;
        final ReceiveRecorder rec = recorder;
        final long warmup = spec.getWarmupCount();
        final long drainNs = spec.getDrainTimeoutMs() * 1_000_000L;
        boolean warmupReported = false;
        long allocatedAtMeasureStart = -1;
        boolean eof = false;
        long finishedSeenNs = 0;
        long warmupSeenNs = 0;
        try {
            while (!stopped) {
                if (!warmupReported && (h.warmupReceived >= warmup
                        || warmupDrained(h, warmupSeenNs, drainNs))) {
                    warmupOver = true;
                    warmupListener.done(PhaseDone.newBuilder().setPhase(Phase.WARMUP)
                            .setReceived(h.warmupReceived).build());
                    warmupReported = true;
                    allocatedAtMeasureStart = thread.allocatedBytes();
                }
                if (rec.complete()) {
                    break;
                }
                int n = sub.poll(h, timeline == null ? POLL_MS : followTimeline(sub));
                if (n < 0) {
                    eof = true;
                    break;
                }
                if (wordsLeft > 0) {
                    watchWords(drainNs); // at once: the last message of a backlog may have come in this poll
                }
                if (!warmupReported && warmupSeenNs == 0 && warmupSent) {
                    warmupSeenNs = System.nanoTime();
                }
                if (n == 0 && senderSent >= 0) {
                    long now = System.nanoTime();
                    if (finishedSeenNs == 0 || paused) {
                        // quiet from the sender's end, or from the consumers' resume: paused, they take nothing by
                        // design, and a backlog held past the drain timeout after the last send is not lost (it was
                        // counted lost, and where the broker had confirmed it as guarantee violations: issue 32)
                        finishedSeenNs = now;
                    }
                    if (now - Math.max(h.lastArrivalNs, finishedSeenNs) > drainNs) {
                        break; // the sender is done and nothing came for the drain timeout
                    }
                }
            }
        } catch (Exception e) {
            fail(warmupReported ? null : warmupListener, "receiving failed after " + rec.received()
                    + " measured messages: " + io.msgscope.control.AgentSession.describe(e));
            return;
        }
        if (backlog != null) {
            try {
                sub.settleConsumed(); // the last read then counts what was received (Kafka: its commit)
            } catch (java.io.IOException | RuntimeException e) {
                // the last read counts what the broker was told before
            }
            backlog.stop();
        }
        if (stopped) {
            return;
        }
        if (h.cpu != null) {
            h.cpu.sample(h.cpu.finalSlot());
            h.sampleNetwork(h.cpu.finalSlot(), true);
        }
        String closed = eof ? subscriber.closeReason() : null;
        if (!warmupReported) {
            warmupListener.failed("connection closed during the warm-up after " + h.warmupReceived + " of "
                    + warmup + " warm-up messages" + (closed != null ? ": " + closed : ""));
            return;
        }
        if (closed != null && !rec.complete()) {
            PhaseListener l = awaitMeasureListener();
            if (l != null) {
                l.failed("the subscription ended after " + rec.received() + " of " + rec.expected()
                        + " measured messages: " + closed);
            }
            return;
        }
        PhaseDone done = PhaseDone.newBuilder().setPhase(Phase.MEASURE).setReceived(rec.received())
                .setDuplicates(rec.duplicates()).setReordered(rec.reordered()).setOutOfRange(rec.outOfRange())
                .setBytes(rec.received() * spec.getSize()).setFirstNs(rec.firstNs()).setLastNs(rec.lastNs())
                .setTimedOut(!rec.complete() && !eof)
                .setSamples(h.cpu == null ? 0 : h.cpu.samples())
                .setSamplingNs(h.cpu == null ? 0 : h.cpu.samplingNs() + h.netSamplingNs)
                .setNetInterface(h.net == null ? "" : h.net.iface())
                .putAllCounters(subscriber.counters())
                .setHotThreadAllocatedBytes(allocatedAtMeasureStart < 0 ? -1
                        : thread.allocatedBytes() - allocatedAtMeasureStart).build();
        PhaseListener l = awaitMeasureListener();
        if (l != null) {
            l.done(done);
        }
    }

    private boolean paused;

    /** In a drain: the first message scheduled before it not yet seen to have arrived (the scan goes on from here). */
    private long drainScan;

    /**
     * In a phase that lasts until drained (issue 31), tells the sender through the coordinator when the backlog has
     * drained: every measured message scheduled before the phase has arrived ({@code drained}), or none of them arrived
     * for the drain timeout since the phase began or the last such arrival with some still missing ({@code quiet}: the
     * rest are lost, as at the run's end). The messages a drain that publishes sends meanwhile count for neither. Once
     * per drain; on the receiving thread between polls.
     */
    private void watchWords(long drainNs) {
        final io.msgscope.core.timeline.Timeline tl = timeline;
        final long start = timelineStart();
        PhaseListener l = measureListener.getNow(null);
        if (start == 0 || l == null) {
            return;
        }
        final long now = System.nanoTime();
        final int k = tl.phaseAt(Math.max(0, now - start));
        if (!tl.phases().get(k).endsOnWord() || wordSeen[k] || tl.wordEnd(k) != null) {
            return;
        }
        if (tl.phases().get(k).untilBacklog()) {
            watchBacklog(k, tl.phases().get(k).backlogTarget(), start + tl.startNs(k), l);
            return;
        }
        final long before = tl.firstMessage(k);
        if (handler.backlogBelow != before) { // the drain's first look
            handler.backlogBelow = before;
            handler.lastBacklogArrivalNs = 0;
            drainScan = 0;
        }
        if (recorder.received() >= before) { // else some are missing for sure: no scan
            drainScan = recorder.firstMissing(drainScan, before);
        }
        final boolean drained = recorder.received() >= before && drainScan >= before;
        final boolean quiet = !drained
                && now - Math.max(handler.lastBacklogArrivalNs, start + tl.startNs(k)) > drainNs;
        if (drained || quiet) {
            final long missing = drained ? 0 : recorder.missing(drainScan, before);
            handler.backlogBelow = 0;
            wordSeen[k] = true;
            wordsLeft--;
            l.phaseEnded(io.msgscope.proto.PhaseEnd.newBuilder().setPhase(k).setEndedBy(drained ? "drained"
                    : "quiet").setMissing(missing).build());
        }
    }

    /**
     * In a phase that lasts until the broker's count of the backlog reached {@code target} (issue 31), tells the sender
     * through the coordinator once a read of the broker's count taken after the phase began says so: the word carries
     * that count. The reads come every {@link BacklogSampler#PERIOD_NS}, so the phase ends up to a read period (plus the
     * control path) after the count reached the target. Once per phase; on the receiving thread between polls.
     */
    private void watchBacklog(int k, long target, long phaseStart, PhaseListener l) {
        final BacklogSampler b = backlog;
        if (b == null || b.latestNs() < phaseStart) {
            return;
        }
        final long depth = b.latestDepth();
        if (depth >= target) {
            wordSeen[k] = true;
            wordsLeft--;
            l.phaseEnded(io.msgscope.proto.PhaseEnd.newBuilder().setPhase(k).setEndedBy("backlog").setMissing(-1)
                    .setBrokerMessages(depth).build());
        }
    }

    /** Where the sender's timeline starts on this clock: its messages' word once they came, else the go's; 0 = not yet. */
    private long timelineStart() {
        final long aligned = alignedStartNs;
        return aligned != Long.MAX_VALUE ? aligned : timelineStartNs;
    }

    /** The sender ended a drain phase (issue 31): the later phases follow the timeline as run. */
    @Override
    public void phaseEnded(io.msgscope.proto.PhaseEnd end) {
        io.msgscope.core.timeline.Timeline tl = timeline;
        if (tl == null || end.getDurationNs() <= 0) {
            return;
        }
        wordEnds.add(io.msgscope.control.RunSpecs.wordEnd(end));
        io.msgscope.core.timeline.Timeline run = tl.asRun(wordEnds);
        if (run.messages() < recorder.expected()) { // a drain that published ended before its cap
            recorder.expect((int) run.messages());
            if (handler.cpu != null) {
                handler.cpu.endAt(run.messages());
            }
        }
        timeline = run;
    }

    /**
     * Pauses or resumes the subscriber as the phase at this instant of the timeline asks (issue 31), on the receiving
     * thread between polls, and returns how long the next poll may wait: until the next phase boundary less
     * {@link #LEAD_NS}, at least 1 ms and at most {@link #POLL_MS}, so each boundary is followed up to 1 ms early. The timeline's clock is the sender's:
     * from the measurement's go (the two go messages leave the coordinator together), then, once messages sent before
     * the first pause arrive, from their send times ({@link #alignedStartNs}; the send time is on the epoch clock,
     * which two processes on one host read alike).
     */
    private long followTimeline(Subscriber sub) throws java.io.IOException {
        final long start = timelineStart();
        if (start == 0) {
            return POLL_MS;
        }
        // switch up to LEAD_NS before the boundary, never after it: a poll (a JetStream fetch) that overran a pause's
        // start would hand over messages sent inside the pause
        final long ahead = Math.max(0, System.nanoTime() - start) + LEAD_NS;
        final io.msgscope.core.timeline.Timeline timeline = this.timeline; // one look: the sender may end a drain
        final boolean want = timeline.consumersPausedAt(ahead);
        if (want != paused) {
            if (want) {
                sub.pause();
            } else {
                sub.resume();
            }
            paused = want;
        }
        int k = timeline.phaseAt(ahead);
        if (k == timeline.phases().size() - 1) {
            return POLL_MS;
        }
        long untilNext = timeline.endNs(k) - ahead;
        return Math.max(1, Math.min(POLL_MS, untilNext / 1_000_000));
    }

    /**
     * The warm-up also ends, short, when the sender has sent all of it and nothing arrived for the drain
     * timeout: a system under test that dropped warm-up messages (Mosquitto drops what overflows a
     * subscriber's queue, even at QoS 1) must not hang the run. The coordinator warns with the count.
     */
    private static boolean warmupDrained(Handler h, long warmupSeenNs, long drainNs) {
        return warmupSeenNs != 0 && System.nanoTime() - Math.max(h.lastArrivalNs, warmupSeenNs) > drainNs;
    }

    private PhaseListener awaitMeasureListener() {
        // the coordinator registers the measure phase before the sender starts, so this is
        // already set unless the run was torn down (close() then completes it with null): a blocking wait, no spin
        try {
            return measureListener.get(5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private void fail(PhaseListener warmupListener, String message) {
        if (warmupListener != null) {
            warmupListener.failed(message);
        } else {
            PhaseListener l = awaitMeasureListener();
            if (l != null) {
                l.failed(message);
            }
        }
    }

    @Override
    public void upload(TraceSink sink) throws Exception {
        sink.series(Series.RECV_NS, recorder.recvNs(), recorder.expected());
        if (backlog != null && backlog.samples() > 0) {
            sink.series(Series.BACKLOG_SAMPLE_NS, backlog.timeNs(), backlog.samples());
            sink.series(Series.BACKLOG_DEPTH, backlog.depth(), backlog.samples());
            sink.series(Series.BACKLOG_HELD_MAX, backlog.heldUncountedMax(), 1);
        }
        CpuSampler cpu = handler.cpu;
        if (cpu != null) {
            sink.series(Series.RECEIVER_SAMPLE_NS, cpu.sampleNs(), cpu.slots());
            sink.series(Series.RECEIVER_THREAD_CPU_NS, cpu.threadCpuNs(), cpu.slots());
            sink.series(Series.RECEIVER_PROCESS_CPU_NS, cpu.processCpuNs(), cpu.slots());
            sink.series(Series.BROKER_SAMPLE_NS, handler.brokerNs, cpu.slots());
            sink.series(Series.BROKER_CPU_NS, handler.brokerCpuNs, cpu.slots());
            if (handler.netSeries != null) {
                sink.series(Series.NET_RX_BYTES, handler.netSeries[NetDevReader.RX_BYTES], cpu.slots());
                sink.series(Series.NET_RX_PACKETS, handler.netSeries[NetDevReader.RX_PACKETS], cpu.slots());
                sink.series(Series.NET_TX_BYTES, handler.netSeries[NetDevReader.TX_BYTES], cpu.slots());
                sink.series(Series.NET_TX_PACKETS, handler.netSeries[NetDevReader.TX_PACKETS], cpu.slots());
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        if (backlog != null) {
            backlog.stop();
        }
        measureListener.complete(null); // wakes a receive loop waiting for a listener that will not come
        if (thread != null) {
            thread.close();
        }
        try {
            if (subscriber != null) {
                subscriber.close();
            }
        } catch (Exception e) {
            // closing anyway
        }
        try {
            if (handler != null && handler.net != null) {
                handler.net.close(); // issue 16: a daemon receiver leaked /proc/net/dev once per run
            }
        } catch (Exception e) {
            // closing anyway
        }
    }
}
