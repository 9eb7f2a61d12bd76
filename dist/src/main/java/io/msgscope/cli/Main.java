package io.msgscope.cli;

import io.msgscope.coordinator.cli.ExitCodes;
import io.msgscope.coordinator.cli.PlotCommand;
import io.msgscope.coordinator.cli.RunCommand;
import io.msgscope.coordinator.cli.ThroughputCommand;
import io.msgscope.coordinator.cli.SweepCommand;
import io.msgscope.coordinator.cli.CapacityCommand;
import io.msgscope.coordinator.cli.ReportCommand;
import io.msgscope.coordinator.cli.CompareCommand;
import io.msgscope.core.SpecException;
import io.msgscope.core.Version;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** The msgscope command line: {@code run}, {@code agent}, {@code plot}, {@code certs}, ... */
@Command(name = "msgscope", mixinStandardHelpOptions = true, version = "msgscope " + Version.TOOL,
        subcommands = {RunCommand.class, ThroughputCommand.class, AgentCommand.class, PlotCommand.class,
                SweepCommand.class, CapacityCommand.class, ReportCommand.class, CompareCommand.class,
                io.msgscope.coordinator.cli.ScenarioCommand.class, io.msgscope.coordinator.cli.BatchCommand.class,
                io.msgscope.coordinator.cli.CleanCommand.class, io.msgscope.coordinator.cli.HistoryCommand.class,
                CertsCommand.class},
        description = "Measures messaging systems message by message: nanosecond traces, honest statistics, "
                + "gnuplot-ready results.",
        footer = {"",
                  "Exit codes: 0 ok, 1 run failed (results still written), 2 bad usage."})
public final class Main implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        io.msgscope.coordinator.cli.ParentWatch.startFromProperty(); // a sweep's or batch's point: gone with its parent
        System.exit(execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the CLI with the given streams; what tests call. */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((ex, a) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println(c.getCommandSpec().qualifiedName() + ": " + oneLine(ex.getMessage()));
            c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help'.");
            c.getErr().flush();
            return ExitCodes.USAGE;
        });
        cl.setExecutionExceptionHandler((ex, c, parsed) -> {
            String name = c.getCommandSpec().qualifiedName();
            if (ex instanceof SpecException) {
                c.getErr().println(name + ": " + oneLine(ex.getMessage()));
                c.getErr().flush();
                return ExitCodes.USAGE;
            }
            c.getErr().println(name + ": error: " + oneLine(ex.getMessage() != null ? ex.getMessage()
                    : ex.getClass().getSimpleName()));
            c.getErr().flush();
            return ExitCodes.FAILED;
        });
        try {
            // --spec FILE becomes the spec's options before picocli sees the command line (issue 18)
            args = io.msgscope.coordinator.cli.SpecFile.expand(args);
        } catch (SpecException e) {
            err.println("msgscope " + args[0] + ": " + oneLine(e.getMessage()));
            err.flush();
            return ExitCodes.USAGE;
        }
        try {
            return cl.execute(args);
        } catch (Error e) { // e.g. a missing class in a broken distribution: still one line, exit 1
            err.println("msgscope: internal error: " + e);
            err.flush();
            return ExitCodes.FAILED;
        }
    }

    /** The first line of a message; picocli's "option option '--opt'" (a map option's format error) said once. */
    static String oneLine(String s) {
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).replace("option option '", "option '");
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }
}
