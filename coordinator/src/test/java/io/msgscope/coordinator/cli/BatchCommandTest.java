package io.msgscope.coordinator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.msgscope.core.SpecException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Workload files (issue 18): what each entry becomes, and every way one can be wrong named before anything runs. */
class BatchCommandTest {
    @TempDir
    Path tmp;

    private static JsonNode yaml(String text) throws Exception {
        return new YAMLMapper().readTree(text);
    }

    @Test
    void eachEntryBecomesItsCommandWithTheSpecsOptionsThenItsOwn() throws Exception {
        Path summary = tmp.resolve("summary.json");
        Files.writeString(summary, "{\"mode\": \"trace\", \"spec\": {\"count\": 5000, \"size\": 128}}");
        Path workload = tmp.resolve("w.yaml");
        List<BatchCommand.Entry> e = BatchCommand.entries(yaml("""
                runs:
                  - name: a
                    command: run
                    spec: {count: 1000, rate: 500, driver_options: {via: direct}}
                    options: [--plot, --count, "2000"]
                  - command: scenario
                    spec: {scenario: fan-in, duration_ms: 2500}
                  - command: run
                    spec_file: summary.json
                  - command: throughput
                """), workload);
        assertEquals(List.of("a", "02-scenario", "03-run", "04-throughput"), e.stream().map(BatchCommand.Entry::name).toList());
        assertEquals(List.of("run", "--rate", "500", "--opt", "via=direct", "--plot", "--count", "2000"), e.get(0).args(),
                "the entry's own options win over its spec's");
        assertEquals(List.of("scenario", "--scenario", "fan-in", "--duration", "2.5"), e.get(1).args());
        assertEquals(List.of("run", "--count", "5000", "--size", "128"), e.get(2).args(), "spec_file beside the workload");
        assertEquals(List.of("throughput"), e.get(3).args());
        // (each command's own usage checks need the drivers on the class path: BatchIT runs them)
    }

    private void refused(String workload, String option, String words) throws Exception {
        SpecException x = assertThrows(SpecException.class, () -> {
            for (BatchCommand.Entry e : BatchCommand.entries(yaml(workload), tmp.resolve("w.yaml"))) {
                BatchCommand.check(e);
            }
        });
        assertEquals(option, x.option(), x.getMessage());
        assertTrue(x.getMessage().contains(words), x.getMessage());
    }

    /** Issue 28: a workload with a key given twice is refused naming the key. */
    @Test
    void aWorkloadKeyGivenTwiceIsRefusedNamingIt() throws Exception {
        Path w = Files.writeString(tmp.resolve("dup.yaml"), "runs:\n  - command: run\n    spec: {count: 5}\n"
                + "    spec: {count: 50}\n");
        SpecException x = assertThrows(SpecException.class, () -> BatchCommand.read(w));
        assertEquals("WORKLOAD: " + w + " gives the key 'spec' twice (the second at line 4); keep one", x.getMessage());
    }

    @Test
    void everyMistakeIsOneLineNamingTheEntryAndTheField() throws Exception {
        refused("jobs: []", "WORKLOAD", "unknown field 'jobs'");
        refused("runs: []", "WORKLOAD", "has no runs");
        refused("runs: [{command: sweep}]", "runs[0].command", "must be run, throughput or scenario, got 'sweep'");
        refused("runs: [{command: run, spec: {cont: 5}}]", "runs[0].spec", "unknown field 'cont'");
        refused("runs: [{command: run, colour: red}]", "runs[0]", "unknown field 'colour'");
        refused("runs: [{command: run, name: x}, {command: run, name: x}]", "runs[1].name", "earlier run too");
        refused("runs: [{command: run, name: ../x}]", "runs[0].name", "folder name");
        refused("runs: [{command: run, options: [--out, y]}]", "runs[0].options", "the batch's to set");
        refused("runs: [{command: run, spec: {count: 1}, spec_file: s.json}]", "runs[0]", "not both");
        refused("runs: [{command: run, spec_file: nowhere.json}]", "runs[0].spec_file", "does not exist");
        refused("runs: [{command: throughput, spec: {samples: 0}}]", "01-throughput", "--samples");
        refused("runs: [{command: run, name: big, options: [--rate, abc]}]", "big", "--rate");
    }
}
