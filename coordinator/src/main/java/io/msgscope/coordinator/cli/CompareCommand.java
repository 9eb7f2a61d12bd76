package io.msgscope.coordinator.cli;

import io.msgscope.analysis.output.PlotUnavailableException;
import io.msgscope.analysis.output.Plotter;
import io.msgscope.coordinator.report.Comparison;
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
        description = {"Put runs side by side (Markdown table; --out: compare.md/.dat/.gp).",
                "Runs of different drivers or brokers; the latency percentiles overlaid in",
                "compare.gp. Refuses runs whose message size, count or rate differ, unless --force."},
        footer = {"", "Exit codes: 0 ok, 1 plotting failed, 2 bad usage or runs not comparable."})
public final class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec commandSpec;

    @Parameters(paramLabel = "DIR", arity = "2..*", description = "Run folders written by msgscope run (at least two).")
    List<Path> dirs;

    @Option(names = "--out", paramLabel = "DIR", description = "Also write compare.md, compare.dat, compare.gp here.")
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
        for (Path d : dirs) {
            if (!Files.isRegularFile(d.resolve("summary.json"))) {
                throw new SpecException("DIR", d + " holds no summary.json (not a run folder)");
            }
        }
        Comparison c = Comparison.load(dirs);
        Optional<Comparison.Mismatch> bad = c.mismatch();
        if (bad.isPresent()) {
            Comparison.Mismatch m = bad.get();
            if (!force) {
                throw new SpecException(m.field(), m.message().substring(m.field().length() + 1));
            }
            stdout.println("warning (--force): " + m.field() + " differs between the runs (" + m.values() + ")");
        }
        stdout.print(c.markdown());
        if (out != null) {
            Path dir = RunCommand.prepareOut(out, "compare");
            c.write(dir);
            stdout.println();
            stdout.println("written: " + dir.resolve("compare.md") + ", compare.dat, compare.gp");
            if (plot) {
                try {
                    for (Path p : Plotter.render(dir)) {
                        stdout.println("plotted " + p);
                    }
                } catch (PlotUnavailableException e) {
                    stdout.println(e.getMessage());
                    stdout.flush();
                    return ExitCodes.FAILED;
                }
            }
        } else if (plot) {
            throw new SpecException("--plot", "needs --out DIR");
        }
        stdout.flush();
        return ExitCodes.OK;
    }
}
