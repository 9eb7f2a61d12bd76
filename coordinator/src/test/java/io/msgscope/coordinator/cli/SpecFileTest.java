package io.msgscope.coordinator.cli;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code --spec FILE} (issue 18): a spec's fields become options, the user's own win, bad specs are refused. */
class SpecFileTest {
    @TempDir
    Path dir;

    private Path file(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void aSummarysSpecBecomesOptionsBeforeTheUsersWhichWin() throws Exception {
        Path f = file("summary.json", "{\"mode\": \"trace\", \"status\": \"ok\", \"spec\": {\"count\": 20000, "
                + "\"warmup\": 2000, \"size\": 64, \"rate\": 20000.0, \"padding\": \"zeros\", \"window\": 100, "
                + "\"pin\": false, \"driver\": \"mqtt\", \"uri\": \"tcp://127.0.0.1:1883\", "
                + "\"driver_options\": {\"qos\": \"1\", \"version\": \"5\"}}}");
        assertArrayEquals(new String[] {"run", "--warmup", "2000", "--size", "64", "--rate", "20000.0", "--padding",
                "zeros", "--window", "100", "--no-pin", "--driver", "mqtt", "--uri", "tcp://127.0.0.1:1883",
                "--opt", "version=5", "--count", "5", "--opt", "qos=2", "--out", "x"},
                SpecFile.expand(new String[] {"run", "--spec", f.toString(), "--count", "5", "--opt", "qos=2",
                        "--out", "x"}));
    }

    @Test
    void aYamlSpecOfItsOwnAndScenarioSecondsAndLists() throws Exception {
        Path f = file("fan.yaml", "scenario: fan-out\nsubscribers: 8\nwarmup_ms: 1500\nduration_ms: 30000\n"
                + "source_addresses: [127.0.0.2, 127.0.0.3]\ntopic_prefix: null\nallow_duplicates: true\n"
                + "drain_timeout_ms: 12000\n");
        assertArrayEquals(new String[] {"scenario", "--scenario", "fan-out", "--subscribers", "8", "--warmup", "1.5",
                "--duration", "30", "--source-addresses", "127.0.0.2,127.0.0.3", "--allow-duplicates",
                "--drain-timeout", "12000"},
                SpecFile.expand(new String[] {"scenario", "--spec=" + f}));
    }

    @Test
    void noSpecNoChangeAndOtherCommandsAreLeftAlone() {
        String[] a = {"run", "--count", "10"};
        assertArrayEquals(a, SpecFile.expand(a));
        String[] r = {"report", "--spec", "x"};
        assertArrayEquals(r, SpecFile.expand(r));
    }

    @Test
    void badSpecsAreRefusedNamingTheField() throws Exception {
        Path trace = file("t.json", "{\"mode\": \"trace\", \"spec\": {\"count\": 5}}");
        assertEquals("--spec: " + trace + " is the spec of a trace run; give it to msgscope run, not scenario",
                refused("scenario", trace));
        Path unknown = file("u.json", "{\"count\": 5, \"colour\": \"red\"}");
        assertEquals("--spec: unknown field 'colour' in " + unknown + " for msgscope run (it takes driver, uri, size, "
                + "padding, count, warmup, rate, window, pin, drain_timeout_ms, socket_buffer, send_batch, seed, "
                + "cpu_every, phases, faults, driver_options)", refused("run", unknown));
        Path masked = file("m.json", "{\"driver\": \"amqp\", \"uri\": \"amqp://guest:****@127.0.0.1:5672/%2f\"}");
        assertEquals("--spec: field 'uri' of " + masked + " has its password masked "
                + "(amqp://guest:****@127.0.0.1:5672/%2f); give --uri with the password", refused("run", masked));
        Path opt = file("o.json", "{\"driver\": \"nats\", \"driver_options\": {\"token\": \"****\"}}");
        assertEquals("--spec: driver option 'token' of " + opt + " is masked (****); give --opt token=VALUE",
                refused("run", opt));
        assertEquals("--spec: " + dir.resolve("none.json") + " does not exist", refused("run", dir.resolve("none.json")));
        Path list = file("l.json", "[1, 2]");
        assertEquals("--spec: " + list + " holds no spec (a JSON or YAML object)", refused("run", list));
    }

    /** Issue 28: a key given twice is refused naming it (the last value used to win silently), in YAML and JSON. */
    @Test
    void aKeyGivenTwiceIsRefusedNamingIt() throws Exception {
        Path yaml = file("d.yaml", "count: 5\nsize: 64\ncount: 500\n");
        assertEquals("--spec: " + yaml + " gives the key 'count' twice (the second at line 3); keep one",
                refused("run", yaml));
        Path json = file("d.json", "{\"driver\": \"nats\", \"driver_options\": {\"qos\": \"1\", \"qos\": \"2\"}}");
        assertEquals("--spec: " + json + " gives the key 'qos' twice (the second at line 1); keep one",
                refused("run", json));
    }

    @Test
    void aMaskedPasswordGivenAgainIsTaken() throws Exception {
        Path masked = file("m.json", "{\"driver\": \"amqp\", \"uri\": \"amqp://guest:****@127.0.0.1:5672/%2f\"}");
        assertArrayEquals(new String[] {"run", "--driver", "amqp", "--uri", "amqp://guest:guest@127.0.0.1:5672/%2f"},
                SpecFile.expand(new String[] {"run", "--spec", masked.toString(), "--uri",
                        "amqp://guest:guest@127.0.0.1:5672/%2f"}));
    }

    @Test
    void givenOptionsNamesAndEachDriverOptionKey() {
        assertEquals(Set.of("--count", "--opt", "--opt qos", "--opt version", "--uri"),
                SpecFile.given(List.of("--count", "5", "--opt", "qos=1", "--opt=version=3", "--uri=tcp://h:1")));
    }

    private static String refused(String command, Path f) {
        return assertThrows(SpecException.class,
                () -> SpecFile.expand(new String[] {command, "--spec", f.toString()})).getMessage();
    }

    /**
     * Issue 31: phases as a YAML list become the shorthand; a replayed summary of a phases run leaves out its count and
     * rate (the phases schedule the one and give the others).
     */
    @Test
    void phasesAsAListOrFromASummaryBecomeOnePhasesOption() throws Exception {
        Path yaml = file("steps.yaml", "phases:\n  - {name: steady, duration: 30s, rate: 5k}\n"
                + "  - {name: ramp, duration: 60s, rate: 5k..50k}\n  - {duration: 10s, rate: 0}\n");
        assertArrayEquals(new String[] {"run", "--phases", "steady:30s@5k, ramp:60s@5k..50k, 10s@0", "--out", "x"},
                SpecFile.expand(new String[] {"run", "--spec", yaml.toString(), "--out", "x"}));
        Path summary = file("summary.json", "{\"mode\": \"trace\", \"spec\": {\"count\": 250000, \"rate\": 0.0, "
                + "\"window\": 100, \"phases\": \"a:10s@5000, b:20s@10000\"}}");
        assertArrayEquals(new String[] {"run", "--window", "100", "--phases", "a:10s@5000, b:20s@10000"},
                SpecFile.expand(new String[] {"run", "--spec", summary.toString()}));
        Path bad = file("bad.yaml", "phases:\n  - {name: steady, rate: 5k}\n");
        SpecException e = assertThrows(SpecException.class,
                () -> SpecFile.expand(new String[] {"run", "--spec", bad.toString()}));
        assertEquals("--spec", e.option());
    }

    /**
     * Issue 31 in scenario mode: {@code phases:} (the total rate over all publishers) becomes {@code --phases}, and a
     * spec that also holds a rate and a duration leaves them to the phases.
     */
    @Test
    void aScenarioSpecTakesPhasesInsteadOfRateAndDuration() throws Exception {
        Path yaml = file("scenario.yaml", "publishers: 4\nphases:\n  - {name: a, duration: 2s, rate: 2k}\n"
                + "  - {name: pause, duration: 1s, rate: 0}\nrate: 100\nduration_ms: 60000\nwarmup_ms: 1000\n");
        assertArrayEquals(new String[] {"scenario", "--publishers", "4", "--phases", "a:2s@2k, pause:1s@0",
                "--warmup", "1"}, SpecFile.expand(new String[] {"scenario", "--spec", yaml.toString()}));
    }

    /** Issue 31 item 3: a backlog phase in the list form, by its message count with its consumers paused. */
    @Test
    void aBacklogPhaseInTheListFormBecomesTheShorthand() throws Exception {
        Path yaml = file("backlog.yaml", "phases:\n  - {name: base, duration: 1s, rate: 2k}\n"
                + "  - {name: fill, messages: 20k, rate: 10k, consumers: paused}\n"
                + "  - {name: drain, duration: 2s, rate: 2k, consumers: running}\n");
        assertArrayEquals(new String[] {"run", "--phases", "base:1s@2k, fill:20kmsg@10k/paused, drain:2s@2k"},
                SpecFile.expand(new String[] {"run", "--spec", yaml.toString()}));
        Path drained = file("drained.yaml", "phases:\n  - {name: fill, messages: 20k, rate: 10k, consumers: paused}\n"
                + "  - {name: drain, duration: 30s, rate: 0, until: drained}\n  - {name: after, duration: 2s, rate: 2k}\n");
        assertArrayEquals(new String[] {"run", "--phases", "fill:20kmsg@10k/paused, drain:30s@0/drained, after:2s@2k"},
                SpecFile.expand(new String[] {"run", "--spec", drained.toString()}));
        Path depth = file("depth.yaml", "phases:\n  - {name: fill, duration: 60s, rate: 10k, consumers: paused, "
                + "backlog: 20k}\n  - {name: drain, duration: 30s, rate: 2k, until: drained}\n"
                + "  - {name: after, duration: 2s, rate: 2k}\n");
        assertArrayEquals(new String[] {"run", "--phases",
                "fill:60s@10k/paused/backlog=20k, drain:30s@2k/drained, after:2s@2k"},
                SpecFile.expand(new String[] {"run", "--spec", depth.toString()}));
        for (String bad : new String[] {"{name: f, messages: 5, duration: 1s, rate: 1k}",
                "{name: f, duration: 1s, rate: 1k, consumers: stopped}", "{name: d, duration: 1s, rate: 0, until: empty}"}) {
            Path f = file("bad.yaml", "phases:\n  - " + bad + "\n");
            SpecException e = assertThrows(SpecException.class,
                    () -> SpecFile.expand(new String[] {"run", "--spec", f.toString()}));
            assertEquals("--spec", e.option());
        }
    }

    /** Issue 32: faults as a YAML list of {at, action, target} become the --faults shorthand; one missing a field is refused. */
    @Test
    void faultsAsAListBecomeOneFaultsOption() throws Exception {
        Path yaml = file("faults.yaml", "rate: 1000\nfaults:\n  - {at: 30s, action: pause, target: node1}\n"
                + "  - {at: 35s, action: resume, target: node1}\n");
        assertArrayEquals(new String[] {"run", "--rate", "1000", "--faults", "30s:pause:node1, 35s:resume:node1"},
                SpecFile.expand(new String[] {"run", "--spec", yaml.toString()}));
        Path bad = file("badfault.yaml", "faults:\n  - {at: 30s, target: node1}\n");
        SpecException e = assertThrows(SpecException.class,
                () -> SpecFile.expand(new String[] {"run", "--spec", bad.toString()}));
        assertEquals("--spec", e.option());
    }

    /** Issue 32 item 5: a scenario summary's spec records its faults, and they load back as --faults. */
    @Test
    void aScenarioSummarysFaultsLoadBack() throws Exception {
        Path summary = file("sf.json", "{\"mode\": \"scenario\", \"spec\": {\"scenario\": \"fan-in\", "
                + "\"publishers\": 2, \"faults\": \"2s:kill:node1, 3s:restart:node1\"}}");
        assertArrayEquals(new String[] {"scenario", "--scenario", "fan-in", "--publishers", "2", "--faults",
                "2s:kill:node1, 3s:restart:node1"}, SpecFile.expand(new String[] {"scenario", "--spec",
                summary.toString()}));
    }
}
