package io.msgscope.coordinator.results;

/**
 * How a mode's job ended, as the command maps it to an exit code (issue 30: every mode runs from its folder to its
 * verdict; the command only parses options, calls it and maps this).
 *
 * @param ending  the verdict
 * @param usage   for bad usage found before anything was written (an agent's {@code --opt port} taken), the line to
 *                print, and the folder is the command's to discard; else null
 * @param written whether the results were written (and can be plotted)
 */
public record JobOutcome(Ending ending, String usage, boolean written) {
    /** The verdicts a job can reach. */
    public enum Ending { OK, FAILED, INTERRUPTED, USAGE }

    /** An ending with nothing written. */
    public static JobOutcome unwritten(Ending ending, String usage) {
        return new JobOutcome(ending, usage, false);
    }

    /** An ending after the results were written. */
    public static JobOutcome written(Ending ending) {
        return new JobOutcome(ending, null, true);
    }
}
