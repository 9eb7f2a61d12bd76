package io.msgscope.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/** Reads a run's latency.hlog with HdrHistogram's own reader, as HistogramLogProcessor would. */
final class Hlog {
    private Hlog() {
    }

    static List<Histogram> intervals(Path file) throws IOException {
        HistogramLogReader reader = new HistogramLogReader(file.toFile());
        List<Histogram> all = new ArrayList<>();
        for (EncodableHistogram h; (h = reader.nextIntervalHistogram()) != null; ) {
            all.add((Histogram) h);
        }
        return all;
    }

    /** Messages over every interval. */
    static long total(Path file) throws IOException {
        return intervals(file).stream().mapToLong(Histogram::getTotalCount).sum();
    }
}
