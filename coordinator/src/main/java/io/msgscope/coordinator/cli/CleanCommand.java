package io.msgscope.coordinator.cli;

import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code msgscope clean}: removes what msgscope made on a broker and a run left behind (issue 16): a
 * broker killed mid-run keeps the run's JetStream streams, which the subscribers delete only while it is
 * there. Lists each thing it removes (or, with {@code --dry-run}, would remove), by msgscope's own names.
 */
@Command(name = "clean", mixinStandardHelpOptions = true,
        description = {"Remove what msgscope made on a broker and a run left behind (e.g. JetStream streams MSGSCOPE_* "
                               + "or Kafka topics and consumer groups msgscope* after the server was killed mid-run), "
                               + "listing each; --dry-run only lists."},
        footer = {"",
                  "Exit codes: 0 ok (also when nothing was left), 1 the broker could not be reached or refused, 2 "
                          + "bad usage."})
public final class CleanCommand implements Callable<Integer> {
    @Spec
    CommandSpec commandSpec;

    @Mixin
    DriverOptions driverOptions = new DriverOptions();

    @Option(names = "--dry-run", defaultValue = "false",
            description = "List what would be removed, remove nothing (default: ${DEFAULT-VALUE}).")
    boolean dryRun;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = commandSpec.commandLine().getOut();
        Driver d = driverOptions.resolve(64);
        List<String> done = d.clean(new DriverSpec("", 0, driverOptions.uri(), 64, 0, driverOptions.options(), ""), dryRun);
        for (String line : done) {
            out.println(line);
        }
        if (done.isEmpty()) {
            out.println("nothing msgscope made is left on the " + d.name() + " broker");
        }
        out.flush();
        return ExitCodes.OK;
    }
}
