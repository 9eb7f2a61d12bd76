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
                + "source_addresses: [127.0.0.2, 127.0.0.3]\ntopic_prefix: null\nallow_duplicates: true\n");
        assertArrayEquals(new String[] {"scenario", "--scenario", "fan-out", "--subscribers", "8", "--warmup", "1.5",
                "--duration", "30", "--source-addresses", "127.0.0.2,127.0.0.3", "--allow-duplicates"},
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
                + "cpu_every, driver_options)", refused("run", unknown));
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
}
