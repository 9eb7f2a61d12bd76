package io.msgscope.agent.sender;

import io.msgscope.control.AgentRole;
import io.msgscope.control.DriverSpecs;
import io.msgscope.control.RunSpecs;
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
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.ScenarioPlan;
import io.msgscope.proto.ScenarioQuery;
import io.msgscope.proto.ScenarioReport;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Seed 002's publishers (scenario mode), event-driven (issue 13): P publisher connections in one
 * agent process, opened by a {@link io.msgscope.core.scenario.ConnectionRamp} at the plan's connect
 * rate on the agent's shared I/O threads, and driven by {@code io_threads} {@link Pacer} threads that
 * hold the connections' next due times: the agent's thread count does not grow with its connections.
 *
 * <p>Publisher {@code g} of the run's P (over all publishers agents) sends message {@code i} of a phase
 * at {@code start + (g / P + i) / rate}: each publisher keeps its own rate and the P schedules are spread
 * evenly over one period, as a fleet of independent clients would be, instead of all sending at the
 * same instant. A phase sends exactly {@code round(rate * seconds)} messages per publisher; the stamps
 * are described in {@link Pacer}. On load phases (the plan's {@code phases}, issue 31) the measurement follows the
 * timeline of the total rate instead, each publisher its share of it (see {@link Pacer#armTimeline}); the warm-up
 * keeps the plan's rate per publisher. STOP ends every publisher's phase early (the coordinator ends the
 * run, e.g. when no subscription is left). Counters carry {@code errors_<kind>},
 * {@code publishers_stopped}, {@code sends_deferred}, {@link #CONFIRMED_SO_FAR} and the connection counters.
 */
public final class PublishersRole implements AgentRole {
    /** The measurement's end waits this long in all for every publisher's acknowledgements (Q9). */
    static final long DRAIN_MS = 5_000;
    /**
     * Measured messages the system has confirmed so far, summed over this agent's publishers
     * ({@link Publisher#confirmedSoFar}); absent when one of them confirms nothing, never 0 for unknown.
     */
    static final String CONFIRMED_SO_FAR = "messages_confirmed_so_far";

    private final Drivers drivers;
    private final Clock clock = Clock.process();
    private RunSpec spec;
    private Driver driver;
    private ScenarioPlan plan;
    private ScenarioConnections<Publisher> connections;
    private volatile Pacer[] pacers;
    /** With faults (issue 32): the buckets sends are counted in, and each pacer's counts; else null, empty. */
    private io.msgscope.core.scenario.BucketCounts.Span span;
    private final List<io.msgscope.core.scenario.BucketCounts> dueBuckets = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Each pacer's publishers' places in the run's schedule (their index over every publishers agent). */
    private long[][] globalIndex;
    private final ErrorTally errors = new ErrorTally();
    /** The phase started last (null before the first): the pacers count its messages. */
    private volatile Phase current;
    private volatile long warmupSent;
    /** The measurement's start the coordinator gave (epoch ns; 0: none), then its start on this clock (monotonic ns). */
    private volatile long startEpochNs;
    private volatile long measuredFromNs;
    /** The word phases ended so far (issue 31), in order. */
    private final List<Timeline.WordEnd> ended = new ArrayList<>();

    public PublishersRole(Drivers drivers) {
        this.drivers = drivers;
    }

    @Override
    public Role role() {
        return Role.PUBLISHERS;
    }

    @Override
    public Ready prepare(RunSpec spec) {
        if (spec.getSize() < WireHeader.SIZE) {
            throw new SpecException("--size", "must be at least " + WireHeader.SIZE + " bytes (the header), got "
                    + spec.getSize());
        }
        this.spec = spec;
        this.driver = DriverSpecs.driverOf(drivers, spec);
        return Ready.newBuilder().setRole(Role.PUBLISHERS).build();
    }

    @Override
    public ScenarioReport scenario(ScenarioQuery q) {
        ScenarioReport.Builder r = ScenarioReport.newBuilder().setKind(q.getKind());
        switch (q.getKind()) {
            case SETUP -> setup(q.getPlan());
            case RESET -> {
                // nothing to discard here: the measurement's pacers count from 0, and errors are not reset (a
                // fault during the warm-up is still a fault: errors_* cover the whole run)
            }
            case STOP -> {
                if (pacers != null) {
                    for (Pacer p : pacers) {
                        p.stop();
                    }
                }
            }
            case FREEZE -> {
                return r.setFrozenAtNs(freeze()).build(); // nothing else: the coordinator waits on it
            }
            case PHASE_END -> {
                phaseEnded(RunSpecs.wordEnd(q.getPhaseEnd()));
                return r.build();
            }
            case FINAL -> {
                if (span != null) { // faults (issue 32): the measurement's sends by 100 ms of intended time
                    r.setBucketFirst(span.first());
                    for (long n : io.msgscope.core.scenario.BucketCounts.sum(dueBuckets)) {
                        r.addDueByBucket(n);
                    }
                    r.setBucketOutside(io.msgscope.core.scenario.BucketCounts.outside(dueBuckets));
                }
            }
            default -> {
            }
        }
        if (connections != null) {
            connections.report(r);
        }
        String first = firstError();
        if (first != null) {
            r.setFirstError(first);
        }
        return r.putAllCounters(counters()).build();
    }

    @Override
    public void startAt(long epochNs) {
        startEpochNs = epochNs;
    }

    /**
     * FREEZE (issue 31): every pacer sends no message due from now on; the answer, an offset from the timeline's start,
     * lies after every message any of them sent (see {@link Pacer#freeze}).
     */
    private synchronized long freeze() {
        if (pacers == null || measuredFromNs == 0) {
            throw new IllegalStateException("a freeze before the measurement started");
        }
        long now = System.nanoTime();
        long at = now;
        for (Pacer p : pacers) {
            long claimed = p.freeze(now);
            if (claimed != Long.MIN_VALUE) {
                at = Math.max(at, claimed + 1);
            }
        }
        return at - measuredFromNs;
    }

    /** PHASE_END (issue 31): the word phase frozen last ended; every pacer follows the timeline as run from now on. */
    private synchronized void phaseEnded(Timeline.WordEnd e) {
        ended.add(e);
        Timeline asRun = RunSpecs.timeline(plan.getPhasesList()).asRun(ended);
        for (Pacer p : pacers) {
            p.endPhase(asRun);
        }
    }

    private synchronized void setup(ScenarioPlan p) {
        if (connections != null) {
            throw new IllegalStateException("second scenario set-up on one run");
        }
        ScenarioSupport sc = driver.scenarios();
        if (sc == null) {
            throw new SpecException("--driver", "the " + driver.name() + " driver has no topics: it cannot run scenarios");
        }
        this.plan = p;
        if (p.getBucketMs() > 0) { // faults (issue 32): sends counted by 100 ms of intended time
            span = ScenarioConnections.buckets(p, clock);
        }
        DriverSpec base = DriverSpecs.of(spec);
        int n = p.getPublisherTopicsCount();
        connections = new ScenarioConnections<>(driver, base.options(), p, n, "--publishers",
                (i, ctx) -> driver.openPublisher(sc.publisher(base, p.getPublisherTopics(i)), ctx));
        connections.start();
    }

    @Override
    public synchronized void start(Phase phase, PhaseListener listener) {
        if (plan == null) {
            listener.failed("phase " + phase + " before the scenario set-up");
            return;
        }
        if (!connections.ramp().done()) {
            listener.failed("phase " + phase + " before every publisher connection was opened");
            return;
        }
        if (pacers == null) {
            pacers = makePacers();
            for (int j = 0; span != null && j < pacers.length; j++) {
                dueBuckets.add(new io.msgscope.core.scenario.BucketCounts(span));
            }
        }
        boolean warmup = phase == Phase.WARMUP;
        double seconds = (warmup ? plan.getWarmupMs() : plan.getDurationMs()) / 1000.0;
        long count = Math.round(plan.getRate() * seconds);
        current = phase;
        long startMono = System.nanoTime() + 20_000_000L; // every pacer on one schedule (the coordinator waits as long: ScenarioLinks.PUBLISHERS_LEAD_MS)
        if (!warmup && startEpochNs != 0) { // every agent on one instant (issue 31): the coordinator's, even if past
            startMono = startEpochNs - clock.epochMinusMono();
        }
        startEpochNs = 0;
        if (!warmup) {
            measuredFromNs = startMono;
        }
        io.msgscope.core.timeline.Timeline timeline = warmup ? null
                : io.msgscope.control.RunSpecs.timeline(plan.getPhasesList());
        int total = Math.max(plan.getPublisherTopicsCount(), plan.getRoleTotal());
        for (int j = 0; j < pacers.length; j++) {
            pacers[j].countDue(warmup || span == null ? null : dueBuckets.get(j));
            if (timeline == null) {
                pacers[j].arm(warmup, count, plan.getRate(), startMono);
            } else {
                pacers[j].armTimeline(timeline, globalIndex[j], total, startMono);
            }
        }
        AtomicInteger left = new AtomicInteger(pacers.length);
        long[] drainDeadline = {0};
        for (int k = 0; k < pacers.length; k++) {
            final Pacer pc = pacers[k];
            Thread t = new Thread(() -> {
                pc.run();
                if (!warmup) {
                    drain(pc);
                }
                if (left.decrementAndGet() == 0) {
                    long sent = sent();
                    if (warmup) {
                        warmupSent = sent;
                    }
                    String first = firstError();
                    listener.done(PhaseDone.newBuilder().setPhase(phase).setSent(sent)
                            .setNote(first == null ? "" : first).putAllCounters(counters()).build());
                }
            }, "pacer-" + k);
            t.setDaemon(true);
            t.start();
        }
    }

    /** Spreads the opened publishers over the pacers, each publisher with its place in the run's schedule. */
    private Pacer[] makePacers() {
        int n = plan.getPublisherTopicsCount();
        int k = Math.max(1, Math.min(connections.context().ioThreads(), n));
        long periodNs = Math.max(1, Math.round(1e9 / plan.getRate()));
        int total = Math.max(n, plan.getRoleTotal());
        List<List<Integer>> byPacer = new ArrayList<>();
        for (int j = 0; j < k; j++) {
            byPacer.add(new ArrayList<>());
        }
        for (int i = 0; i < n; i++) {
            byPacer.get(i % k).add(i);
        }
        Pacer[] out = new Pacer[k];
        globalIndex = new long[k][];
        for (int j = 0; j < k; j++) {
            List<Integer> idx = byPacer.get(j);
            Publisher[] pubs = new Publisher[idx.size()];
            long[] offsets = new long[idx.size()];
            globalIndex[j] = new long[idx.size()];
            for (int s = 0; s < pubs.length; s++) {
                int i = idx.get(s);
                pubs[s] = connections.ramp().get(i);
                long g = plan.getFirstIndex() + i;
                globalIndex[j][s] = g;
                offsets[s] = (long) ((double) g * periodNs / total);
            }
            ByteBuffer b = driver.allocatePayload(spec.getSize());
            if (spec.getRandomPadding()) {
                byte[] noise = new byte[spec.getSize()];
                new Random(spec.getSeed() + j).nextBytes(noise);
                b.put(0, noise);
            }
            out[j] = new Pacer(pubs, offsets, globalIndex[j], b, spec.getSize(), clock.epochMinusMono(), errors);
        }
        return out;
    }

    /**
     * After the measurement: waits for this pacer's publishers' acknowledgements, within one shared deadline. Each is
     * first asked to begin ({@link Publisher#beginDrain}): the round trips of thousands of connections then overlap
     * instead of adding up (50,000 NATS connections on a busy box ran out of the deadline one PING after another).
     */
    private void drain(Pacer pc) {
        long deadline = System.nanoTime() + DRAIN_MS * 1_000_000L;
        for (Publisher p : pc.publishers()) {
            if (p == null) {
                continue;
            }
            try {
                p.beginDrain();
            } catch (Exception e) {
                errors.add(e);
            }
        }
        for (Publisher p : pc.publishers()) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (p == null) {
                continue;
            }
            try {
                p.drain(Math.max(1, left));
            } catch (Exception e) {
                errors.add(e);
            }
        }
    }

    private long sent() {
        long s = 0;
        if (pacers != null) {
            for (Pacer p : pacers) {
                s += p.sent();
            }
        }
        return s;
    }

    /** The first error of this agent: its own, else the first a driver saw asynchronously (a refused publish). */
    private String firstError() {
        if (errors.first() != null) {
            return errors.first();
        }
        for (Publisher p : publishers()) {
            if (p.firstError() != null) {
                return p.firstError();
            }
        }
        return null;
    }

    private List<Publisher> publishers() {
        List<Publisher> l = new ArrayList<>();
        if (connections != null) {
            for (int i = 0; i < connections.ramp().target(); i++) {
                Publisher p = connections.ramp().get(i);
                if (p != null) {
                    l.add(p);
                }
            }
        }
        return l;
    }

    private Map<String, Long> counters() {
        Map<String, Long> m = new TreeMap<>();
        long acked = 0;
        long refused = 0;
        long failed = 0;
        List<Publisher> pubs = publishers();
        for (Publisher p : pubs) {
            Map<String, Long> c = p.counters();
            acked += c.getOrDefault("messages_acked", 0L);
            long r = c.getOrDefault("publish_refused", 0L);
            refused += r;
            failed += c.getOrDefault("errors", 0L) + c.getOrDefault("publish_errors", 0L) - r;
            io.msgscope.core.driver.Reconnects.addCounts(m, c, io.msgscope.core.driver.Reconnects.PUBLISHER_RECONNECTS,
                    io.msgscope.core.driver.Reconnects.REPUBLISHED); // with --opt reconnect=true (issue 32)
        }
        Phase ph = current;
        long sent = ph == Phase.MEASURE ? sent() : 0;
        long deferred = 0;
        long stopped = 0;
        if (pacers != null) {
            for (Pacer p : pacers) {
                deferred += p.deferred();
                stopped += p.stopped();
            }
        }
        m.put("messages_sent", sent);
        m.put("bytes_sent", sent * spec.getSize());
        m.put("warmup_sent", ph == Phase.WARMUP ? sent() : warmupSent);
        m.put("messages_acked", acked);
        Long confirmed = confirmedSoFar(pubs);
        if (confirmed != null) {
            m.put(CONFIRMED_SO_FAR, confirmed); // the broker's floor of a backlog (issue 31 item 3); unknown: absent
        }
        errors.putInto(m);
        // asynchronous failures the drivers counted (refused publishes with their reason code, missing acks)
        m.merge(Fault.Kind.REFUSED.field(), refused, Long::sum);
        m.merge(Fault.Kind.PUBLISH_FAILED.field(), failed, Long::sum);
        m.put("publisher_errors", errors.total() + refused + failed);
        m.put("publishers", (long) pubs.size());
        m.put("publishers_stopped", stopped);
        m.put("sends_deferred", deferred);
        if (connections != null) {
            connections.putCounters(m);
        }
        return m;
    }

    /** {@link Publisher#confirmedSoFar} summed over {@code pubs}; null when one confirms nothing, or there are none. */
    static Long confirmedSoFar(List<Publisher> pubs) {
        long sum = 0;
        for (Publisher p : pubs) {
            long c = p.confirmedSoFar();
            if (c < 0) {
                return null;
            }
            sum += c;
        }
        return pubs.isEmpty() ? null : sum;
    }

    @Override
    public void upload(TraceSink sink) {
        // scenario mode keeps histograms, not traces
    }

    @Override
    public void close() {
        if (pacers != null) {
            for (Pacer p : pacers) {
                p.stop();
            }
        }
        if (connections != null) {
            connections.close();
        }
    }
}
