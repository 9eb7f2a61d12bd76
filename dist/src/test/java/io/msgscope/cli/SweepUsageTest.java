package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Every sweep value is checked before any point runs (M7, issue 7): the driver's own option checks
 * ({@code Driver#checkOptions}) for {@code --opt-values}, the child command's usage checks for the
 * other parameters. One line naming the option, the value and what is allowed; exit 2; nothing written.
 */
class SweepUsageTest {
    @TempDir
    Path tmp;

    private String[] args(String... a) {
        List<String> l = new ArrayList<>(List.of("sweep", "--out", tmp.resolve("out").toString()));
        l.addAll(List.of(a));
        return l.toArray(String[]::new);
    }

    /** Runs the sweep in-process and returns its one error line, checking exit 2 and that nothing ran. */
    private String usageError(String... a) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args(a));
        String line = Usage.assertUsageError(code, out.toString(), err.toString(), "msgscope sweep: ");
        assertFalse(Files.exists(tmp.resolve("out")), "no point ran, no folder written");
        return line;
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "amqp | tx_size=1,10,x      | tx_size=x | --opt tx_size: must be a whole number between 0 and 16777216",
        "amqp | confirm=0,5         | confirm=5 | --opt confirm: cannot be used with --opt tx_size",
        "mqtt | qos=0,1,3           | qos=3     | --opt qos: must be between 0 and 2, got 3",
        "mqtt | version=3,4         | version=4 | --opt version: must be 3 (MQTT 3.1.1) or 5",
        "nats | storage=file,disk   | storage=disk | --opt storage: must be file or memory",
        "zmq  | hwm=0,-1            | hwm=-1    | --opt hwm: must be between 0 and 2147483647",
        "tcp  | via=relay,hop       | via=hop   | --opt via: must be",
        "tcp  | wobble=true         | wobble=true | is not an option of the tcp driver; it knows advertise, bind, nodelay, port, via"})
    void everyOptionValueIsCheckedByTheDriverBeforeAnyPointRuns(String driver, String values, String bad,
                                                                 String expected) {
        List<String> a = new ArrayList<>(List.of("--driver", driver, "--opt-values", values));
        if (values.startsWith("confirm")) {
            a.addAll(List.of("--opt", "tx_size=10"));
        }
        if (values.startsWith("storage")) {
            a.addAll(List.of("--opt", "jetstream=true"));
        }
        String line = usageError(a.toArray(String[]::new));
        assertTrue(line.startsWith("msgscope sweep: --opt-values: value " + bad + " refused: "), line);
        assertTrue(line.contains(expected), line);
    }

    @Test
    void goodValuesPassTheDriversChecks() {
        Map<String, List<Map<String, String>>> good = Map.of(
                "amqp", List.of(Map.of("tx_size", "10"), Map.of("confirm", "100", "persistent", "true")),
                "mqtt", List.of(Map.of("qos", "2"), Map.of("version", "3", "max_inflight", "50")),
                "nats", List.of(Map.of("jetstream", "true", "storage", "memory")),
                "zmq", List.of(Map.of("hwm", "1000", "port", "0")),
                "tcp", List.of(Map.of()));
        good.forEach((d, list) -> list.forEach(opts -> assertDoesNotThrow(() -> Drivers.load().get(d)
                .checkOptions(new DriverSpec("", 0, "", 64, 0, opts, "")), d + " " + opts)));
        SpecException e = assertThrows(SpecException.class, () -> Drivers.load().get("amqp")
                .checkOptions(new DriverSpec("", 0, "http://x", 64, 0, Map.of(), "")));
        assertEquals("--uri", e.option());
    }

    @Test
    void otherParametersAreCheckedThroughTheRunsOwnChecks() {
        String l = usageError("--sizes", "64,16", "--count", "1000");
        assertTrue(l.startsWith("msgscope sweep: --sizes: value 16 refused: --size: must be between 32"), l);
        l = usageError("--windows", "10,5000", "--count", "1000");
        assertTrue(l.startsWith("msgscope sweep: --windows: value 5000 refused: --window: must be between 1 and count-1"), l);
        l = usageError("--in-flights", "1,10,0");
        assertTrue(l.startsWith("msgscope sweep: --in-flights: in-flight count '0' must be a whole number"), l);
        l = usageError("--sizes", "64", "--bogus", "3");
        assertTrue(l.startsWith("msgscope sweep: run: ") && l.contains("--bogus"), l);
        l = usageError("--in-flights", "1,10", "--count", "1000");
        assertTrue(l.startsWith("msgscope sweep: throughput: ") && l.contains("--count"), l);
    }

    @Test
    void parametersMustBelongToTheMode() {
        String l = usageError("--in-flights", "1,10", "--mode", "run");
        assertTrue(l.startsWith("msgscope sweep: --in-flights: needs --mode throughput"), l);
        l = usageError("--rates", "1k,2k", "--mode", "throughput");
        assertTrue(l.startsWith("msgscope sweep: --rates: needs --mode run"), l);
        l = usageError("--sizes", "64", "--mode", "batch");
        assertTrue(l.startsWith("msgscope sweep: --mode: must be run or throughput, got 'batch'"), l);
        l = usageError("--opt-values", "tx_size=1,2", "--driver", "amqp", "--opt", "tx_size=5");
        assertTrue(l.startsWith("msgscope sweep: --opt tx_size: is set by --opt-values"), l);
        l = usageError("--opt-values", "tx_size");
        assertTrue(l.startsWith("msgscope sweep: --opt-values: must be KEY=v1,v2"), l);
        l = usageError("--sizes", "64", "--in-flights", "1");
        assertTrue(l.contains("give exactly one of"), l);
    }

    @Test
    void runAndThroughputRefuseABadOptionValueBeforeStartingAnAgent() {
        for (String cmd : List.of("run", "throughput")) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), cmd, "--driver", "mqtt",
                    "--opt", "qos=3", "--out", tmp.resolve(cmd).toString());
            assertEquals("msgscope " + cmd + ": --opt qos: must be between 0 and 2, got 3",
                    Usage.assertUsageError(code, out.toString(), err.toString(), "--opt qos"));
            assertFalse(Files.exists(tmp.resolve(cmd)), "no folder, no agent");
        }
    }
}
