package io.msgscope.analysis.output;

import io.msgscope.analysis.RateWindow;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import io.msgscope.analysis.cpu.StepSeries;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongToIntFunction;

/**
 * Writes {@code trace.dat}: one whitespace-separated row per message (M9), for gnuplot.
 *
 * <pre>
 * # seq send_ns recv_ns latency_ns st_msg_s rt_msg_s [intended_ns latency_corrected_ns] [extra ...]
 *   [st_window rt_window] [phase]
 * </pre>
 *
 * Times are in ns relative to the run start ({@link Trace#startNs()}); latencies are clamped at
 * 0 like in the analysis (Q2); ST/RT use window M and carry one decimal. Undefined values (lost
 * or unsent messages, the first M rows of ST/RT, a zero overhead) are written as {@code NaN}.
 * Numbers never depend on the default Locale.
 *
 * <p>Extra columns ({@link StepSeries}, e.g. CPU usage per window of N messages, M3/M4) follow
 * the fixed ones, headed by {@link StepSeries#name()}; each row holds the value of the window
 * its message falls in, with two decimals. Use {@link #columnOf} for gnuplot column numbers.
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
        write(out, trace, window, List.of());
    }

    /**
     * Writes the trace with {@code extra} step-series columns after the fixed ones.
     *
     * @param extra series over the same messages as the trace (same count), with distinct names
     */
    public static void write(Path file, Trace trace, int window, List<StepSeries> extra) throws IOException {
        checkExtra(trace, extra);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            write(out, trace, window, extra);
        }
    }

    /** Writes the rows with {@code extra} columns to {@code out} (not closed). */
    public static void write(OutputStream out, Trace trace, int window, List<StepSeries> extra) throws IOException {
        write(out, trace, window, 0, extra);
    }

    /**
     * Writes the trace with ST/RT over {@link RateWindow}s of at least {@code minSpanNs} (0: M2's
     * windows of M messages); with a minimum span two more columns after the extra ones,
     * {@code st_window} and {@code rt_window}, say how many messages each value spans (0 = undefined).
     */
    public static void write(Path file, Trace trace, int window, long minSpanNs, List<StepSeries> extra)
            throws IOException {
        checkExtra(trace, extra);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            write(out, trace, window, minSpanNs, extra);
        }
    }

    /** Writes the rows to {@code out} (not closed); see {@link #write(Path, Trace, int, long, List)}. */
    public static void write(OutputStream out, Trace trace, int window, long minSpanNs, List<StepSeries> extra)
            throws IOException {
        write(out, trace, window, minSpanNs, extra, null);
    }

    /**
     * The same with a last column, {@code phase}: the load phase each message was scheduled in (issue 31; 0-based,
     * as summary.json's {@code phases}), after every other column so that theirs keep their numbers.
     *
     * @param phaseOf the phase of message {@code i}, or null for a run without phases (no column)
     */
    public static void write(Path file, Trace trace, int window, long minSpanNs, List<StepSeries> extra,
                             LongToIntFunction phaseOf) throws IOException {
        checkExtra(trace, extra);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            write(out, trace, window, minSpanNs, extra, phaseOf);
        }
    }

    /** Writes the rows to {@code out} (not closed); see {@link #write(Path, Trace, int, long, List, LongToIntFunction)}. */
    public static void write(OutputStream out, Trace trace, int window, long minSpanNs, List<StepSeries> extra,
                             LongToIntFunction phaseOf) throws IOException {
        checkExtra(trace, extra);
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
        final boolean spanned = minSpanNs > 0;
        final StepSeries[] steps = extra.toArray(new StepSeries[0]);
        for (StepSeries step : steps) {
            line.ch(' ').ascii(step.name());
        }
        if (spanned) { // last, so that every other column keeps its number
            line.ascii(" st_window rt_window");
        }
        if (phaseOf != null) {
            line.ascii(" phase");
        }
        line.newline();
        if (spanned) {
            line.ascii("# ST/RT over windows of ").ascii(RateWindow.describe(window, minSpanNs))
                    .ascii(" (st_window, rt_window: messages per window, 0 = undefined)");
        } else {
            line.ascii("# M=").number(window);
        }
        line.ascii("; times in ns relative to run start; latency clamped at 0; NaN = undefined").newline();
        final RateWindow sendWindows = new RateWindow(send, window, minSpanNs);
        final RateWindow recvWindows = new RateWindow(recv, window, minSpanNs);
        if (steps.length > 0) {
            line.ascii("# step columns: one value per window of N messages (");
            for (int c = 0; c < steps.length; c++) {
                line.ascii(c == 0 ? "" : ", ").ascii(steps[c].name()).ascii(" N=").number(steps[c].every());
            }
            line.ascii(")").newline();
        }
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
            final int sw = spanned ? sendWindows.lengthAt(i) : 0;
            final int rw = spanned ? recvWindows.lengthAt(i) : 0;
            if (spanned) {
                rate(line, send, i, sw).ch(' ');
                rate(line, recv, i, rw);
            } else {
                rate(line, send, i, window).ch(' ');
                rate(line, recv, i, window);
            }
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
            for (StepSeries step : steps) {
                line.ch(' ').fixed(step.valueAt(i), 2);
            }
            if (spanned) {
                line.ch(' ').number(sw).ch(' ').number(rw);
            }
            if (phaseOf != null) {
                line.ch(' ').number(phaseOf.applyAsInt(i));
            }
            line.newline();
        }
        line.flush();
    }

    /**
     * 1-based gnuplot column of {@code name} in the trace.dat that {@link #write(Path, Trace, int,
     * List)} writes for {@code trace} and {@code extra}: a fixed column ({@code seq},
     * {@code send_ns}, {@code recv_ns}, {@code latency_ns}, {@code st_msg_s}, {@code rt_msg_s},
     * and in rate mode {@code intended_ns}, {@code latency_corrected_ns}) or an extra series.
     *
     * @throws IllegalArgumentException if there is no such column
     */
    public static int columnOf(Trace trace, List<StepSeries> extra, String name) {
        return columnOf(trace, 0, extra, name);
    }

    /** The {@code phase} column's number in a trace.dat written with phases: the last one. */
    public static int phaseColumn(Trace trace, long minSpanNs, List<StepSeries> extra) {
        return fixedColumns(trace).size() + extra.size() + (minSpanNs > 0 ? 2 : 0) + 1;
    }

    /** The same for a trace.dat written with a minimum span (st_window, rt_window come after the extras). */
    public static int columnOf(Trace trace, long minSpanNs, List<StepSeries> extra, String name) {
        Objects.requireNonNull(name, "name");
        List<String> fixed = fixedColumns(trace);
        if (minSpanNs > 0 && (name.equals("st_window") || name.equals("rt_window"))) {
            return fixed.size() + extra.size() + (name.equals("st_window") ? 1 : 2);
        }
        int index = fixed.indexOf(name);
        if (index >= 0) {
            return index + 1;
        }
        for (int c = 0; c < extra.size(); c++) {
            if (extra.get(c).name().equals(name)) {
                return fixed.size() + c + 1;
            }
        }
        throw new IllegalArgumentException("trace.dat has no column \"" + name + "\"");
    }

    private static List<String> fixedColumns(Trace trace) {
        return trace.hasIntended()
                ? List.of("seq", "send_ns", "recv_ns", "latency_ns", "st_msg_s", "rt_msg_s",
                        "intended_ns", "latency_corrected_ns")
                : List.of("seq", "send_ns", "recv_ns", "latency_ns", "st_msg_s", "rt_msg_s");
    }

    private static void checkExtra(Trace trace, List<StepSeries> extra) {
        Objects.requireNonNull(extra, "extra");
        Set<String> names = new HashSet<>(fixedColumns(trace));
        for (StepSeries step : extra) {
            Objects.requireNonNull(step, "extra series");
            if (step.count() != trace.count()) {
                throw new IllegalArgumentException("series " + step.name() + " covers " + step.count()
                        + " messages but the trace has " + trace.count());
            }
            if (!names.add(step.name())) {
                throw new IllegalArgumentException("duplicate trace.dat column name " + step.name());
            }
        }
    }

    private static AsciiLineBuffer timeOrNaN(AsciiLineBuffer line, long t, long start) throws IOException {
        return t == Trace.ABSENT ? line.nan() : line.number(t - start);
    }

    /** The rate over the {@code window} messages ending at i; NaN for window 0 or i &lt; window. */
    private static AsciiLineBuffer rate(AsciiLineBuffer line, long[] times, int i, int window) throws IOException {
        if (window == 0 || i < window) {
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
