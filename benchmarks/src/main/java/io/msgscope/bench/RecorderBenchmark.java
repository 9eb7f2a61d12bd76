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
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Per-message cost of recording on the sender and the receiver (issue 2 target: ≤ 20 ns and no
 * allocation; run with {@code -prof gc} and read gc.alloc.rate.norm). One benchmark call is one
 * message, exactly the agents' per-message work minus the clock read and the socket; the arrays
 * are as large as a real run's and are wiped when full (amortised, outside nothing: it is counted).
 * {@link #clockRead} measures the clock read every message also pays.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RecorderBenchmark {
    static final int MESSAGES = 1 << 20;

    @State(Scope.Thread)
    public static class Sender {
        SendRecorder rec;
        ByteBuffer buf;
        int seq;
        long t = 1_000;
        final long epochOffset = 1_700_000_000_000_000_000L;

        @Setup(Level.Trial)
        public void setUp() {
            rec = new SendRecorder(MESSAGES, false);
            buf = WireHeader.allocate(64);
        }
    }

    @State(Scope.Thread)
    public static class Receiver {
        ReceiveRecorder rec;
        ByteBuffer buf;
        int seq;
        long t = 1_000;

        @Setup(Level.Trial)
        public void setUp() {
            rec = new ReceiveRecorder(MESSAGES);
            buf = WireHeader.allocate(64);
        }
    }

    /** Sender: header written in place (epoch ns, sequence) and O_n stored. */
    @Benchmark
    public long senderRecordAndHeader(Sender s) {
        int seq = s.seq;
        if (seq == MESSAGES) {
            Arrays.fill(s.rec.sendNs(), SendRecorder.ABSENT);
            seq = 0;
        }
        long t = s.t += 250;
        WireHeader.writeSendTime(s.buf, 0, t + s.epochOffset);
        WireHeader.writeSequence(s.buf, 0, seq);
        s.rec.recordSend(seq, t);
        s.seq = seq + 1;
        return t;
    }

    /** Receiver: sequence read from the header, I_n stored with the duplicate and reorder checks. */
    @Benchmark
    public long receiverReadAndRecord(Receiver r) {
        int seq = r.seq;
        if (seq == MESSAGES) {
            r.rec.reset();
            seq = 0;
        }
        r.buf.putLong(WireHeader.SEQUENCE_OFFSET, seq); // stands in for the bytes arriving
        long t = r.t += 250;
        r.rec.recordReceive(WireHeader.sequence(r.buf, 0), t);
        r.seq = seq + 1;
        return t;
    }

    /** The monotonic clock read every message pays in addition (System.nanoTime). */
    @Benchmark
    public long clockRead() {
        return System.nanoTime();
    }
}
