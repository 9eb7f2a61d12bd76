package io.msgscope.control;

import io.msgscope.core.SpecException;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.Series;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/** A role that records what the session asks of it and does no I/O. */
final class FakeRole implements AgentRole {
    /** Creates fake roles and remembers each one. */
    static final class Factory implements Supplier<AgentRole> {
        final List<FakeRole> made = new CopyOnWriteArrayList<>();

        @Override
        public AgentRole get() {
            FakeRole r = new FakeRole();
            made.add(r);
            return r;
        }
    }

    static final int INGRESS_PORT = 40_001;
    /** A spec of this count makes the measurement fail, as a sender whose broker went away. */
    static final long FAILING_COUNT = 7;
    /** A spec of this count measures slowly: 12 messages, one every 400 ms, each reported as progress. */
    static final long SLOW_COUNT = 12;
    /** A spec of this count never ends its measurement and reports no progress. */
    static final long STUCK_COUNT = 13;
    /** A spec of this count says, as its measurement starts, that drain phase 2 drained (issue 31), then ends. */
    static final long DRAINING_COUNT = 17;

    volatile long progress;

    final List<String> calls = new CopyOnWriteArrayList<>();
    final CountDownLatch closed = new CountDownLatch(1);
    volatile RunSpec spec;
    volatile long[] upload = new long[0];

    @Override
    public Role role() {
        return Role.RELAY;
    }

    @Override
    public Ready prepare(RunSpec spec) {
        calls.add("prepare");
        this.spec = spec;
        if (spec.getCount() <= 0) {
            throw new SpecException("--count", "must be between 1 and 500000000, got " + spec.getCount());
        }
        return Ready.newBuilder().setRole(Role.RELAY).setIngressPort(INGRESS_PORT).build();
    }

    @Override
    public void start(Phase phase, PhaseListener listener) {
        calls.add("start " + phase);
        if (spec.getCount() == STUCK_COUNT && phase == Phase.MEASURE) {
            return;
        }
        if (spec.getCount() == SLOW_COUNT && phase == Phase.MEASURE) {
            Thread t = new Thread(() -> {
                for (int i = 1; i <= SLOW_COUNT; i++) {
                    java.util.concurrent.locks.LockSupport.parkNanos(400_000_000L);
                    progress = i;
                }
                listener.done(PhaseDone.newBuilder().setPhase(phase).setSent(SLOW_COUNT).build());
            });
            t.setDaemon(true);
            t.start();
            return;
        }
        if (spec.getCount() == DRAINING_COUNT && phase == Phase.MEASURE) {
            listener.phaseEnded(io.msgscope.proto.PhaseEnd.newBuilder().setPhase(2).setEndedBy("drained").build());
        }
        if (spec.getCount() == FAILING_COUNT && phase == Phase.MEASURE) {
            listener.failed("sending failed after 3 measured messages: Connection reset");
            return;
        }
        listener.done(PhaseDone.newBuilder().setPhase(phase).setSent(spec.getCount()).build());
    }

    @Override
    public long progress() {
        return progress;
    }

    @Override
    public void phaseEnded(io.msgscope.proto.PhaseEnd end) {
        calls.add("phaseEnded " + end.getPhase() + " " + end.getDurationNs());
    }

    @Override
    public void senderFinished(long sent) {
        calls.add("senderFinished " + sent);
    }

    @Override
    public void upload(TraceSink sink) throws Exception {
        calls.add("upload");
        sink.series(Series.SEND_NS, upload, upload.length);
    }

    @Override
    public void close() {
        calls.add("close");
        closed.countDown();
    }
}
