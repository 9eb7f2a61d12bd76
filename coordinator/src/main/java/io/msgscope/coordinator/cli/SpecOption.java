package io.msgscope.coordinator.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * {@code --spec FILE} of {@code run}, {@code throughput} and {@code scenario} (issue 18). The launcher replaces it
 * by the spec's options before the command line is parsed ({@link SpecFile#expand}); declared here so that it is
 * in each command's help and the CLI reference.
 */
public final class SpecOption {
    @Option(names = "--spec", paramLabel = "FILE",
            description = "Run again as a spec says: a summary.json of an earlier run of this mode (its spec loads back "
                    + "unchanged, same spec_hash) or a spec of its own in JSON or YAML. Options given on the command line "
                    + "win over the spec's; a masked password must be given again (--uri, --opt) (default: none).")
    Path spec;
}
