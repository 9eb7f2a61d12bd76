package io.msgscope.coordinator;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** samples.gp (issue 29): the legend never over the data or the change-point note, a rate's axis never below 0. */
class ThroughputSamplesTest {
    @TempDir
    Path dir;

    @Test
    void theLegendIsBelowAndTheHistogramsRateAxisStartsAtZeroOrAbove() throws IOException {
        // 8 samples: 2 bins of (400 - 10) / 2 = 195 msg/s; the axis from max(0, 10 - 195) to 400 + 195
        ThroughputSamples.write(dir, List.of(10.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0, 400.0), 175);
        String gp = Files.readString(dir.resolve(ThroughputSamples.GP));
        String samples = gp.substring(0, gp.indexOf("set output \"samples-histogram.png\""));
        String histogram = gp.substring(gp.indexOf("set output \"samples-histogram.png\""));
        assertTrue(samples.contains("set key outside right top\n") && !samples.contains("set key top"), samples);
        assertTrue(histogram.contains("set boxwidth width\n"), "every bin as wide as the others: " + histogram);
        assertTrue(histogram.contains("set xrange [0.000:595.000]\n"), histogram);
        // far from 0: the axis hugs the data, one bin either side
        ThroughputSamples.write(dir, List.of(99_000.0, 99_500.0, 100_000.0, 100_500.0), 99_750);
        assertTrue(Files.readString(dir.resolve(ThroughputSamples.GP)).contains("set xrange [97500.000:102000.000]\n"),
                Files.readString(dir.resolve(ThroughputSamples.GP)));
    }
}
