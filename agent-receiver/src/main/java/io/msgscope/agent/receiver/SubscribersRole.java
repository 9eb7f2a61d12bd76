package io.msgscope.agent.receiver;

import com.google.protobuf.ByteString;
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
import io.msgscope.core.driver.MessageHandler;
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
import org.HdrHistogram.Recorder;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Seed 002's subscribers (scenario mode): S subscriber connections in one agent process. Each
 * connection's delivery callback takes the receive time first (Q2), skips warm-up messages
 * (negative sequence), and records two latencies into that connection's own HdrHistogram
 * {@link Recorder}s (1 µs-10 s, 3 significant figures, values in ns; Q3): from the actual send time
 * (bytes 0-7) and from the intended send time (bytes 16-23). Negative latencies (clock error between
 * the two agent processes' epoch offsets) are recorded as 0 and counted as {@code latency_clamped}.
 * No lock on the hot path: the coordinator's PROGRESS request swaps every recorder's interval
 * histogram (about once a second), merges them with {@code add()}, and keeps the running total.
 */
public final class SubscribersRole implements AgentRole {
    static final long LOWEST_NS = 1_000;
    static final long HIGHEST_NS = 10_000_000_000L;
    static final int DIGITS = 3;

    private final Drivers drivers;
    private final Clock clock = Clock.calibrate();
    private RunSpec spec;
    private Driver driver;
    private final List<Subscriber> subscribers = new ArrayList<>();
    private final List<Conn> conns = new ArrayList<>();
    private volatile boolean closed;

    private final LongAdder received = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder warmupReceived = new LongAdder();
    private final LongAdder clamped = new LongAdder();
    private final LongAdder overRange = new LongAdder();
    private final ErrorTally errors = new ErrorTally();
    private final java.util.concurrent.atomic.AtomicInteger lost = new java.util.concurrent.atomic.AtomicInteger();

    private Histogram total = newHistogram();
    private Histogram totalIntended = newHistogram();
    private long lastSwapNs;

    /** One subscriber connection's handler and recorders. */
    private final class Conn implements MessageHandler {
        final Recorder actual = new Recorder(LOWEST_NS, HIGHEST_NS, DIGITS);
        final Recorder intended = new Recorder(LOWEST_NS, HIGHEST_NS, DIGITS);
        final int size = spec.getSize();
        final long epochMinusMono = clock.epochMinusMono();
        Histogram recycleActual;
        Histogram recycleIntended;

        @Override
        public void onMessage(ByteBuffer buf, int offset) {
            final long now = System.nanoTime() + epochMinusMono; // Q2: first thing
            if (buf.getLong(offset + WireHeader.SEQUENCE_OFFSET) < 0) {
                warmupReceived.increment();
                return;
            }
            record(actual, now - buf.getLong(offset + WireHeader.EPOCH_NS_OFFSET));
            record(intended, now - buf.getLong(offset + WireHeader.PROBE_CPU_OFFSET));
            received.increment();
            bytesReceived.add(size);
        }

        private void record(Recorder r, long latency) {
            if (latency < 0) {
                clamped.increment();
                latency = 0;
            } else if (latency > HIGHEST_NS) {
                overRange.increment();
                latency = HIGHEST_NS;
            }
            r.recordValue(latency);
        }
    }

    public SubscribersRole(Drivers drivers) {
        this.drivers = drivers;
    }

    static Histogram newHistogram() {
        return new Histogram(LOWEST_NS, HIGHEST_NS, DIGITS);
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
        return Ready.newBuilder().setRole(Role.SUBSCRIBERS).build();
    }

    @Override
    public synchronized ScenarioReport scenario(ScenarioQuery q) throws Exception {
        ScenarioReport.Builder r = ScenarioReport.newBuilder().setKind(q.getKind());
        switch (q.getKind()) {
            case SETUP -> {
                setup(q.getPlan());
                if (!subscribers.isEmpty()) {
                    r.putAllInfo(subscribers.get(0).serverInfo());
                }
            }
            case RESET -> {
                swap(null, null);
                total = newHistogram();
                totalIntended = newHistogram();
                received.reset();
                bytesReceived.reset();
                clamped.reset();
                overRange.reset();
                // errors are not reset: a fault during the warm-up is still a fault (errors_* cover the whole run)
            }
            case PROGRESS -> {
                Histogram a = newHistogram();
                Histogram i = newHistogram();
                long interval = swap(a, i);
                r.setIntervalNs(interval).setMessages(a.getTotalCount()).setLatencyHistogram(encode(a));
            }
            case FINAL -> {
                swap(null, null);
                r.setMessages(total.getTotalCount()).setLatencyHistogram(encode(total))
                        .setIntendedHistogram(encode(totalIntended));
            }
            case STOP -> {
                // nothing to stop: subscribers keep receiving until the run closes them
            }
            default -> throw new IllegalArgumentException("unknown scenario request " + q.getKind());
        }
        String first = firstError();
        if (first != null) {
            r.setFirstError(first);
        }
        return r.putAllCounters(counters()).build();
    }

    /** Swaps every connection's interval histograms into the totals (and into a, i when given). */
    private long swap(Histogram a, Histogram i) {
        for (Conn c : conns) {
            c.recycleActual = c.actual.getIntervalHistogram(c.recycleActual);
            c.recycleIntended = c.intended.getIntervalHistogram(c.recycleIntended);
            total.add(c.recycleActual);
            totalIntended.add(c.recycleIntended);
            if (a != null) {
                a.add(c.recycleActual);
                i.add(c.recycleIntended);
            }
        }
        long now = System.nanoTime();
        long interval = lastSwapNs == 0 ? 0 : now - lastSwapNs;
        lastSwapNs = now;
        return interval;
    }

    static ByteString encode(Histogram h) {
        ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(b);
        return ByteString.copyFrom(b.array(), 0, n);
    }

    private void setup(ScenarioPlan p) throws Exception {
        String topicKey = switch (driver.name()) {
            case "mqtt" -> "topic";
            case "nats" -> "subject";
            case "zmq" -> "topic";
            default -> throw new SpecException("--driver", "the " + driver.name()
                    + " driver has no topics: scenario mode needs mqtt, nats or zmq");
        };
        DriverSpec base = DriverSpecs.of(spec);
        // ZeroMQ PUSH/PULL (round-robin) has neither topics nor groups: the proxy's one queue is both
        boolean queue = driver.name().equals("zmq") && !"pubsub".equals(base.options().get("pattern"));
        for (int i = 0; i < p.getSubscriberTopicsCount(); i++) {
            Map<String, String> opts = new HashMap<>(base.options());
            if (!queue) {
                opts.put(topicKey, p.getSubscriberTopics(i));
            }
            if (!p.getGroup().isEmpty() && !queue) {
                opts.put("group", p.getGroup());
            }
            DriverSpec ds = new DriverSpec(base.host(), base.port(), base.uri(), base.messageSize(),
                    base.socketBuffer(), opts, "");
            subscribers.add(driver.openSubscriber(ds));
            conns.add(new Conn());
        }
        for (int i = 0; i < subscribers.size(); i++) {
            final Subscriber sub = subscribers.get(i);
            final Conn conn = conns.get(i);
            Thread t = new Thread(() -> pollLoop(sub, conn), "subscriber-" + i);
            t.setDaemon(true);
            t.start();
        }
        lastSwapNs = System.nanoTime();
    }

    /** Push drivers deliver on their own thread once the handler is installed; this keeps polling for -1. */
    private void pollLoop(Subscriber sub, Conn conn) {
        try {
            while (!closed) {
                if (sub.poll(conn, 100) < 0) {
                    if (!closed) {
                        lost.incrementAndGet();
                        errors.add(Fault.Kind.CONNECTION_LOST, sub.closeReason() == null
                                ? "the broker closed a subscription" : sub.closeReason());
                    }
                    return;
                }
            }
        } catch (Exception e) {
            if (!closed) {
                lost.incrementAndGet();
                errors.add(Fault.Kind.CONNECTION_LOST, "a subscription failed: " + e.getClass().getSimpleName() + ": "
                        + e.getMessage());
            }
        }
    }

    private String firstError() {
        if (errors.first() != null) {
            return errors.first();
        }
        for (Subscriber s : subscribers) {
            if (s.counters().getOrDefault("short_payloads", 0L) > 0) {
                return "a subscriber received payloads shorter than the " + WireHeader.SIZE + "-byte header";
            }
        }
        return null;
    }

    private Map<String, Long> counters() {
        Map<String, Long> m = new TreeMap<>();
        long shorts = 0;
        long slow = 0;
        long other = 0;
        for (Subscriber s : subscribers) {
            Map<String, Long> c = s.counters();
            long sh = c.getOrDefault("short_payloads", 0L);
            long sl = c.getOrDefault("slow_consumer_events", 0L);
            shorts += sh;
            slow += sl;
            other += c.getOrDefault("errors", 0L) - sh - sl;
        }
        m.put("messages_received", received.sum());
        m.put("bytes_received", bytesReceived.sum());
        m.put("warmup_received", warmupReceived.sum());
        m.put("latency_clamped", clamped.sum());
        m.put("latency_over_range", overRange.sum());
        errors.putInto(m);
        m.merge(Fault.Kind.SHORT_PAYLOAD.field(), shorts, Long::sum);
        m.merge(Fault.Kind.SLOW_CONSUMER.field(), slow, Long::sum);
        m.merge(Fault.Kind.OTHER.field(), other, Long::sum);
        m.put("subscriber_errors", errors.total() + shorts + slow + other);
        m.put("subscriptions", (long) subscribers.size());
        m.put("subscriptions_lost", (long) lost.get());
        return m;
    }

    @Override
    public void start(Phase phase, PhaseListener listener) {
        listener.done(PhaseDone.newBuilder().setPhase(phase).setReceived(received.sum()).build());
    }

    @Override
    public void upload(TraceSink sink) {
        // scenario mode keeps histograms, not traces
    }

    @Override
    public void close() {
        closed = true;
        for (Subscriber s : subscribers) {
            try {
                s.close();
            } catch (Exception e) {
                // closing anyway
            }
        }
    }
}
