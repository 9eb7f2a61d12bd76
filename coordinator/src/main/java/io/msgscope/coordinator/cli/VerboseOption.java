package io.msgscope.coordinator.cli;

import picocli.CommandLine.Option;

/**
 * {@code --verbose} of {@code run}, {@code throughput} and {@code scenario} (issue 29): what the console leaves out
 * by default because summary.json and summary.md hold it anyway — a failed run's counts, warnings and analysis
 * timing (by default its cause on one line, then where the results are), scenario mode's per-second table, and the
 * run store's cost (issue 34: the check before the run and the recording after it, in ms).
 */
public final class VerboseOption {
    @Option(names = "--verbose", defaultValue = "false",
            description = "Print everything: a failed run's counts, warnings and timings after its cause, scenario "
                    + "mode's per-second table (all are in summary.json either way), and what the run store cost "
                    + "(its check before the run, the recording after it) (default: ${DEFAULT-VALUE}).")
    boolean verbose;
}
