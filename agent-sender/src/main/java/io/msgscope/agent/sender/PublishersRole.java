package io.msgscope.agent.sender;

import io.msgscope.control.AgentRole;
import io.msgscope.control.DriverSpecs;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Seed 002's publishers (scenario mode): P publisher connections in one agent process, each owned by
 * its own thread ("publisher-N") and sending on a rate schedule. Message i of a phase is due at
 * {@code start + i / rate}; the thread waits for that moment (park, then spin the last 50 µs) and
 * stamps the payload in place:
 *
 * <pre>
 * bytes  0-7   actual send time, epoch ns (Q1)
 * bytes  8-15  sequence (negative during the warm-up, so subscribers discard those messages)
 * bytes 16-23  intended send time, epoch ns (the header's probe slot; no probe runs in this mode)
 * </pre>
 *
 * A phase sends exactly {@code round(rate * seconds)} messages per publisher; a publisher that falls
 * behind sends late (the intended time keeps the schedule, so the corrected latency shows it) rather
 * than dropping messages. Padding is filled once per connection (random by default in this mode, R2).
 * A publisher whose send fails (connection lost, refused) counts one error by kind and stops; STOP
 * ends every publisher's phase early (the coordinator ends the run, e.g. when no subscription is left).
 * Counters carry {@code errors_<kind>} and {@code publishers_stopped}.
 */
public final class PublishersRole implements AgentRole {
    private static final long SPIN_NS = 50_000;

    private final Drivers drivers;
    private final Clock clock = Clock.calibrate();
    private RunSpec spec;
    private Driver driver;
    private ScenarioPlan plan;
    private final List<Publisher> publishers = new ArrayList<>();
    private final List<ByteBuffer> buffers = new ArrayList<>();
    private volatile boolean closed;

    private final LongAdder sent = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder warmupSent = new LongAdder();
    private final ErrorTally errors = new ErrorTally();
    private final java.util.concurrent.atomic.AtomicInteger stopped = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean stopping;

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
    public ScenarioReport scenario(ScenarioQuery q) throws Exception {
        ScenarioReport.Builder r = ScenarioReport.newBuilder().setKind(q.getKind());
        switch (q.getKind()) {
            case SETUP -> setup(q.getPlan());
            case RESET -> {
                sent.reset();
                bytesSent.reset();
                // errors are not reset: a fault during the warm-up is still a fault (errors_* cover the whole run)
            }
            case STOP -> stopping = true;
            default -> {
            }
        }
        String first = firstError();
        if (first != null) {
            r.setFirstError(first);
        }
        return r.putAllCounters(counters()).build();
    }

    private void setup(ScenarioPlan p) throws Exception {
        this.plan = p;
        DriverSpec base = DriverSpecs.of(spec);
        for (int i = 0; i < p.getPublisherTopicsCount(); i++) {
            publishers.add(driver.openPublisher(base.withDestination(p.getPublisherTopics(i))));
            ByteBuffer b = driver.allocatePayload(spec.getSize());
            if (spec.getRandomPadding()) {
                byte[] noise = new byte[spec.getSize()];
                new Random(spec.getSeed() + i).nextBytes(noise);
                b.put(0, noise);
            }
            buffers.add(b);
        }
    }

    @Override
    public void start(Phase phase, PhaseListener listener) {
        if (plan == null) {
            listener.failed("phase " + phase + " before the scenario set-up");
            return;
        }
        boolean warmup = phase == Phase.WARMUP;
        double seconds = (warmup ? plan.getWarmupMs() : plan.getDurationMs()) / 1000.0;
        long count = Math.round(plan.getRate() * seconds);
        int n = publishers.size();
        AtomicInteger left = new AtomicInteger(n);
        stopping = false;
        long startMono = System.nanoTime() + 20_000_000L; // all publishers start on the same schedule
        for (int i = 0; i < n; i++) {
            final int idx = i;
            Thread t = new Thread(() -> {
                runSchedule(idx, warmup, count, startMono);
                if (left.decrementAndGet() == 0) {
                    if (!warmup) {
                        for (Publisher pub : publishers) {
                            try {
                                pub.drain(5_000);
                            } catch (Exception e) {
                                errors.add(e);
                            }
                        }
                    }
                    String first = firstError();
                    listener.done(PhaseDone.newBuilder().setPhase(phase).setSent(warmup ? warmupSent.sum() : sent.sum())
                            .setNote(first == null ? "" : first).putAllCounters(counters()).build());
                }
            }, "publisher-" + i);
            t.setDaemon(true);
            t.start();
        }
    }

    /** The hot loop of one publisher thread. */
    private void runSchedule(int idx, boolean warmup, long count, long startMono) {
        final Publisher pub = publishers.get(idx);
        final ByteBuffer buf = buffers.get(idx);
        final int size = spec.getSize();
        final double periodNs = 1e9 / plan.getRate();
        final long epochMinusMono = clock.epochMinusMono();
        final LongAdder counter = warmup ? warmupSent : sent;
        final LongAdder bytes = bytesSent;
        for (long i = 0; i < count && !closed && !stopping; i++) {
            final long intended = startMono + (long) (i * periodNs);
            long now;
            while ((now = System.nanoTime()) < intended) {
                long wait = intended - now;
                if (wait > SPIN_NS) {
                    LockSupport.parkNanos(wait - SPIN_NS);
                } else {
                    Thread.onSpinWait();
                }
            }
            buf.putLong(WireHeader.SEQUENCE_OFFSET, warmup ? -1 - i : i);
            buf.putLong(WireHeader.PROBE_CPU_OFFSET, intended + epochMinusMono);
            buf.putLong(WireHeader.EPOCH_NS_OFFSET, System.nanoTime() + epochMinusMono);
            try {
                pub.send(buf, 0, size);
                counter.increment();
                if (!warmup) {
                    bytes.add(size);
                }
            } catch (Exception e) {
                // the connection is unusable (lost, refused): one error, and this publisher stops, rather
                // than one error per remaining scheduled message
                errors.add(e);
                stopped.incrementAndGet();
                return;
            }
        }
    }

    /** The first error of this agent: its own, else the first a driver saw asynchronously (a refused publish). */
    private String firstError() {
        if (errors.first() != null) {
            return errors.first();
        }
        for (Publisher p : publishers) {
            if (p.firstError() != null) {
                return p.firstError();
            }
        }
        return null;
    }

    private Map<String, Long> counters() {
        Map<String, Long> m = new java.util.TreeMap<>();
        long acked = 0;
        long refused = 0;
        long failed = 0;
        for (Publisher p : publishers) {
            Map<String, Long> c = p.counters();
            acked += c.getOrDefault("messages_acked", 0L);
            long r = c.getOrDefault("publish_refused", 0L);
            refused += r;
            failed += c.getOrDefault("errors", 0L) + c.getOrDefault("publish_errors", 0L) - r;
        }
        m.put("messages_sent", sent.sum());
        m.put("bytes_sent", bytesSent.sum());
        m.put("warmup_sent", warmupSent.sum());
        m.put("messages_acked", acked);
        errors.putInto(m);
        // asynchronous failures the drivers counted (refused publishes with their reason code, missing acks)
        m.merge(Fault.Kind.REFUSED.field(), refused, Long::sum);
        m.merge(Fault.Kind.PUBLISH_FAILED.field(), failed, Long::sum);
        m.put("publisher_errors", errors.total() + refused + failed);
        m.put("publishers", (long) publishers.size());
        m.put("publishers_stopped", (long) stopped.get());
        return m;
    }

    @Override
    public void upload(TraceSink sink) {
        // scenario mode keeps histograms, not traces
    }

    @Override
    public void close() {
        closed = true;
        for (Publisher p : publishers) {
            try {
                p.close();
            } catch (Exception e) {
                // closing anyway
            }
        }
    }
}
