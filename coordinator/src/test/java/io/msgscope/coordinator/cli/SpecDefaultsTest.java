package io.msgscope.coordinator.cli;

import io.msgscope.core.RunSpec;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** run's spec options take their defaults from RunSpec.Builder, where alone they are written (issue 15). */
class SpecDefaultsTest {
    private static final List<String> SPEC_OPTIONS = List.of("--count", "--warmup", "--size", "--rate", "--padding",
            "--window", "--drain-timeout", "--socket-buffer", "--send-batch", "--seed", "--cpu-every", "--relay-burn-ns");

    @Test
    void anEmptyCommandLineGivesTheBuildersDefaults() {
        RunCommand run = new RunCommand();
        new CommandLine(run).parseArgs();
        RunSpec d = RunSpec.DEFAULTS;
        assertEquals(d.count(), run.count);
        assertEquals(d.warmupCount(), run.warmup);
        assertEquals(d.size(), run.size);
        assertEquals(d.rate(), run.rate);
        assertEquals("zeros", run.padding);
        assertEquals(d.window(), run.window);
        assertEquals(d.drainTimeoutMs(), run.drainTimeoutMs);
        assertEquals(d.socketBuffer(), run.socketBuffer);
        assertEquals(d.sendBatch(), run.sendBatch);
        assertEquals(d.seed(), run.seed);
        assertEquals(d.cpuEvery(), run.cpuEvery);
        assertEquals(d.relayBurnNs(), run.relayBurnNs);
    }

    @Test
    void everyOptionTheProviderKnowsIsRunsAndShowsItsDefaultInTheHelp() {
        CommandLine cl = new CommandLine(new RunCommand());
        for (String o : SPEC_OPTIONS) {
            CommandLine.Model.OptionSpec spec = cl.getCommandSpec().findOption(o);
            assertNotNull(spec, o + " is not an option of run");
            assertEquals(SpecDefaults.of(o), spec.defaultValueString(), o);
        }
        assertEquals("1000000", SpecDefaults.of("--count"));
        assertEquals("0", SpecDefaults.of("--rate"));
        assertNull(SpecDefaults.of("--window-min-time"), "not a spec option: its own annotation's default");
        String help = cl.getUsageMessage();
        assertEquals(true, help.contains("Measured messages (default: " + RunSpec.DEFAULTS.count() + ")"), help);
    }

    @Test
    void throughputTakesSizeAndPaddingFromTheSamePlace() {
        ThroughputCommand t = new ThroughputCommand();
        new CommandLine(t).parseArgs();
        assertEquals(RunSpec.DEFAULTS.size(), t.size);
        assertEquals("zeros", t.padding);
    }
}
