package io.msgscope.coordinator.cli;

import io.msgscope.analysis.output.PlotUnavailableException;
import io.msgscope.analysis.output.Plotter;
import io.msgscope.core.SpecException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code msgscope plot DIR}: renders a results folder's gnuplot scripts to PNG (M9). */
@Command(name = "plot", mixinStandardHelpOptions = true,
        description = "Render every gnuplot script (*.gp) of a results folder to PNG. Needs gnuplot (gnuplot-nox).",
        footer = {"",
                  "Exit codes: 0 ok, 1 gnuplot missing or a script failed, 2 bad usage."})
public final class PlotCommand implements Callable<Integer> {
    @Spec
    CommandSpec commandSpec;

    @Parameters(paramLabel = "DIR", description = "A results folder written by msgscope run.")
    Path dir;

    @Override
    public Integer call() {
        if (!Files.isDirectory(dir)) {
            throw new SpecException("DIR", dir + " is not a folder");
        }
        try {
            if (!hasScripts(dir)) {
                throw new SpecException("DIR", dir + " holds no gnuplot scripts (*.gp); give a folder written by run, "
                        + "throughput, scenario, sweep or compare --out");
            }
        } catch (IOException e) {
            throw new SpecException("DIR", dir + " cannot be read: " + e.getMessage());
        }
        return render(dir, commandSpec.commandLine().getOut());
    }

    /** Whether a folder holds a gnuplot script to render. */
    static boolean hasScripts(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(".gp"));
        }
    }

    static int render(Path dir, PrintWriter out) {
        try {
            List<Path> pngs = Plotter.render(dir);
            for (Path p : pngs) {
                out.println("plotted " + p);
            }
            out.flush();
            return ExitCodes.OK;
        } catch (PlotUnavailableException e) {
            out.println(e.getMessage());
        } catch (IOException e) {
            out.println("plot failed: " + e.getMessage());
        }
        out.flush();
        return ExitCodes.FAILED;
    }
}
