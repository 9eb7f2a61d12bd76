package io.msgscope.agent.receiver;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.scenario.BucketCounts;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * What a scenario subscriber pays per delivery (issue 32 item 5: the sequence check runs only with {@code --faults}),
 * three ways side by side in one run: {@code plain}, no faults (two latency recordings and a count); {@code buckets},
 * faults on round-robin (and the counts by 100 ms of arrival and of intended time); {@code tracked}, faults with each
 * delivery told apart by publisher and sequence ({@link SequenceBook}: new, late or seen before). One call is one
 * delivery of the next message of one of {@code publishers} publishers in turn, in order (the common case: the book's
 * lock taken uncontended, no gap); its header written first, the same in all three, its intended time 100 µs before
 * the clock (one clock read more per call, also the same in all three, so the latencies are recorded as in a run). Run:
 * {@code java -jar benchmarks/target/benchmarks.jar DeliveryBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class DeliveryBenchmark {
    /** Epoch ns when a trial starts: the buckets' span starts there and covers two hours. */
    static final long T0 = 1_800_000_000_000_000_000L;

    @State(Scope.Thread)
    public static class Delivery {
        @Param({"64"})
        int publishers;
        Recording recording;
        MessageHandler plain;
        MessageHandler buckets;
        MessageHandler tracked;
        ByteBuffer buf;
        long n;
        long[] next;
        long epochMinusMono;

        @Setup(Level.Trial)
        public void setUp() {
            // arrivals on the epoch clock near T0: within the span like the intended times
            epochMinusMono = T0 - System.nanoTime();
            recording = new Recording(epochMinusMono);
            plain = recording;
            Recording counted = new Recording(epochMinusMono);
            counted.buckets(BucketCounts.Span.from(T0, 100, 2 * 3_600_000L));
            buckets = counted;
            tracked = counted.tracked();
            buf = WireHeader.allocate(64);
            next = new long[publishers];
        }

        /** The next message: its publisher in turn, that publisher's next sequence, its intended and sent times. */
        ByteBuffer message() {
            long k = n++;
            int p = (int) (k % publishers);
            long seq = next[p]++;
            long intended = System.nanoTime() + epochMinusMono - 100_000;
            buf.putLong(WireHeader.EPOCH_NS_OFFSET, intended).putLong(WireHeader.SEQUENCE_OFFSET, seq)
                    .putLong(WireHeader.INTENDED_NS_OFFSET, intended).putLong(WireHeader.PUBLISHER_OFFSET, p);
            return buf;
        }
    }

    @Benchmark
    public void plain(Delivery d) {
        d.plain.onMessage(d.message(), 0);
    }

    @Benchmark
    public void buckets(Delivery d) {
        d.buckets.onMessage(d.message(), 0);
    }

    @Benchmark
    public void tracked(Delivery d) {
        d.tracked.onMessage(d.message(), 0);
    }
}
