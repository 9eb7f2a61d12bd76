package io.msgscope.bench;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import io.msgscope.analysis.output.TraceDatWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
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

/**
 * Budget of the after-the-run analysis: {@link TraceAnalysis#analyse} of a 10,000,000-message
 * trace must take ≤ 5 s on 2 cores. Run with e.g.
 * {@code java -Xmx480000000 -jar benchmarks/target/benchmarks.jar AnalysisBenchmark}
 * (the heap cap is the 48 bytes/message budget; {@link AnalysisFootprint} prints the figure).
 *
 * <p>{@code writeTraceDat} times writing {@code trace.dat} for the same trace to a null stream
 * (formatting cost only, no disk).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xmx480000000"})
@State(Scope.Benchmark)
public class AnalysisBenchmark {

    @Param({"10000000"})
    public int count;

    @Param({"100"})
    public int window;

    private Trace trace;

    @Setup(Level.Trial)
    public void setUp() {
        trace = AnalysisFootprint.syntheticTrace(count, 42L);
    }

    @Benchmark
    public AnalysisResult analyse() {
        return TraceAnalysis.analyse(trace, window);
    }

    @Benchmark
    public long writeTraceDat() throws IOException {
        CountingStream out = new CountingStream();
        TraceDatWriter.write(out, trace, window);
        return out.bytes;
    }

    /** Discards bytes, counting them so the work cannot be optimised away. */
    private static final class CountingStream extends OutputStream {
        long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }
}
