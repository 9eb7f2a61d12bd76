package io.msgscope.coordinator.cli;

/** The documented exit codes of every msgscope command. */
public final class ExitCodes {
    /** The run completed and passed its checks. */
    public static final int OK = 0;
    /** The run failed (an agent failed, messages were lost, a target was missed); results are still written. */
    public static final int FAILED = 1;
    /** Bad usage: unknown option, value out of range, unwritable output folder, port in use. */
    public static final int USAGE = 2;
    /** {@code compare --fail-if}: a significant regression beyond a rule's threshold (issue 34). */
    public static final int REGRESSION = 3;
    /**
     * Stopped by SIGINT (Ctrl-C) or SIGTERM: what was measured up to the signal is written with status "interrupted"
     * (issue 29); 130 = 128 + SIGINT, what shells expect.
     */
    public static final int INTERRUPTED = 130;

    private ExitCodes() {
    }

    /**
     * A mode's ending as the command ends: bad usage found before anything was written prints one line and discards
     * the folder (issue 29); written results are plotted with {@code --plot}; then the code of the verdict.
     */
    static int of(io.msgscope.coordinator.results.JobOutcome o, java.nio.file.Path dir, OutputOptions output,
                  PlotOption plot, picocli.CommandLine.Model.CommandSpec command) {
        if (o.usage() != null) {
            output.discard(dir);
            command.commandLine().getErr().println(command.qualifiedName() + ": " + o.usage());
            command.commandLine().getErr().flush();
            return USAGE;
        }
        try {
            if (plot.plot && o.written() && PlotCommand.hasScripts(dir)) {
                PlotCommand.render(dir, command.commandLine().getOut());
            }
        } catch (java.io.IOException e) {
            command.commandLine().getOut().println("plot failed: " + e.getMessage());
            command.commandLine().getOut().flush();
        }
        return switch (o.ending()) {
            case OK -> OK;
            case INTERRUPTED -> INTERRUPTED;
            case USAGE -> USAGE;
            case FAILED -> FAILED;
        };
    }
}
