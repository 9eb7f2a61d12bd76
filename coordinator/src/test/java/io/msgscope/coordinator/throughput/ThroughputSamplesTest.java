package io.msgscope.coordinator.throughput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.core.test.Ci;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * samples.gp (issue 29): the legend never over the data or the change-point note, a rate's axis never below 0, and the
 * histogram has the bins its title says.
 */
class ThroughputSamplesTest {
    @TempDir
    Path dir;

    @Test
    void theLegendIsBelowAndTheHistogramsRateAxisStartsAtZeroOrAbove() throws IOException {
        // 8 samples: 2 bins of (400 - 10) / 2 = 195 msg/s; the axis from max(0, 10 - 195) to 400 + 195
        ThroughputSamples.write(dir, List.of(10.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0, 400.0), 175);
        String gp = Files.readString(dir.resolve(io.msgscope.coordinator.results.ResultFiles.SAMPLES_GP));
        String samples = gp.substring(0, gp.indexOf("set output \"samples-histogram.png\""));
        String histogram = gp.substring(gp.indexOf("set output \"samples-histogram.png\""));
        assertTrue(samples.contains("set key outside right top\n") && !samples.contains("set key top"), samples);
        assertTrue(histogram.contains("set boxwidth width\n"), "every bin as wide as the others: " + histogram);
        assertTrue(histogram.contains("set xrange [0.000:595.000]\n"), histogram);
        // far from 0: the axis hugs the data, one bin either side
        ThroughputSamples.write(dir, List.of(99_000.0, 99_500.0, 100_000.0, 100_500.0), 99_750);
        assertTrue(Files.readString(dir.resolve(io.msgscope.coordinator.results.ResultFiles.SAMPLES_GP)).contains("set xrange [97500.000:102000.000]\n"),
                Files.readString(dir.resolve(io.msgscope.coordinator.results.ResultFiles.SAMPLES_GP)));
    }

    /**
     * Twenty samples at 44,550, 44,775, 45,000, 45,225 and 45,450 msg/s, four each: 20 / 4 = 5 bins of (45,450 -
     * 44,550) / 5 = 180 msg/s. By hand: (45,450 - 44,550) / 180 = 5, one past the last bin (index 4); the largest sample
     * belongs in [45,270, 45,450], centre 45,360 (the script once drew it as a sixth bin beyond the five of its title).
     * The others: 44,550 in bin 0 (centre 44,640), 44,775 in bin 1 (44,820), 45,000 in bin 2 (45,000), 45,225 in bin 3
     * (45,180). gnuplot itself evaluates the script's bin() where it is installed.
     */
    @Test
    void theLargestSampleIsInTheLastBinNotOneOfItsOwn() throws Exception {
        List<Double> samples = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            samples.add(44_550.0 + 225 * (i % 5));
        }
        ThroughputSamples.write(dir, samples, 45_000);
        String gp = Files.readString(dir.resolve(ResultFiles.SAMPLES_GP));
        assertTrue(gp.contains("(5 bins of 180 msg/s)") && gp.contains("last = 4\n"), gp);
        boolean gnuplot = java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, "gnuplot")));
        Ci.require(gnuplot, "gnuplot must be on the PATH", "the bins checked in the script's text only");
        String functions = gp.substring(gp.indexOf("width = "), gp.indexOf("plot \"samples.dat\" using (bin("));
        Path probe = dir.resolve("bins.gp");
        Files.writeString(probe, functions + "print bin(44550.0), bin(44775.0), bin(45000.0), bin(45225.0), bin(45450.0)\n",
                StandardCharsets.UTF_8);
        Process p = new ProcessBuilder("gnuplot", probe.toString()).redirectErrorStream(true).start();
        String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, p.waitFor(), printed);
        assertEquals("44640.0 44820.0 45000.0 45180.0 45360.0", printed);
    }
}
