package io.msgscope.coordinator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.msgscope.analysis.output.HumanFormat;
import io.msgscope.coordinator.report.SummaryView;
import io.msgscope.core.SpecException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
        footer = {"", "Example:", "  msgscope batch examples/workload.yaml --out results/b1"})
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
        Path dir = output.prepare();
        Files.copy(workload, dir.resolve("workload" + extension(workload)), StandardCopyOption.REPLACE_EXISTING);
        List<Map<String, Object>> rows = new ArrayList<>();
        boolean failed = false;
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            Path runDir = dir.resolve(e.name());
            out.printf(Locale.ROOT, "[%d/%d] %s: msgscope %s%n", i + 1, entries.size(), e.name(),
                    String.join(" ", e.args()));
            out.flush();
            long t0 = System.nanoTime();
            int code = ChildRun.run(e.args(), runDir, runTimeoutS, "batch (--run-timeout)");
            double wall = (System.nanoTime() - t0) / 1e9;
            Map<String, Object> row = row(e, runDir, code, wall);
            rows.add(row);
            failed |= !"ok".equals(row.get("status"));
            out.printf(Locale.ROOT, "      %s%s, %s msg/s, latency p50 %s, p99 %s (%.1f s)%n", row.get("status"),
                    row.get("failure_reason") == null ? "" : " (" + row.get("failure_reason") + ")",
                    row.get("msg_s") == null ? "-" : String.format(Locale.ROOT, "%,.0f", (Double) row.get("msg_s")),
                    latency(row.get("latency_p50_us")), latency(row.get("latency_p99_us")), wall);
            out.flush();
        }
        write(dir, rows, failed);
        out.println("results in " + dir + " (batch.json, batch.md, a folder per run)");
        out.flush();
        return failed ? ExitCodes.FAILED : ExitCodes.OK;
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

    /** One run's line of batch.json: where, how it ended, and its headline figures. */
    private static Map<String, Object> row(Entry e, Path runDir, int code, double wallS) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", e.name());
        m.put("command", e.command());
        m.put("arguments", e.args());
        m.put("folder", e.name());
        m.put("exit_code", code);
        Path summary = runDir.resolve("summary.json");
        JsonNode s = null;
        try {
            s = Files.isRegularFile(summary) ? new ObjectMapper().readTree(summary.toFile()) : null;
        } catch (IOException ex) {
            s = null;
        }
        SummaryView v = s == null ? null : new SummaryView(s);
        m.put("status", v == null ? "failed" : v.status());
        m.put("failure_reason", v == null ? "no summary.json (exit " + code + "; see " + e.name() + "/run.log)"
                : v.envelope().failureReason());
        m.put("spec_hash", v == null ? null : v.envelope().specHash());
        m.put("msg_s", v == null || Double.isNaN(v.msgPerS()) ? null : v.msgPerS());
        m.put("latency_p50_us", v == null || Double.isNaN(v.latencyUs("p50")) ? null : v.latencyUs("p50"));
        m.put("latency_p99_us", v == null || Double.isNaN(v.latencyUs("p99")) ? null : v.latencyUs("p99"));
        m.put("wall_s", wallS);
        return m;
    }

    private static String latency(Object us) {
        return us == null ? "-" : HumanFormat.duration((Double) us * 1e3);
    }

    private static void write(Path dir, List<Map<String, Object>> rows, boolean failed) throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("tool", io.msgscope.coordinator.SummaryJson.tool());
        root.put("mode", "batch");
        root.put("status", failed ? "failed" : "ok");
        root.put("runs", rows);
        Files.writeString(dir.resolve("batch.json"),
                new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root) + "\n",
                StandardCharsets.UTF_8);
        StringBuilder md = new StringBuilder("| run | command | status | msg/s | p50 | p99 | wall |\n"
                + "|---|---|---|---:|---:|---:|---:|\n");
        for (Map<String, Object> r : rows) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %.1f s |%n", r.get("name"),
                    r.get("command"), r.get("status"),
                    r.get("msg_s") == null ? "–" : String.format(Locale.ROOT, "%,.0f", (Double) r.get("msg_s")),
                    r.get("latency_p50_us") == null ? "–" : latency(r.get("latency_p50_us")),
                    r.get("latency_p99_us") == null ? "–" : latency(r.get("latency_p99_us")), (Double) r.get("wall_s")));
        }
        Files.writeString(dir.resolve("batch.md"), md.toString(), StandardCharsets.UTF_8);
    }
}
