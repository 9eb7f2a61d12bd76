package io.msgscope.analysis.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GnuplotScriptsTest {

    @TempDir
    Path dir;

    @Test
    void writesThreeSelfContainedScripts() throws IOException {
        List<Path> scripts = GnuplotScripts.writeAll(dir, false);
        assertEquals(List.of(dir.resolve("latency.gp"), dir.resolve("latency-histogram.gp"),
                dir.resolve("throughput.gp")), scripts);
        String latency = Files.readString(dir.resolve("latency.gp"), StandardCharsets.UTF_8);
        assertTrue(latency.contains("strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0"));
        assertTrue(latency.contains("set terminal pngcairo size 1200,700"));
        assertTrue(latency.contains("set output \"latency.png\""));
        assertTrue(latency.contains("using 1:($4/1000.0)"));
        assertFalse(latency.contains("$8"));
        String throughput = Files.readString(dir.resolve("throughput.gp"), StandardCharsets.UTF_8);
        assertTrue(throughput.contains("using 1:5") && throughput.contains("using 1:6"));
        assertTrue(throughput.contains("set output \"throughput.png\""));
        String histogram = Files.readString(dir.resolve("latency-histogram.gp"), StandardCharsets.UTF_8);
        assertTrue(histogram.contains("\"latency-histogram.dat\" using 3:4:($2-$1) with boxes"));
        assertTrue(histogram.contains("set output \"latency-histogram.png\""));
    }

    @Test
    void rateModePlotsCorrectedLatencyToo() throws IOException {
        GnuplotScripts.writeAll(dir, true);
        String latency = Files.readString(dir.resolve("latency.gp"), StandardCharsets.UTF_8);
        assertTrue(latency.contains("using 1:($8/1000.0)"));
    }
}
