package io.msgscope.coordinator.scenario;

import io.msgscope.analysis.output.HdrOutput;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.DataFormatException;

/** latency.hlog of a scenario run, HdrHistogram's interval log of the result's intervals (issue 30: one writer per format). */
final class ScenarioHlog {
    private ScenarioHlog() {
    }

    /** The measurement's intervals as an HdrHistogram interval log (the drain tagged "drain"). */
    static void write(ScenarioResult r, Path file) throws IOException {
        try (HdrOutput.IntervalLog log = new HdrOutput.IntervalLog(file,
                "msgscope scenario latency, values in ns, one interval per second of the measurement, merged over the "
                        + "subscribers agents; the last, tagged drain, is what arrived after the publishers stopped",
                r.intervals().get(0).startEpochMs())) {
            for (ScenarioResult.Interval i : r.intervals()) {
                try {
                    Histogram h = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(i.histogram()), 0);
                    log.append(h, i.startEpochMs(), i.endEpochMs(), i.tag());
                } catch (DataFormatException e) {
                    throw new IOException("latency interval at " + i.startEpochMs() + " ms is not a histogram: " + e.getMessage(), e);
                }
            }
        }
    }
}
