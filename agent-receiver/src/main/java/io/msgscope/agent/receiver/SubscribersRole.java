package io.msgscope.agent.receiver;

import io.msgscope.control.AgentRole;
import io.msgscope.control.DriverSpecs;
import io.msgscope.control.ScenarioConnections;
import io.msgscope.control.TraceSink;
import io.msgscope.core.Clock;
import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.ErrorTally;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.ScenarioPlan;
import io.msgscope.proto.ScenarioQuery;
import io.msgscope.proto.ScenarioReport;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Seed 002's subscribers (scenario mode), event-driven (issue 13): S subscriber connections in one
 * agent process, opened by a {@link io.msgscope.core.scenario.ConnectionRamp} on the agent's shared I/O
 * threads, each {@link Subscriber#start started} in push mode with the one {@link Recording} handler:
 * the drivers record inside their I/O callbacks (Q2) into one single-writer recorder per I/O thread
 * (Q3). No thread waits per subscription and nothing wakes up while no message arrives. The
 * coordinator's PROGRESS request swaps every recorder's interval histograms (about once a second),
 * merges them with {@code add()}, and keeps the running total; a subscription that ends is counted as
 * lost with its reason. A driver that can only be polled gets a polling thread per subscription (none
 * of the scenario drivers: the fallback keeps a driver without push delivery usable, not scalable).
 */
public final class SubscribersRole implements AgentRole {
    private final Drivers drivers;
    private final Clock clock = Clock.process();
    private RunSpec spec;
    private Driver driver;
    private Recording recording;
    private ScenarioConnections<Subscriber> connections;
    private volatile boolean closed;

    private final ErrorTally errors = new ErrorTally();
    private final AtomicInteger lost = new AtomicInteger();
    private final List<Thread> pollers = new ArrayList<>();

    private Histogram total = newHistogram();
    private Histogram totalIntended = newHistogram();
    /** Counts at the last RESET: the warm-up's, subtracted from what the slots count since the start. */
    private long[] baseline = new long[4];
    private long lastSwapNs;
    /** On load phases that pause the consumers (issue 31 item 3): their pauses and the broker's reads; else null. */
    private ScenarioBacklog backlog;
    /** On phases that end on a word (issue 31): the timeline asked, the ends so far, the start every agent shares. */
    private io.msgscope.core.timeline.Timeline asked;
    private final List<io.msgscope.core.timeline.Timeline.WordEnd> ended = new ArrayList<>();
    private volatile long startEpochNs;
    /** With faults (issue 32): each subscription tells its deliveries apart by publisher and sequence. */
    private volatile boolean tracking;

    public SubscribersRole(Drivers drivers) {
        this.drivers = drivers;
    }

    static Histogram newHistogram() {
        return io.msgscope.core.LatencyRange.histogram();
    }

    @Override
    public Role role() {
        return Role.SUBSCRIBERS;
    }

    @Override
    public Ready prepare(RunSpec spec) {
        if (spec.getSize() < WireHeader.SIZE) {
            throw new SpecException("--size", "must be at least " + WireHeader.SIZE + " bytes (the header), got "
                    + spec.getSize());
        }
        this.spec = spec;
        this.driver = DriverSpecs.driverOf(drivers, spec);
        this.recording = new Recording(clock.epochMinusMono());
        return Ready.newBuilder().setRole(Role.SUBSCRIBERS).build();
    }

    @Override
    public synchronized ScenarioReport scenario(ScenarioQuery q) throws Exception {
        ScenarioReport.Builder r = ScenarioReport.newBuilder().setKind(q.getKind());
        switch (q.getKind()) {
            case SETUP -> setup(q.getPlan());
            case RESET -> {
                swap(null, null);
                total = newHistogram();
                totalIntended = newHistogram();
                long[] c = recording.counts();
                baseline = new long[] {c[0], 0, c[2], c[3]}; // warm-up deliveries keep counting across the reset
                if (backlog != null) {
                    backlog.openProbes(driver, DriverSpecs.of(spec)); // ready before the measurement's go
                }
                // errors are not reset: a fault during the warm-up is still a fault (errors_* cover the whole run)
            }
            case PROGRESS -> {
                Histogram a = newHistogram();
                Histogram i = newHistogram();
                long interval = swap(a, i);
                r.setIntervalNs(interval).setMessages(a.getTotalCount())
                        .setLatencyHistogram(ScenarioConnections.encode(a))
                        .setIntendedHistogram(ScenarioConnections.encode(i)); // per-phase latency (issue 31)
            }
            case FINAL -> {
                swap(null, null);
                if (backlog != null) {
                    backlog.finish(r); // after the in-flight wait: the last read follows the last arrival
                }
                r.setMessages(total.getTotalCount()).setLatencyHistogram(ScenarioConnections.encode(total))
                        .setIntendedHistogram(ScenarioConnections.encode(totalIntended));
                if (recording.span() != null) { // faults (issue 32): deliveries by 100 ms of arrival and of intent
                    long[][] b = recording.byBucket();
                    r.setBucketFirst(recording.span().first());
                    Arrays.stream(b[0]).forEach(r::addArrivedByBucket);
                    Arrays.stream(b[1]).forEach(r::addDueByBucket);
                    Arrays.stream(b[2]).forEach(r::addDuplicatedByBucket);
                    Arrays.stream(b[3]).forEach(r::addLateByBucket);
                    r.setSequencesKnown(tracking && recording.untold() == 0);
                    r.setBucketOutside(recording.outsideBuckets());
                }
            }
            case STOP -> {
                // nothing to stop: subscribers keep receiving until the run closes them
            }
            case WATCH -> { // issue 31: light, ten times a second during a word phase; nothing swapped
                for (long n : recording.byPhase()) {
                    r.addPhaseReceived(n);
                }
                long[] latest = backlog == null ? null : backlog.latest();
                if (latest != null) {
                    r.setBacklogLatestEpochNs(latest[0]).setBacklogLatestDepth(latest[1]);
                }
                return r.build();
            }
            case PHASE_END -> {
                ended.add(io.msgscope.control.RunSpecs.wordEnd(q.getPhaseEnd()));
                io.msgscope.core.timeline.Timeline asRun = asked.asRun(ended);
                recording.classify(asRun, startEpochNs);
                backlog.ended(asRun);
                return r.build();
            }
            default -> throw new IllegalArgumentException("unknown scenario request " + q.getKind());
        }
        if (connections != null) {
            connections.report(r);
            Subscriber first = connections.ramp().get(0);
            if (first != null && connections.ramp().done()) {
                r.putAllInfo(first.serverInfo());
            }
        }
        String first = firstError();
        if (first != null) {
            r.setFirstError(first);
        }
        return r.putAllCounters(counters()).build();
    }

    /** Swaps every recorder's interval histograms into the totals (and into a, i when given). */
    private long swap(Histogram a, Histogram i) {
        recording.swap(total, totalIntended, a, i);
        long now = System.nanoTime();
        long interval = lastSwapNs == 0 ? 0 : now - lastSwapNs;
        lastSwapNs = now;
        return interval;
    }

    private void setup(ScenarioPlan p) {
        if (connections != null) {
            throw new IllegalStateException("second scenario set-up on one run");
        }
        ScenarioSupport sc = driver.scenarios();
        if (sc == null) {
            throw new SpecException("--driver", "the " + driver.name() + " driver has no topics: it cannot run scenarios");
        }
        DriverSpec base = DriverSpecs.of(spec);
        connections = new ScenarioConnections<>(driver, base.options(), p, p.getSubscriberTopicsCount(), "--subscribers",
                (i, ctx) -> open(sc.subscriber(base, p.getSubscriberTopics(i), p.getGroup()), ctx));
        lastSwapNs = System.nanoTime();
        if (p.getBucketMs() > 0) { // before the first delivery: every slot counts by bucket from its first message
            recording.buckets(ScenarioConnections.buckets(p, clock));
            // each subscription tells its deliveries apart by publisher and sequence, but a round-robin group's
            // members share a publisher's sequence between them (each sees gaps the others filled)
            tracking = io.msgscope.core.scenario.Scenario.parse(p.getScenario())
                    != io.msgscope.core.scenario.Scenario.ROUND_ROBIN;
        }
        io.msgscope.core.timeline.Timeline t = io.msgscope.control.RunSpecs.timeline(p.getPhasesList());
        if (t != null && t.pausesConsumers()) {
            String why = driver.whyConsumersCannotPause(base.options());
            if (why != null) {
                throw new SpecException("--phases", "the " + driver.name() + " driver cannot pause its subscribers: "
                        + why);
            }
            backlog = new ScenarioBacklog(t, this::subscribers, clock.epochMinusMono());
            if (!t.wordPhases().isEmpty()) {
                asked = t;
                recording.phaseCount(t.phases().size()); // counted by phase once the measurement's start is known
            }
        }
        connections.start();
    }

    /** Opens one subscription and starts its push delivery into the recording (a polling thread if it has none). */
    private Subscriber open(DriverSpec ds, io.msgscope.core.driver.ClientContext ctx) throws Exception {
        Subscriber sub = driver.openSubscriber(ds, ctx);
        try {
            sub.start(tracking ? recording.tracked() : recording, this::ended);
        } catch (UnsupportedOperationException pullOnly) {
            Thread t = new Thread(() -> pollLoop(sub), "subscriber-poll");
            t.setDaemon(true);
            synchronized (pollers) {
                pollers.add(t);
            }
            t.start();
        }
        return sub;
    }

    /** A subscription ended other than by close: counted as lost, with its reason. */
    private void ended(String reason) {
        if (!closed) {
            // the error first, then the count: a report that reads the count first never shows a lost
            // subscription whose connection-lost error is not yet counted
            errors.add(Fault.Kind.CONNECTION_LOST, reason == null ? "the broker closed a subscription" : reason);
            lost.incrementAndGet();
        }
    }

    /** The fallback for drivers that can only be polled. */
    private void pollLoop(Subscriber sub) {
        try {
            while (!closed) {
                if (sub.poll(recording, 100) < 0) {
                    ended(sub.closeReason());
                    return;
                }
            }
        } catch (Exception e) {
            ended("a subscription failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private List<Subscriber> subscribers() {
        List<Subscriber> l = new ArrayList<>();
        if (connections != null) {
            for (int i = 0; i < connections.ramp().target(); i++) {
                Subscriber s = connections.ramp().get(i);
                if (s != null) {
                    l.add(s);
                }
            }
        }
        return l;
    }

    private String firstError() {
        if (errors.first() != null) {
            return errors.first();
        }
        for (Subscriber s : subscribers()) {
            if (s.counters().getOrDefault("short_payloads", 0L) > 0) {
                return "a subscriber received payloads shorter than the " + WireHeader.SIZE + "-byte header";
            }
        }
        return null;
    }

    private Map<String, Long> counters() {
        long lostNow = lost.get(); // before the errors (see ended)
        Map<String, Long> m = new TreeMap<>();
        long shorts = 0;
        long slow = 0;
        long other = 0;
        List<Subscriber> subs = subscribers();
        for (Subscriber s : subs) {
            Map<String, Long> c = s.counters();
            long sh = c.getOrDefault("short_payloads", 0L);
            long sl = c.getOrDefault("slow_consumer_events", 0L);
            shorts += sh;
            slow += sl;
            other += c.getOrDefault("errors", 0L) - sh - sl;
            io.msgscope.core.driver.Reconnects.addCounts(m, c, io.msgscope.core.driver.Reconnects.SUBSCRIBER_RECONNECTS);
        }
        long[] c = recording == null ? new long[4] : recording.counts();
        long received = c[0] - baseline[0];
        m.put("messages_received", received);
        m.put("bytes_received", received * spec.getSize());
        m.put("warmup_received", c[1]);
        m.put("latency_clamped", c[2] - baseline[2]);
        m.put("latency_over_range", c[3] - baseline[3]);
        errors.putInto(m);
        m.merge(Fault.Kind.SHORT_PAYLOAD.field(), shorts, Long::sum);
        m.merge(Fault.Kind.SLOW_CONSUMER.field(), slow, Long::sum);
        m.merge(Fault.Kind.OTHER.field(), other, Long::sum);
        m.put("subscriber_errors", errors.total() + shorts + slow + other);
        m.put("subscriptions", (long) subs.size());
        m.put("subscriptions_lost", lostNow);
        m.put("io_threads_recording", recording == null ? 0L : recording.threads());
        if (connections != null) {
            connections.putCounters(m);
        }
        return m;
    }

    @Override
    public void startAt(long epochNs) {
        startEpochNs = epochNs;
    }

    @Override
    public void start(Phase phase, PhaseListener listener) {
        if (phase == Phase.MEASURE && backlog != null) {
            long from = startEpochNs;
            if (asked != null && from != 0) { // word phases (issue 31): deliveries by phase, every agent on one start
                recording.classify(asked, from);
            }
            // the coordinator's go on backlog phases (issue 31 item 3): no answer is awaited
            backlog.start(from == 0 ? 0 : from - clock.epochMinusMono());
            return;
        }
        listener.done(PhaseDone.newBuilder().setPhase(phase).setReceived(recording.counts()[0] - baseline[0]).build());
    }

    @Override
    public void upload(TraceSink sink) {
        // scenario mode keeps histograms, not traces
    }

    @Override
    public void close() {
        closed = true;
        if (backlog != null) {
            backlog.close();
        }
        if (connections != null) {
            connections.close();
        }
        synchronized (pollers) {
            for (Thread t : pollers) {
                t.interrupt();
            }
        }
    }
}
