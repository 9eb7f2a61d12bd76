package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * docs/cli.md is the CLI reference: every command's {@code --help}, as the jar prints it. This test renders
 * it from the commands themselves and fails when the file differs, naming the first line that does; run
 * with {@code -Dmsgscope.cli.regenerate=true} to write the file anew after changing an option.
 */
class CliReferenceTest {
    /** Fixed, so the file does not depend on the terminal the test runs in. */
    static final int WIDTH = 110;

    private static final Path FILE = Path.of(System.getProperty("user.dir")).resolve("../docs/cli.md").normalize();

    @Test
    void docsCliMdIsEveryCommandsHelpAsTheJarPrintsIt() throws IOException {
        String rendered = render();
        if (Boolean.getBoolean("msgscope.cli.regenerate")) {
            Files.writeString(FILE, rendered, StandardCharsets.UTF_8);
        }
        assertTrue(Files.exists(FILE), "missing " + FILE + "; regenerate with -Dmsgscope.cli.regenerate=true");
        List<String> want = rendered.lines().toList();
        List<String> have = Files.readString(FILE, StandardCharsets.UTF_8).lines().toList();
        for (int i = 0; i < Math.max(want.size(), have.size()); i++) {
            String w = i < want.size() ? want.get(i) : "<end of file>";
            String h = i < have.size() ? have.get(i) : "<end of file>";
            if (!w.equals(h)) {
                fail("docs/cli.md is out of date with --help at line " + (i + 1) + ":\n  file: " + h
                        + "\n  help: " + w + "\nregenerate: ./mvnw -B -pl dist -am test -Dtest=CliReferenceTest "
                        + "-Dsurefire.failIfNoSpecifiedTests=false -Dmsgscope.cli.regenerate=true");
            }
        }
    }

    @Test
    void everyCommandIsInTheReferenceWithItsOptions() {
        String rendered = render();
        CommandLine root = commandLine();
        for (CommandLine sub : root.getSubcommands().values()) {
            String name = sub.getCommandSpec().qualifiedName();
            assertTrue(rendered.contains("## `" + name + "`"), "a section for " + name);
            for (CommandLine.Model.OptionSpec o : sub.getCommandSpec().options()) {
                if (!o.hidden()) {
                    assertTrue(rendered.contains(o.longestName()), name + " " + o.longestName());
                }
            }
        }
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setUsageHelpWidth(WIDTH);
        cl.setUsageHelpAutoWidth(false);
        return cl;
    }

    static String render() {
        CommandLine root = commandLine();
        StringBuilder b = new StringBuilder();
        b.append("# msgscope command-line reference\n\n")
                .append("Every command's `--help`, as `msgscope COMMAND --help` prints it. Generated from the commands\n")
                .append("themselves; `CliReferenceTest` fails when this file and the help disagree (run it with\n")
                .append("`-Dmsgscope.cli.regenerate=true` to write it anew). Exit codes everywhere: 0 ok, 1 the run\n")
                .append("failed (whatever was recorded is still written), 2 bad usage (one line naming the option).\n")
                .append("Worked examples are in the [README](../README.md) and the pages under [docs/](.).\n\n");
        b.append("Commands:");
        for (String n : root.getSubcommands().keySet()) {
            b.append(" [`").append(n).append("`](#msgscope-").append(n).append(")");
        }
        b.append("\n\n");
        section(b, root);
        return b.toString();
    }

    private static void section(StringBuilder b, CommandLine c) {
        b.append("## `").append(c.getCommandSpec().qualifiedName()).append("`\n\n```text\n")
                .append(c.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing()).append("\n```\n\n");
        for (CommandLine sub : c.getSubcommands().values()) {
            section(b, sub);
        }
    }
}
