package io.msgscope.analysis.output;

import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code trace.dat}: one whitespace-separated row per message (M9), for gnuplot.
 *
 * <pre>
 * # seq send_ns recv_ns latency_ns st_msg_s rt_msg_s [intended_ns latency_corrected_ns]
 * </pre>
 *
 * Times are in ns relative to the run start ({@link Trace#startNs()}); latencies are clamped at
 * 0 like in the analysis (Q2); ST/RT use window M and carry one decimal. Undefined values (lost
 * or unsent messages, the first M rows of ST/RT, a zero overhead) are written as {@code NaN}.
 * Numbers never depend on the default Locale.
 */
public final class TraceDatWriter {

    /** Conventional file name in the run folder. */
    public static final String FILE_NAME = "trace.dat";

    private TraceDatWriter() {
    }

    /** Writes the trace of a run with throughput window {@code window} to {@code file}. */
    public static void write(Path file, Trace trace, int window) throws IOException {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            write(out, trace, window);
        }
    }

    /** Writes the rows to {@code out} (not closed). */
    public static void write(OutputStream out, Trace trace, int window) throws IOException {
        if (window < 1) {
            throw new IllegalArgumentException("window M must be >= 1, was " + window);
        }
        final int n = trace.size();
        final long[] send = trace.sendNs();
        final long[] recv = trace.recvNs();
        final long[] intended = trace.intendedNs();
        final long absent = Trace.ABSENT;
        long start = trace.startNs();
        if (start == absent) {
            start = 0;
        }
        AsciiLineBuffer line = new AsciiLineBuffer(out, 1 << 16);
        line.ascii("# seq send_ns recv_ns latency_ns st_msg_s rt_msg_s");
        if (intended != null) {
            line.ascii(" intended_ns latency_corrected_ns");
        }
        line.newline();
        line.ascii("# M=").number(window)
                .ascii("; times in ns relative to run start; latency clamped at 0; NaN = undefined")
                .newline();
        for (int i = 0; i < n; i++) {
            long s = send[i];
            long r = recv[i];
            line.number(i).ch(' ');
            timeOrNaN(line, s, start).ch(' ');
            timeOrNaN(line, r, start).ch(' ');
            if (s != absent && r != absent) {
                line.number(TraceAnalysis.clampLatency(r - s));
            } else {
                line.nan();
            }
            line.ch(' ');
            rate(line, send, i, window).ch(' ');
            rate(line, recv, i, window);
            if (intended != null) {
                long t = intended[i];
                line.ch(' ');
                timeOrNaN(line, t, start).ch(' ');
                if (t != absent && r != absent && s != absent) {
                    line.number(TraceAnalysis.clampLatency(r - t));
                } else {
                    line.nan();
                }
            }
            line.newline();
        }
        line.flush();
    }

    private static AsciiLineBuffer timeOrNaN(AsciiLineBuffer line, long t, long start) throws IOException {
        return t == Trace.ABSENT ? line.nan() : line.number(t - start);
    }

    private static AsciiLineBuffer rate(AsciiLineBuffer line, long[] times, int i, int window) throws IOException {
        if (i < window) {
            return line.nan();
        }
        long t = times[i];
        long t0 = times[i - window];
        if (t == Trace.ABSENT || t0 == Trace.ABSENT) {
            return line.nan();
        }
        return line.fixed(TraceAnalysis.throughputMsgPerSec(t - t0, window), 1);
    }
}
