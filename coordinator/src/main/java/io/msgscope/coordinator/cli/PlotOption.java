package io.msgscope.coordinator.cli;

import picocli.CommandLine.Option;

/**
 * {@code --plot} of {@code run}, {@code throughput}, {@code scenario} and {@code sweep}: render the gnuplot scripts the
 * command wrote into its results folder to PNG once it is done (M9); without it the scripts are left
 * for {@code msgscope plot}.
 */
public final class PlotOption {
    @Option(names = "--plot", defaultValue = "false",
            description = "Render the results folder's gnuplot scripts to PNG at the end (needs gnuplot) "
                    + "(default: ${DEFAULT-VALUE}).")
    boolean plot;
}
