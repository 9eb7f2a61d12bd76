package io.msgscope.bench;

import io.msgscope.core.timeline.Timeline;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;

/**
 * Per-message cost of the paced sender's due time (issue 31's review): one benchmark call is one message's
 * {@code intended = start + due(seq)} and the store of it into the recorder's array, as {@code SenderRole} does before
 * it waits. {@link #inline} is the arithmetic {@code --rate} had before load phases; the others call through a
 * {@link LongUnaryOperator} at one call site ({@link #due}), as the sender's schedule loop does: the plain rate's
 * lambda (alone, and with the call site's profile having seen a timeline too, as an agent daemon that ran both
 * would), a constant one-phase {@link Timeline} and a ramp. {@link #rateFastPath} is the sender's loop since: the
 * arithmetic inline again when there is no operator. Each benchmark runs in its own JVM.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class ScheduleBenchmark {
    static final int MESSAGES = 1 << 20;
    static final int MASK = MESSAGES - 1;

    @State(Scope.Thread)
    public static class Sender {
        /** 100,000 msg/s: a period of 10,000 ns, exact in binary, so all variants schedule alike. */
        final double periodNs = 1e9 / 100_000;
        final long start = 1_000_000_000L;
        final long[] intended = new long[MESSAGES];
        int seq;
        LongUnaryOperator rate;
        LongUnaryOperator constant;
        LongUnaryOperator ramp;
        /** No operator: the constant rate's fast path. */
        LongUnaryOperator none;

        @Setup(Level.Trial)
        public void setUp() {
            final double p = periodNs;
            rate = seq -> (long) (seq * p); // SenderRole.sendAtRate's schedule
            constant = Timeline.parse("--phases", "steady:20s@100k")::dueNs;
            ramp = Timeline.parse("--phases", "ramp:20s@50k..150k")::dueNs;
        }
    }

    /** The plain rate's lambda, its call site having seen a timeline's {@code dueNs} as well (bimorphic). */
    @State(Scope.Thread)
    public static class Mixed extends Sender {
        @Override
        @Setup(Level.Trial)
        public void setUp() {
            super.setUp();
            long sink = 0;
            for (int i = 0; i < 200_000; i++) { // the profile sees both targets before the benchmark compiles
                sink += due(constant, start, i & MASK) + due(rate, start, i & MASK);
            }
            intended[0] = sink;
        }
    }

    /** The sender's one call site for the due time. */
    static long due(LongUnaryOperator dueNs, long start, int seq) {
        return start + dueNs.applyAsLong(seq);
    }

    /** {@code --rate} before load phases: the due time as inline arithmetic. */
    @Benchmark
    public long inline(Sender s) {
        int seq = s.seq;
        return record(s, seq, s.start + (long) (seq * s.periodNs));
    }

    /** {@code --rate} since load phases: the same arithmetic in a lambda, called through the operator. */
    @Benchmark
    public long operatorRate(Sender s) {
        return step(s, s.rate);
    }

    /** As {@link #operatorRate}, with a call site that has also seen a timeline. */
    @Benchmark
    public long operatorRateBimorphic(Mixed s) {
        return step(s, s.rate);
    }

    /**
     * {@code --rate} with the fast path: the sender's loop as it is now, the arithmetic in the loop when no operator is
     * given ({@code SenderRole.rateDueNs}), the operator's call otherwise.
     */
    @Benchmark
    public long rateFastPath(Sender s) {
        int seq = s.seq;
        LongUnaryOperator op = s.none;
        return record(s, seq, s.start + (op == null ? (long) (seq * s.periodNs) : op.applyAsLong(seq)));
    }

    /** {@code --phases steady:20s@100k}: {@link Timeline#dueNs} of one constant phase. */
    @Benchmark
    public long timelineConstant(Sender s) {
        return step(s, s.constant);
    }

    /** {@code --phases ramp:20s@50k..150k}: {@link Timeline#dueNs} along a linear ramp. */
    @Benchmark
    public long timelineRamp(Sender s) {
        return step(s, s.ramp);
    }

    private static long step(Sender s, LongUnaryOperator op) {
        int seq = s.seq;
        return record(s, seq, due(op, s.start, seq));
    }

    /** Message {@code seq}'s intended time stored as the recorder stores it, and on to the next message. */
    private static long record(Sender s, int seq, long t) {
        s.intended[seq] = t;
        s.seq = (seq + 1) & MASK;
        return t;
    }
}
