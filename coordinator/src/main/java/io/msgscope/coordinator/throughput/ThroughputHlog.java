package io.msgscope.coordinator.throughput;

import io.msgscope.analysis.output.HdrOutput;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * latency.hlog of a throughput run, HdrHistogram's interval log: the histograms themselves, which the typed result
 * only summarises, so this writer reads the run's outcome.
 */
final class ThroughputHlog {
    private ThroughputHlog() {
    }

    /**
     * latency.hlog: one interval per probe (tagged with its F and the search's step, e.g. {@code F1000-golden}) and
     * the final measurement ({@code final-F...}), each spanning the probe's sampling period and ending when its answer
     * came. Returns the intervals written; none (and no file) when no probe measured a latency.
     */
    static int write(Path file, ThroughputRun.Outcome o) throws IOException {
        List<ThroughputStats> stats = new ArrayList<>();
        List<String> tags = new ArrayList<>();
        List<Long> ends = new ArrayList<>();
        for (ThroughputRun.Probed p : o.probes()) {
            stats.add(p.stats());
            tags.add("F" + p.stats().inFlight() + "-" + p.phase());
            ends.add(p.answeredEpochMs());
        }
        if (o.finalStats() != null) {
            stats.add(o.finalStats());
            tags.add("final-F" + o.finalStats().inFlight());
            ends.add(o.finalAnsweredEpochMs());
        }
        if (stats.isEmpty() || ends.size() != stats.size()) {
            return 0;
        }
        long first = ends.get(0) - stats.get(0).raw().getSamplingNs() / 1_000_000L;
        try (HdrOutput.IntervalLog log = new HdrOutput.IntervalLog(file, "msgscope throughput latency, values in ns, "
                + "one interval per probe of the F search and one for the final measurement, over its sampling period",
                first)) {
            for (int i = 0; i < stats.size(); i++) {
                Histogram h = stats.get(i).latency();
                h = h == null ? io.msgscope.core.LatencyRange.histogram() : h.copy(); // append stamps times and tag
                long end = ends.get(i);
                log.append(h, end - stats.get(i).raw().getSamplingNs() / 1_000_000L, end, tags.get(i));
            }
            return log.intervals();
        }
    }
}
