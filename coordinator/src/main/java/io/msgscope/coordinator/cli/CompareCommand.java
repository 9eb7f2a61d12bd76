package io.msgscope.coordinator.cli;

import io.msgscope.analysis.output.PlotUnavailableException;
import io.msgscope.analysis.output.Plotter;
import io.msgscope.coordinator.report.ComparePage;
import io.msgscope.coordinator.report.Comparison;
import io.msgscope.coordinator.report.SweepComparison;
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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code msgscope compare DIR1 DIR2 ...}: runs side by side. */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Put results side by side (Markdown table; --out: compare.md/.html/.dat/.gp). Run folders of any mode "
                               + "(run, throughput, scenario) of different drivers or brokers: the latency percentiles overlaid "
                               + "in compare.gp. Refuses results of different modes or settings (trace runs: size, count, rate; "
                               + "throughput: size, in-flight; scenarios: scenario, size, publishers, subscribers, rate, "
                               + "duration) unless --force. Sweep folders over the same parameter: msg/s, p50 and p99 against it, "
                               + "one curve each."},
        footer = {"",
                  "Exit codes: 0 ok, 1 plotting failed or a summary.json that is not a msgscope summary, 2 bad "
                          + "usage or runs not comparable."})
public final class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec commandSpec;

    @Parameters(paramLabel = "DIR", arity = "2..*",
            description = "At least two result folders (run, throughput, scenario), or sweep folders.")
    List<Path> dirs;

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
        int sweeps = 0;
        for (Path d : dirs) {
            boolean sweep = Files.isRegularFile(d.resolve("sweep.json"));
            if (!sweep && !Files.isRegularFile(d.resolve("summary.json"))) {
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
        if (plot && out == null) {
            throw new SpecException("--plot", "needs --out DIR");
        }
        String files;
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
            markdown = c.markdown();
            stdout.print(markdown);
            files = "compare.md, compare.html, compare.dat, compare.gp";
            writer = d -> unchecked(() -> c.write(d));
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
        return ExitCodes.OK;
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
