package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.analysis.output.PlotUnavailableException;
import io.msgscope.analysis.output.Plotter;
import io.msgscope.coordinator.report.ComparePage;
import io.msgscope.coordinator.report.Comparison;
import io.msgscope.coordinator.report.SweepComparison;
import io.msgscope.coordinator.compare.FolderRuns;
import io.msgscope.coordinator.compare.GateRule;
import io.msgscope.coordinator.compare.RunData;
import io.msgscope.coordinator.compare.VerdictReport;
import io.msgscope.core.SpecException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code msgscope compare DIR1 DIR2 ...}: runs side by side; two runs, or a baseline and a candidate group, also with a
 * verdict per figure and an optional regression gate (issue 34).
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Put results side by side (Markdown table; --out: compare.md/.html/.dat/.gp). Run folders of any mode "
                               + "(run, throughput, scenario) of different drivers or brokers: the latency percentiles overlaid "
                               + "in compare.gp. Refuses results of different modes or settings (trace runs: size, count, rate; "
                               + "throughput: size, in-flight; scenarios: scenario, size, publishers, subscribers, rate, "
                               + "duration) unless --force. Sweep folders over the same parameter: msg/s, p50 and p99 against it, "
                               + "one curve each. Two run folders, or --baseline DIR... --candidate DIR...: a verdict per figure (better, "
                               + "worse, no significant difference, too few repeats to tell) with the change and its 95 %% "
                               + "interval, also in compare.json; --fail-if makes it a regression gate."},
        footer = {"",
                  "Exit codes: 0 ok, 1 plotting failed or a summary.json that is not a msgscope summary, 2 bad "
                          + "usage (a --fail-if that does not parse) or runs not comparable, 3 a --fail-if rule "
                          + "breached: a significant regression beyond its threshold."})
public final class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec commandSpec;

    @Parameters(paramLabel = "DIR", arity = "0..*",
            description = "At least two result folders (run, throughput, scenario), or sweep folders; two run folders "
                    + "get a verdict, the second against the first.")
    List<Path> dirs = new ArrayList<>();

    @Option(names = "--baseline", paramLabel = "DIR", arity = "1..*",
            description = "The baseline group: run folders, repeats of one spec (with --candidate, instead of DIR...).")
    List<Path> baseline = new ArrayList<>();

    @Option(names = "--candidate", paramLabel = "DIR", arity = "1..*",
            description = "The candidate group, judged against the baseline.")
    List<Path> candidate = new ArrayList<>();

    @Option(names = "--against-last", paramLabel = "N",
            description = "Judge the run folder(s) given (DIR... or --candidate) against the newest N runs of their spec "
                    + "that the run store recorded before them, finished ok, folders still there (issue 34).")
    Integer againstLast;

    @Option(names = "--store", paramLabel = "FILE|URL",
            description = "With --against-last: the run store to read (default: $MSGSCOPE_STORE, else "
                    + "~/.msgscope/history.db).")
    String store;

    @Option(names = "--fail-if", paramLabel = "RULE",
            description = "Regression gate, repeatable: 'FIGURE > +N%%' or 'FIGURE < -N%%' (figures: throughput, mean, "
                    + "p50, p90, p95, p99, p99.9), e.g. 'p99 > +10%%' or 'throughput < -5%%'; exit 3 when a change is "
                    + "significant and beyond it.")
    List<String> failIf = new ArrayList<>();

    @Option(names = "--out", paramLabel = "DIR",
            description = "Also write compare.md, compare.html (a page), compare.dat, compare.gp here.")
    Path out;

    @Option(names = "--force", defaultValue = "false",
            description = "Compare even when size, count or rate differ (default: ${DEFAULT-VALUE}).")
    boolean force;

    @Option(names = "--plot", defaultValue = "false",
            description = "With --out: render compare.gp to compare.png (needs gnuplot) (default: ${DEFAULT-VALUE}).")
    boolean plot;

    @Override
    public Integer call() throws IOException {
        PrintWriter stdout = commandSpec.commandLine().getOut();
        List<GateRule> rules = new ArrayList<>();
        for (String f : failIf) {
            try {
                rules.add(GateRule.parse(f));
            } catch (IllegalArgumentException e) {
                throw new SpecException("--fail-if", e.getMessage());
            }
        }
        if (store != null && againstLast == null) {
            throw new SpecException("--store", "is read only with --against-last N");
        }
        if (againstLast != null) {
            if (!baseline.isEmpty()) {
                throw new SpecException("--baseline", "give either --baseline or --against-last (the store's runs)");
            }
            List<Path> judged = candidate.isEmpty() ? dirs : candidate;
            if (judged.isEmpty() || (!candidate.isEmpty() && !dirs.isEmpty())) {
                throw new SpecException("DIR", "--against-last judges the run folders given as DIR... or --candidate");
            }
            for (Path d : judged) {
                if (!Files.isRegularFile(d.resolve(ResultFiles.SUMMARY))) {
                    throw new SpecException("DIR", d + " holds no summary.json (not a run folder)");
                }
                io.msgscope.coordinator.report.HtmlReport.checkSummary(d);
            }
            baseline = new ArrayList<>(io.msgscope.coordinator.history.StoredBaseline.lastRunsBefore(
                    io.msgscope.coordinator.history.StoreLocation.resolve(store, System.getenv()), judged, againstLast,
                    stdout));
            candidate = new ArrayList<>(judged);
            dirs = new ArrayList<>();
        }
        boolean groups = !baseline.isEmpty() || !candidate.isEmpty();
        if (groups) {
            if (baseline.isEmpty() || candidate.isEmpty()) {
                throw new SpecException(baseline.isEmpty() ? "--baseline" : "--candidate",
                        "needs at least one run folder (give --baseline DIR... and --candidate DIR...)");
            }
            if (!dirs.isEmpty()) {
                throw new SpecException("DIR", "give either DIR... or --baseline/--candidate, not both");
            }
            dirs = new ArrayList<>(baseline);
            dirs.addAll(candidate);
        } else if (dirs.size() < 2) {
            throw new SpecException("DIR", "give at least two result folders (or --baseline DIR... --candidate DIR...)");
        }
        int sweeps = 0;
        for (Path d : dirs) {
            boolean sweep = Files.isRegularFile(d.resolve("sweep.json"));
            if (!sweep && !Files.isRegularFile(d.resolve(ResultFiles.SUMMARY))) {
                throw new SpecException("DIR", d + " holds no summary.json (not a run folder) and no sweep.json"
                        + " (not a sweep folder)");
            }
            if (!sweep) {
                io.msgscope.coordinator.report.HtmlReport.checkSummary(d);
            }
            sweeps += sweep ? 1 : 0;
        }
        if (sweeps > 0 && sweeps < dirs.size()) {
            throw new SpecException("DIR", "give only run folders or only sweep folders (got " + sweeps
                    + " sweep(s) and " + (dirs.size() - sweeps) + " run(s))");
        }
        boolean verdict = groups || (dirs.size() == 2 && sweeps == 0);
        if (!rules.isEmpty() && !verdict) {
            throw new SpecException("--fail-if", "needs two run folders or --baseline/--candidate (a verdict to gate on)");
        }
        if (groups && sweeps > 0) {
            throw new SpecException("--baseline", "takes run folders, not sweep folders");
        }
        if (plot && out == null) {
            throw new SpecException("--plot", "needs --out DIR");
        }
        String files;
        VerdictReport report = null;
        String markdown;
        java.util.function.Function<Path, List<Path>> writer;
        if (sweeps > 0) {
            SweepComparison c = SweepComparison.load(dirs);
            markdown = c.markdown();
            stdout.print(markdown);
            files = "compare.md, compare.html, compare.dat, compare.gp (compare.png, compare-latency.png)";
            writer = d -> unchecked(() -> c.write(d));
        } else {
            Comparison c = Comparison.load(dirs);
            Optional<Comparison.Mismatch> bad = c.mismatch();
            if (bad.isPresent()) {
                Comparison.Mismatch m = bad.get();
                if (!force) {
                    throw new SpecException(m.field(), m.message().substring(m.field().length() + 1));
                }
                stdout.println("warning (--force): " + m.field() + " differs between the runs (" + m.values() + ")");
            }
            VerdictReport v = verdict ? verdicts(c, rules) : null;
            markdown = c.markdown() + (v == null ? "" : v.markdown());
            stdout.print(markdown);
            files = "compare.md, compare.html, compare.dat, compare.gp" + (v == null ? "" : ", compare.json");
            writer = d -> unchecked(() -> v == null ? c.write(d) : c.write(d, v.markdown(), v::writeJson));
            report = v;
        }
        if (out != null) {
            Path dir = OutputOptions.prepare(out, "compare");
            writer.apply(dir);
            stdout.println();
            stdout.println("written in " + dir + ": " + files);
            int code = ExitCodes.OK;
            if (plot) {
                try {
                    for (Path p : Plotter.render(dir)) {
                        stdout.println("plotted " + p);
                    }
                } catch (PlotUnavailableException e) {
                    stdout.println(e.getMessage());
                    code = ExitCodes.FAILED;
                }
            }
            // issue 29: a page beside the table, with the plots rendered above (none without --plot)
            stdout.println("page: " + ComparePage.write(dir, markdown));
            if (code != ExitCodes.OK) {
                stdout.flush();
                return code;
            }
        }
        stdout.flush();
        return report == null ? ExitCodes.OK : gate(report, stdout);
    }

    /** The candidate group (the second folder) against the baseline (the first), labelled as in the table. */
    private VerdictReport verdicts(Comparison c, List<GateRule> rules) throws IOException {
        int nb = baseline.isEmpty() ? 1 : baseline.size();
        List<String> labels = c.runs().stream().map(Comparison.Run::label).toList();
        List<RunData> runs = new FolderRuns(dirs, labels).runs();
        return new VerdictReport(runs.subList(0, nb), runs.subList(nb, runs.size()), rules);
    }

    /** The regression gate: a line per rule not judged, one per rule breached; exit 3 when any is. */
    private static int gate(VerdictReport v, PrintWriter stdout) {
        v.undecided().forEach(stdout::println);
        List<String> breaches = v.breaches();
        breaches.forEach(stdout::println);
        stdout.flush();
        return breaches.isEmpty() ? ExitCodes.OK : ExitCodes.REGRESSION;
    }

    private interface IoSupplier<T> {
        T get() throws IOException;
    }

    private static <T> T unchecked(IoSupplier<T> s) {
        try {
            return s.get();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
