package io.msgscope.coordinator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.coordinator.batch.BatchResult;
import io.msgscope.coordinator.batch.BatchRun;
import io.msgscope.coordinator.results.Unfinished;
import io.msgscope.core.SpecException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code msgscope batch WORKLOAD}: a workload file, a set of runs (issue 18, as the OpenMessaging Benchmark's
 * workload files are), run one after the other, each exactly as its command would run it.
 *
 * <pre>
 * runs:
 *   - name: tcp-64                   # its folder under --out (default: NN-COMMAND)
 *     command: run                   # run, throughput or scenario
 *     spec: {count: 100000, rate: 20000}   # the fields of a summary.json's spec (optional)
 *   - name: again
 *     command: run
 *     spec_file: results/r1/summary.json    # or a spec file, as --spec takes it
 *     options: [--plot]              # more command-line options (optional; they win over the spec's)
 * </pre>
 *
 * Every entry is checked before the first run starts (its spec fields, then the command's own usage checks):
 * a bad entry is one line naming it and the field, exit 2, nothing run. Then each run gets its own folder with
 * its usual results and {@code run.log}; {@code batch.json} and {@code batch.md} list them with status, rate and
 * latency, and the workload is copied beside them. Exit 0 when every run is ok, 1 when one failed (the others
 * still ran).
 */
@Command(name = "batch", sortOptions = false, mixinStandardHelpOptions = true,
        description = {"Runs a workload file: a set of runs (run, throughput, scenario) one after the other, each "
                + "in its own folder, listed in batch.json and batch.md. Every entry is checked before the first "
                + "run starts."},
        footer = {"", "Exit codes: 0 ok, 1 a run failed (batch.json still written), 2 bad usage, 130 interrupted (Ctrl-C or",
                  "SIGTERM: the run under way keeps what it measured; batch.json lists the runs that finished).",
                  "", "Example:", "  msgscope batch examples/workload.yaml --out results/b1"})
public final class BatchCommand implements Callable<Integer> {
    private static final Set<String> COMMANDS = Set.of("run", "throughput", "scenario");
    private static final Set<String> KEYS = Set.of("name", "command", "spec", "spec_file", "options");

    @CommandLine.Spec
    CommandSpec commandSpec;

    @Parameters(index = "0", paramLabel = "WORKLOAD",
            description = "YAML (.yaml, .yml) or JSON: runs: a list of {name, command, spec or spec_file, options}.")
    Path workload;

    @Mixin
    OutputOptions output;

    @Mixin
    StoreOptions store = new StoreOptions();

    @Option(names = "--run-timeout", paramLabel = "S", defaultValue = "3600",
            description = "Seconds a run may take before it is killed and counted failed (default: ${DEFAULT-VALUE}).")
    long runTimeoutS;

    /** One checked entry: its folder name, command and the child's full arguments (spec expanded). */
    record Entry(String name, String command, List<String> args) {
    }

    @Override
    public Integer call() throws Exception {
        if (runTimeoutS < 1) {
            throw new SpecException("--run-timeout", "must be at least 1 s, got " + runTimeoutS);
        }
        List<Entry> entries = entries(read(workload), workload);
        for (Entry e : entries) {
            check(e);
        }
        PrintWriter out = commandSpec.commandLine().getOut();
        store.open(); // each run records itself in this store, with these labels (issue 34)
        Path dir = output.prepare();
        Files.copy(workload, dir.resolve("workload" + extension(workload)), StandardCopyOption.REPLACE_EXISTING);
        List<BatchRun> runs = new ArrayList<>();
        List<String> notFinished = new ArrayList<>();
        ChildRun.Points points = new ChildRun.Points();
        try (Interrupts signals = Interrupts.install(points, System.err)) {
            for (int i = 0; i < entries.size(); i++) {
                Entry e = entries.get(i);
                if (points.interruptedBy() != null) {
                    notFinished.add(e.name());
                    continue;
                }
                Path runDir = dir.resolve(e.name());
                out.printf(Locale.ROOT, "[%d/%d] %s: msgscope %s%n", i + 1, entries.size(), e.name(),
                        String.join(" ", e.args()));
                out.flush();
                long t0 = System.nanoTime();
                int code = ChildRun.run(e.args(), runDir, runTimeoutS, "batch (--run-timeout)", points);
                double wall = (System.nanoTime() - t0) / 1e9;
                BatchRun run = BatchRun.read(e.name(), e.command(), e.args(), runDir, code, wall);
                out.println(run.line());
                out.flush();
                if (points.interruptedBy() != null && !run.interrupted()) {
                    notFinished.add(e.name()); // cut before it kept anything of its own
                } else {
                    runs.add(run);
                }
            }
        }
        String signal = points.interruptedBy();
        Unfinished stopped = signal == null ? null : new Unfinished(signal, runs.size(), entries.size(), notFinished);
        BatchResult result = new BatchResult(runs, stopped);
        result.write(dir);
        if (stopped != null) {
            out.println("INTERRUPTED: " + stopped.line());
        }
        out.println("results in " + dir + " (batch.json, batch.md, a folder per run)");
        out.flush();
        return stopped != null ? ExitCodes.INTERRUPTED : result.failed() ? ExitCodes.FAILED : ExitCodes.OK;
    }

    static JsonNode read(Path file) {
        try {
            JsonNode root = SpecFile.parse(file, "WORKLOAD");
            if (root == null || !root.isObject()) {
                throw new SpecException("WORKLOAD", file + " holds no workload (an object with runs: [...])");
            }
            return root;
        } catch (java.nio.file.NoSuchFileException e) {
            throw new SpecException("WORKLOAD", file + " does not exist");
        } catch (IOException e) {
            String m = String.valueOf(e.getMessage());
            throw new SpecException("WORKLOAD", "cannot read " + file + ": " + m.lines().findFirst().orElse(m));
        }
    }

    /** The workload's entries, each with its child arguments; the first problem is one line naming the entry. */
    static List<Entry> entries(JsonNode root, Path file) {
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!k.equals("runs")) {
                throw new SpecException("WORKLOAD", "unknown field '" + k + "' in " + file + " (it takes runs)");
            }
        }
        JsonNode runs = root.path("runs");
        if (!runs.isArray() || runs.isEmpty()) {
            throw new SpecException("WORKLOAD", file + " has no runs: give runs: [ {command: run, ...}, ... ]");
        }
        List<Entry> entries = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < runs.size(); i++) {
            String at = "runs[" + i + "]";
            JsonNode r = runs.get(i);
            if (!r.isObject()) {
                throw new SpecException(at, "must be an object with command and spec, spec_file or options");
            }
            for (Iterator<String> it = r.fieldNames(); it.hasNext(); ) {
                String k = it.next();
                if (!KEYS.contains(k)) {
                    throw new SpecException(at, "unknown field '" + k + "' (a run takes " + String.join(", ",
                            new java.util.TreeSet<>(KEYS)) + ")");
                }
            }
            String command = r.path("command").asText("");
            if (!COMMANDS.contains(command)) {
                throw new SpecException(at + ".command", "must be run, throughput or scenario, got '" + command + "'");
            }
            String name = r.has("name") ? r.get("name").asText() : String.format(Locale.ROOT, "%02d-%s", i + 1, command);
            if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) {
                throw new SpecException(at + ".name", "must be a folder name of letters, digits, '.', '_' and '-', got '"
                        + name + "'");
            }
            if (!names.add(name)) {
                throw new SpecException(at + ".name", "'" + name + "' is the name of an earlier run too");
            }
            List<String> options = new ArrayList<>();
            if (r.has("options")) {
                if (!r.get("options").isArray()) {
                    throw new SpecException(at + ".options", "must be a list of command-line words, e.g. [--plot]");
                }
                r.get("options").forEach(o -> options.add(o.asText()));
            }
            for (String o : options) {
                if (o.equals("--out") || o.startsWith("--out=") || o.equals("--spec") || o.startsWith("--spec=")) {
                    throw new SpecException(at + ".options", o + " is the batch's to set: each run's folder is --out/"
                            + "NAME, and its spec is given as spec or spec_file");
                }
            }
            if (r.has("spec") && r.has("spec_file")) {
                throw new SpecException(at, "give spec or spec_file, not both");
            }
            List<String> args;
            try {
                if (r.has("spec")) {
                    if (!r.get("spec").isObject()) {
                        throw new SpecException("--spec", "must be an object of spec fields");
                    }
                    args = SpecFile.expand(command, r.get("spec"), options, file + " " + at + ".spec");
                } else if (r.has("spec_file")) {
                    Path spec = resolve(file, r.get("spec_file").asText());
                    args = SpecFile.expand(command, SpecFile.read(spec), options, spec.toString());
                } else {
                    args = new ArrayList<>(List.of(command));
                    args.addAll(options);
                }
            } catch (SpecException e) {
                // the reason without the "--spec: " the spec reader puts first: the entry's field is named instead
                String why = e.getMessage().substring(Math.min(e.getMessage().length(), e.option().length() + 2));
                throw new SpecException(at + (r.has("spec") ? ".spec" : ".spec_file"), why);
            }
            entries.add(new Entry(name, command, List.copyOf(args)));
        }
        return entries;
    }

    /** A spec file named relative to the workload file's folder (or absolute). */
    private static Path resolve(Path workloadFile, String name) {
        Path p = Path.of(name);
        Path base = workloadFile.toAbsolutePath().getParent();
        return p.isAbsolute() || base == null ? p : base.resolve(p);
    }

    /** The entry's arguments through its command's own parser and usage checks, as sweep checks its points. */
    static void check(Entry e) {
        Object cmd = switch (e.command()) {
            case "run" -> new RunCommand();
            case "throughput" -> new ThroughputCommand();
            default -> new ScenarioCommand();
        };
        CommandLine cl = new CommandLine(cmd);
        try {
            cl.parseArgs(e.args().subList(1, e.args().size()).toArray(String[]::new));
            if (cmd instanceof RunCommand r) {
                r.check();
            } else if (cmd instanceof ThroughputCommand t) {
                t.check();
            }
        } catch (CommandLine.ParameterException x) {
            throw new SpecException(e.name(), x.getMessage().replace('\n', ' '));
        } catch (SpecException x) {
            throw new SpecException(e.name(), x.getMessage()); // "--samples: must be ..."
        }
    }

    private static String extension(Path file) {
        String n = file.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot < 0 ? ".yaml" : n.substring(dot);
    }
}
