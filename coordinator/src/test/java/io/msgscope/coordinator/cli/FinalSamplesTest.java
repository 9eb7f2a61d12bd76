package io.msgscope.coordinator.cli;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** After a search the final measurement is ten probes long by default (issue 17: repeated runs' medians agree). */
class FinalSamplesTest {
    private static ThroughputCommand parsed(String... args) {
        ThroughputCommand t = new ThroughputCommand();
        new CommandLine(t).parseArgs(args);
        return t;
    }

    @Test
    void autoIsTenProbesAndAGivenCountIsKept() {
        assertEquals(1000, parsed().finalSampleCount());
        assertEquals(200, parsed("--samples", "20").finalSampleCount());
        assertEquals(100_000, parsed("--samples", "50000").finalSampleCount(), "capped at the largest count");
        assertEquals(300, parsed("--final-samples", "300").finalSampleCount());
    }

    @Test
    void aBadCountIsRefusedNamingTheOption() {
        for (String bad : new String[] {"0", "100001", "many"}) {
            SpecException e = assertThrows(SpecException.class, () -> parsed("--final-samples", bad).finalSampleCount());
            assertEquals("--final-samples", e.option());
            assertEquals("--final-samples: must be auto or between 1 and 100000, got '" + bad + "'", e.getMessage());
        }
    }
}
