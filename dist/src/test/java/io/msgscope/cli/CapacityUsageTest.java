package io.msgscope.cli;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input to {@code msgscope capacity} (issue 31 item 4): one line naming the option, exit 2, no results folder,
 * nothing run — the steps' own arguments go through {@code run}'s checks first.
 */
class CapacityUsageTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--objective 5ms                         | --objective: '5ms' is not PERCENTILE=BOUND",
        "--objective p99=5                       | --objective: 'p99=5' needs a unit",
        "--objective p99=5xs                     | --objective: 'p99=5xs' needs a unit",
        "--objective p97=5ms                     | --objective: 'p97' is not a percentile",
        "--objective p99=5ms --from 2k --to 1k   | --from: must not be above --to",
        "--objective p99=5ms --from x            | --from: must be a rate",
        "--objective p99=5ms --precision 0       | --precision: must be between 0.1 and 100",
        "--objective p99=5ms --hold 2            | --hold: must be between 3 and 3600",
        "--objective p99=5ms --max-hold 4        | --max-hold: must be between --hold (15)",
        "--objective p99=5ms --repeats 0         | --repeats: must be between 1 and 20",
        // a grid (--rates) instead of a search
        "--objective p99=5ms --rates 2k,1k       | --rates: must be ascending and distinct, got 1k after 2000",
        "--objective p99=5ms --rates 1k,1k       | --rates: must be ascending and distinct",
        "--objective p99=5ms --rates 1k,,2k      | --rates: must be a rate in msg/s (k = 1000), got",
        "--objective p99=5ms --rates 1k..4k      | --rates: a range needs its step as a percentage",
        "--objective p99=5ms --rates 4k..1k/5%   | --rates: FROM must be below TO",
        "--objective p99=5ms --rates 1k..4k/0%   | --rates: the step must be between 0.1 % and 1000 %",
        "--objective p99=5ms --rates 1..1000000/0.1% | --rates: holds more than 1000 rates",
        "--objective p99=5ms --rates 1k,2k --from 1k | --from: does not go with --rates",
        "--objective p99=5ms --rates 1k,2k --precision 5% | --precision: does not go with --rates",
        "--objective p99=5ms --rates 1k,2k --max-steps 9 | --max-steps: does not go with --rates",
        "--objective p99=5ms --rate 1000         | --rate: is set by the search",
        "--objective p99=5ms --count 1000        | --count: is set by the search",
        "--objective p99=5ms --size 8            | --size:",
        "--objective p99=5ms --opt wobble=1      | --opt",
        "--objective p99=5ms --knee-from /nonexistent | --knee-from: /nonexistent holds no throughput run",
        // scenario steps (--scenario): their options only with it, trace runs' only without it
        "--objective p99=5ms --publishers 2      | --publishers: is not an option of capacity or of each step's "
                + "'msgscope run' (a scenario option? add --scenario NAME)",
        "--objective p99=5ms --scenario fan-in --relay-burn-ns 5 | --relay-burn-ns: is not an option of capacity or "
                + "of each step's 'msgscope scenario'",
        "--objective p90=5ms --scenario fan-in   | --objective: a scenario reports p50, p95, p99 and p999",
        "--objective p99=5ms --scenario fan-on   | --scenario:",
        "--objective p99=5ms --scenario fan-in --duration 5 | --duration: is set by the search",
        "--objective p99=5ms --scenario fan-in --driver tcp | --driver: scenario mode needs a driver with topics"})
    void refusedBeforeAnythingRuns(String args, String expected) {
        List<String> a = new ArrayList<>(List.of("capacity", "--out", tmp.resolve("out").toString()));
        a.addAll(List.of(args.trim().split("\\s+")));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), a.toArray(String[]::new));
        String line = Usage.assertUsageError(code, out.toString(), err.toString(), "msgscope capacity: ");
        assertTrue(line.contains(expected), line);
        assertFalse(Files.exists(tmp.resolve("out")), "nothing ran, no folder written");
    }
}
