package io.msgscope.coordinator.compare;

import io.msgscope.analysis.output.HdrOutput;
import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.coordinator.view.SummaryView;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Runs read from results folders (issue 34): summary.json, latency.hlog and the mode's throughput series. Which
 * intervals count: a trace run's every second of send time (a run on phases has one histogram per phase in a second:
 * they are added up); a throughput run's final measurement only ({@code final-F…}; the F search's probes ran at other
 * in-flight windows); a scenario's seconds of the measurement, not its {@code drain}.
 */
public final class FolderRuns implements RunSource {
    private final List<Path> dirs;
    private final List<String> labels;

    /** The folders with their labels (the same length). */
    public FolderRuns(List<Path> dirs, List<String> labels) {
        if (dirs.size() != labels.size()) {
            throw new IllegalArgumentException(dirs.size() + " folders, " + labels.size() + " labels");
        }
        this.dirs = List.copyOf(dirs);
        this.labels = List.copyOf(labels);
    }

    @Override
    public List<RunData> runs() throws IOException {
        List<RunData> out = new ArrayList<>();
        for (int i = 0; i < dirs.size(); i++) {
            out.add(read(dirs.get(i), labels.get(i)));
        }
        return out;
    }

    /** One folder. */
    public static RunData read(Path dir, String label) throws IOException {
        SummaryView view = new SummaryView(Json.MAPPER.readTree(dir.resolve(ResultFiles.SUMMARY).toFile()));
        List<Interval> intervals = intervals(dir.resolve(HdrOutput.HLOG_FILE_NAME), view.mode());
        List<IntervalDist> latency = new ArrayList<>();
        for (Interval x : intervals) {
            latency.add(IntervalDist.of(x.histogram()));
        }
        double[] throughput = switch (view.mode()) {
            case THROUGHPUT -> column2(dir.resolve("samples.dat"));
            case SCENARIO -> column2(dir.resolve("timeseries.dat"));
            case RUN -> perSecond(intervals);
        };
        return new RunData(label, view, throughput, latency);
    }

    /** An interval of the log: its histogram and its span [ms]. */
    record Interval(Histogram histogram, long startMs, long endMs) {
    }

    static List<Interval> intervals(Path hlog, SummaryView.Mode mode) throws IOException {
        if (!Files.isRegularFile(hlog)) {
            return List.of();
        }
        try {
            return read(hlog, mode);
        } catch (RuntimeException e) { // HdrHistogram's reader on a damaged line
            throw new IOException(hlog + " is not an HdrHistogram interval log: " + e.getMessage(), e);
        }
    }

    private static List<Interval> read(Path hlog, SummaryView.Mode mode) throws IOException {
        TreeMap<Long, Interval> byStart = new TreeMap<>();
        HistogramLogReader reader = new HistogramLogReader(hlog.toFile());
        for (EncodableHistogram e; (e = reader.nextIntervalHistogram()) != null; ) {
            String tag = e.getTag() == null ? "" : e.getTag();
            boolean kept = switch (mode) {
                case THROUGHPUT -> tag.startsWith("final");
                case SCENARIO -> !tag.equals("drain");
                case RUN -> true;
            };
            if (!kept) {
                continue;
            }
            Histogram h = (Histogram) e;
            Interval before = byStart.get(e.getStartTimeStamp());
            if (before != null) {
                before.histogram().add(h);
            } else {
                byStart.put(e.getStartTimeStamp(), new Interval(h.copy(), e.getStartTimeStamp(), e.getEndTimeStamp()));
            }
        }
        return new ArrayList<>(byStart.values());
    }

    /**
     * A trace run's throughput samples: the messages of each interval over its length [msg/s]; an interval shorter
     * than half the longest (the run's last, cut short) is left out, its rate over a sliver would mislead.
     */
    static double[] perSecond(List<Interval> intervals) {
        long longest = 0;
        for (Interval x : intervals) {
            longest = Math.max(longest, x.endMs() - x.startMs());
        }
        List<Double> out = new ArrayList<>();
        for (Interval x : intervals) {
            long ms = x.endMs() - x.startMs();
            if (ms > 0 && 2 * ms >= longest) {
                out.add(x.histogram().getTotalCount() * 1000.0 / ms);
            }
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** The second column of a whitespace-separated .dat file, comment lines (#) skipped; none when it is absent. */
    static double[] column2(Path dat) throws IOException {
        if (!Files.isRegularFile(dat)) {
            return new double[0];
        }
        List<Double> out = new ArrayList<>();
        for (String line : Files.readAllLines(dat, StandardCharsets.UTF_8)) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            String[] f = t.split("\\s+");
            if (f.length >= 2) {
                double v = Double.parseDouble(f[1]);
                if (!Double.isNaN(v)) {
                    out.add(v);
                }
            }
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
