package io.msgscope.agent.receiver;

import io.msgscope.core.driver.BacklogProbe;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.ScenarioReport;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A scenario's backlog phases on the subscribers agent (issue 31 item 3): from the measurement's go it follows the
 * timeline on a thread of its own and pauses every subscription at a {@code /paused} phase's start and resumes them all
 * at its end (each driver's {@link Subscriber#pause} only stops handing deliveries over and leaves the messages with
 * the broker, so it may be called from this thread), and it reads the broker's backlog through the driver's
 * {@link BacklogProbe} — the sum over the subscriptions' distinct destinations — with a {@link BacklogSampler}, 10
 * times a second, until the final report. The timeline starts as the publishers' does:
 * {@link #PUBLISHERS_LEAD_NS} after the go, which leaves the coordinator beside theirs.
 */
final class ScenarioBacklog {
    /** The publishers start their schedule this long after their go (agent-sender's PublishersRole). */
    static final long PUBLISHERS_LEAD_NS = 20_000_000L;
    /** Pause and resume this long (at most) before the timeline's boundary, as the trace receiver does. */
    private static final long LEAD_NS = 1_000_000;
    /** More destinations than this are not probed: the reads would not keep up 10 a second. */
    static final int MAX_PROBED = 64;
    /** After the last arrival, read again (100 ms apart) while the broker still counts acknowledgements on their way. */
    static final int SETTLE_READS = 10;

    private volatile Timeline timeline;
    private final Supplier<List<Subscriber>> subscribers;
    private volatile boolean stopped;
    private Thread follower;
    private BacklogSampler sampler;
    private String note = "";
    /** What the paused subscriptions may hold uncounted by the broker, summed ({@link BacklogProbe#heldUncountedMax}). */
    private long held;
    private final long epochMinusMono;

    ScenarioBacklog(Timeline timeline, Supplier<List<Subscriber>> subscribers, long epochMinusMono) {
        this.timeline = timeline;
        this.subscribers = subscribers;
        this.epochMinusMono = epochMinusMono;
    }

    /** Opens the broker's probes (before the measurement, so that the go finds them ready). */
    void openProbes(Driver driver, DriverSpec base) {
        if (sampler != null || !note.isEmpty()) {
            return; // opened (or found unreadable) at an earlier reset
        }
        Set<String> destinations = new LinkedHashSet<>();
        for (Subscriber s : subscribers.get()) {
            destinations.add(s.destination());
        }
        if (destinations.size() > MAX_PROBED) {
            note = destinations.size() + " destinations: more than " + MAX_PROBED + " are not read 10 times a second";
            return;
        }
        Map<String, BacklogProbe> probes = new LinkedHashMap<>();
        try {
            for (String d : destinations) {
                BacklogProbe p = driver.openBacklogProbe(base, d);
                if (p == null) {
                    note = "the " + driver.name() + " driver cannot read the broker's backlog";
                    closeAll(List.copyOf(probes.values()));
                    return;
                }
                probes.put(d, p);
            }
        } catch (IOException | RuntimeException e) {
            note = "the broker's backlog could not be read: " + e.getMessage();
            closeAll(List.copyOf(probes.values()));
            return;
        }
        for (Subscriber s : subscribers.get()) { // each paused subscription holds up to its own bound
            long h = probes.get(s.destination()).heldUncountedMax();
            held = held < 0 || h < 0 ? -1 : held + h;
        }
        sampler = new BacklogSampler(new Sum(List.copyOf(probes.values())), timeline.durationNs() + 60_000_000_000L);
    }

    /**
     * The measurement's go: follows the timeline from {@code startMonoNs} on (this agent's monotonic ns; 0: from
     * {@link #PUBLISHERS_LEAD_NS} after now, as the publishers start on their own), and starts the reads.
     */
    void start(long startMonoNs) {
        final long start = startMonoNs != 0 ? startMonoNs : System.nanoTime() + PUBLISHERS_LEAD_NS;
        if (sampler != null) {
            sampler.start();
        }
        Thread t = new Thread(() -> follow(start), "msgscope-scenario-pauses");
        t.setDaemon(true);
        follower = t;
        t.start();
    }

    /**
     * A phase that ended on a word (issue 31): the pauses and resumes follow {@code asRun}, the timeline as run, from now
     * on (a backlog phase that ended resumes the subscriptions at once).
     */
    void ended(Timeline asRun) {
        timeline = asRun;
        Thread t = follower;
        if (t != null) {
            java.util.concurrent.locks.LockSupport.unpark(t);
        }
    }

    /** The broker's latest read: its stamp (epoch ns; 0 before the first) and count; null when the count is not read. */
    long[] latest() {
        BacklogSampler b = sampler;
        if (b == null) {
            return null;
        }
        long depth = b.latestDepth();
        long at = b.latestNs();
        return at == Long.MIN_VALUE || depth < 0 ? new long[] {0, -1} : new long[] {at + epochMinusMono, depth};
    }

    private void follow(long start) {
        boolean paused = false;
        while (!stopped) {
            Timeline timeline = this.timeline;
            long ahead = Math.max(0, System.nanoTime() - start) + LEAD_NS;
            boolean want = timeline.consumersPausedAt(ahead);
            if (want != paused) {
                for (Subscriber s : subscribers.get()) {
                    try {
                        if (want) {
                            s.pause();
                        } else {
                            s.resume();
                        }
                    } catch (IOException | RuntimeException e) {
                        note = "a subscription could not " + (want ? "pause" : "resume") + ": " + e.getMessage();
                    }
                }
                paused = want;
            }
            int k = timeline.phaseAt(ahead);
            if (k == timeline.phases().size() - 1 && !paused) {
                return; // the last phase consumes (Timeline's rule): nothing left to switch
            }
            long untilNext = k == timeline.phases().size() - 1 ? 50_000_000L : timeline.endNs(k) - ahead;
            java.util.concurrent.locks.LockSupport.parkNanos(Math.max(100_000L, Math.min(50_000_000L, untilNext)));
        }
    }

    /**
     * Ends the following and the reads, with one last read, and then resumes every subscription (so nothing stays
     * held); puts the reads into the final report. Once only. The last read comes before that resume: it is the
     * broker's count as the in-flight wait left it, so a subscription still paused by mistake shows as messages the
     * broker still holds (the coordinator fails such a run), not as a queue emptied in the last second.
     */
    void finish(ScenarioReport.Builder r) {
        if (!stopped) {
            stopped = true;
            Thread t = follower;
            if (t != null) {
                t.interrupt();
                try {
                    t.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (sampler != null) {
                sampler.stop(SETTLE_READS);
                if (sampler.failure() != null) {
                    note = "the broker's backlog reads stopped: " + sampler.failure();
                }
            }
            if (t != null) {
                for (Subscriber s : subscribers.get()) {
                    try {
                        s.resume();
                    } catch (IOException | RuntimeException e) {
                        // closing anyway
                    }
                }
            }
        }
        if (sampler != null) {
            for (int k = 0; k < sampler.samples(); k++) {
                r.addBacklogEpochNs(sampler.timeNs()[k] + epochMinusMono).addBacklogDepth(sampler.depth()[k]);
            }
            r.setBacklogHeldMax(held);
        }
        r.setBacklogNote(note);
    }

    /** Closes what is still open, without a report (the run is torn down). */
    void close() {
        stopped = true;
        if (sampler != null) {
            sampler.stop();
        }
    }

    private static void closeAll(List<BacklogProbe> probes) {
        for (BacklogProbe p : probes) {
            try {
                p.close();
            } catch (Exception e) {
                // closing anyway
            }
        }
    }

    /** One read: every destination's count, one after the other, summed. */
    private record Sum(List<BacklogProbe> probes) implements BacklogProbe {
        @Override
        public long depth() throws IOException {
            long d = 0;
            for (BacklogProbe p : probes) {
                d += p.depth();
            }
            return d;
        }

        @Override
        public String source() {
            return probes.isEmpty() ? "" : probes.get(0).source() + " (summed over " + probes.size() + ")";
        }

        @Override
        public void close() {
            closeAll(probes);
        }
    }
}
