package io.msgscope.bench;

import io.msgscope.core.ReceiveRecorder;
import io.msgscope.core.SendRecorder;
import io.msgscope.core.WireHeader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Per-message cost of recording on the sender and the receiver (issue 2 target: ≤ 20 ns, no
 * allocation — run with {@code -prof gc} and read gc.alloc.rate.norm). Each invocation records a
 * whole run of {@link #MESSAGES} messages into fresh preallocated arrays, as an agent does; the
 * clock read is measured apart ({@link #clockRead}) since it is the clock's cost, not the recorder's.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RecorderBenchmark {
    static final int MESSAGES = 1 << 20;

    private SendRecorder send;
    private ReceiveRecorder receive;
    private ByteBuffer payload;
    private final long epochOffset = 1_700_000_000_000_000_000L;

    @Setup(Level.Invocation)
    public void freshRecorders() {
        send = new SendRecorder(MESSAGES, false);
        receive = new ReceiveRecorder(MESSAGES);
        payload = WireHeader.allocate(64);
    }

    /** Sender: header written in place (epoch ns, sequence) and O_n stored, per message. */
    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public long senderRecordAndHeader() {
        final SendRecorder rec = send;
        final ByteBuffer buf = payload;
        long t = 1_000;
        for (int seq = 0; seq < MESSAGES; seq++) {
            t += 250;
            WireHeader.writeSendTime(buf, 0, t + epochOffset);
            WireHeader.writeSequence(buf, 0, seq);
            rec.recordSend(seq, t);
        }
        return rec.sent();
    }

    /** Receiver: sequence read from the header and I_n stored with duplicate/reorder checks, per message. */
    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public long receiverReadAndRecord() {
        final ReceiveRecorder rec = receive;
        final ByteBuffer buf = payload;
        long t = 1_000;
        for (int seq = 0; seq < MESSAGES; seq++) {
            buf.putLong(WireHeader.SEQUENCE_OFFSET, seq); // stands in for the bytes arriving
            t += 250;
            rec.recordReceive(WireHeader.sequence(buf, 0), t);
        }
        return rec.received();
    }

    /** The monotonic clock read every message pays in addition (System.nanoTime). */
    @Benchmark
    public void clockRead(Blackhole bh) {
        bh.consume(System.nanoTime());
    }
}
