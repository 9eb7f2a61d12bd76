package io.msgscope.coordinator.compare;

import io.msgscope.analysis.output.HdrOutput;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.LongUnaryOperator;

/** Tiny results folders for compare's verdicts: a summary.json and a latency.hlog of 1-second intervals. */
final class Fixtures {
    static final long T0 = 1_700_000_000_000L;

    private Fixtures() {
    }

    /**
     * A trace-run folder: {@code intervals} seconds, each holding the latencies {@code f(1000)} … {@code f(1099)} ns
     * (100 messages a second, so 100 msg/s), spec count 1000, size 64, rate 100.
     */
    static Path traceRun(Path parent, String name, String driver, int intervals, LongUnaryOperator f)
            throws IOException {
        Path d = Files.createDirectories(parent.resolve(name));
        Files.writeString(d.resolve("summary.json"), String.format(Locale.ROOT, """
                {"mode": "trace", "driver": "%s", "status": "ok", "spec_hash": "h-%s",
                 "spec": {"count": 1000, "size": 64, "rate": 100, "driver": "%s", "out": "%s"},
                 "counters": {"messages_lost": 0}}
                """, driver, driver, driver, name));
        try (HdrOutput.IntervalLog log = new HdrOutput.IntervalLog(d.resolve("latency.hlog"), "fixture", T0)) {
            for (int i = 0; i < intervals; i++) {
                Histogram h = new Histogram(3);
                for (long v = 1000; v < 1100; v++) {
                    h.recordValue(f.applyAsLong(v));
                }
                log.append(h, T0 + i * 1000L, T0 + (i + 1) * 1000L, null);
            }
        }
        return d;
    }
}
