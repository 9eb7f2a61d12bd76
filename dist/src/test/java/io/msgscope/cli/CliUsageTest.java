package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The CLI's usage errors and help, driven in-process through {@link Main#execute}. Every case here
 * fails validation before any agent would be started.
 */
class CliUsageTest {

    @TempDir
    Path tmp;

    /** The outcome of one CLI invocation. */
    record Result(int code, String out, String err) {
        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    /** One in-process CLI invocation (also HistoryUsageTest's). */
    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Result(code, out.toString(), err.toString());
    }

    /**
     * Exit 2, nothing on stdout, one error line (optionally followed by a "Try ..." line) that
     * contains every {@code mentions}, and no stack trace.
     */
    private static String assertUsageError(Result r, String... mentions) {
        assertEquals(2, r.code(), () -> "exit code; stderr: " + r.err());
        assertEquals("", r.out(), "nothing on stdout");
        List<String> lines = r.errLines();
        assertTrue(lines.size() == 1 || lines.size() == 2 && lines.get(1).startsWith("Try "),
                () -> "one error line (plus an optional 'Try' line), got:\n" + r.err());
        String line = lines.get(0);
        assertTrue(line.startsWith("msgscope "), line);
        for (String m : mentions) {
            assertTrue(line.contains(m), () -> "error should mention '" + m + "': " + line);
        }
        assertFalse(r.err().contains("Exception"), () -> "no exception in: " + r.err());
        assertFalse(r.err().contains("\tat "), () -> "no stack trace in: " + r.err());
        return line;
    }

    private String out() {
        return tmp.resolve("out").toString();
    }

    @Test
    void unknownOption() {
        Result r = run("run", "--bogus");
        assertUsageError(r, "msgscope run", "--bogus");
        assertEquals("Try 'msgscope run --help'.", r.errLines().get(1));
    }

    @Test
    void negativeCount() {
        assertUsageError(run("run", "--count", "-5", "--out", out()), "--count", "between 1 and 500000000", "-5");
        assertFalse(Files.exists(tmp.resolve("out")), "nothing written for a rejected run");
    }

    /** Issue 34: compare's --store is read for --against-last only, which takes no --baseline and needs a run folder. */
    @Test
    void compareAgainstTheStoreIsRefusedWhenHalfGiven() {
        assertUsageError(run("compare", "--store", tmp.resolve("h.db").toString(), "a", "b"), "--store",
                "only with --against-last");
        assertUsageError(run("compare", "--against-last", "3", "--baseline", "a", "--candidate", "b"), "--baseline",
                "either --baseline or --against-last");
        assertUsageError(run("compare", "--against-last", "3"), "DIR", "judges the run folders given");
        assertUsageError(run("compare", "--against-last", "3", tmp.toString()), "DIR", "holds no summary.json");
    }

    /** Issue 29: the latency histogram's bins are log-spaced or linear, nothing else, refused before anything runs. */
    @Test
    void histogramScaleIsLogOrLinear() {
        assertUsageError(run("run", "--histogram-scale", "sqrt", "--out", out()), "--histogram-scale", "log or linear",
                "sqrt");
        assertFalse(Files.exists(tmp.resolve("out")), "nothing written for a rejected run");
    }

    @Test
    void zeroCount() {
        assertUsageError(run("run", "--count", "0", "--out", out()), "--count", "between 1 and 500000000");
    }

    @Test
    void nonNumericCount() {
        assertUsageError(run("run", "--count", "many"), "--count", "many");
    }

    @Test
    void windowNotBelowCount() {
        assertUsageError(run("run", "--window", "2000", "--count", "1000", "--out", out()), "--window",
                "between 1 and count-1 (999)", "2000");
    }

    /** Issue 18: a short run names --count and the default window, not an option the user never gave. */
    @Test
    void aCountWithinTheDefaultWindowNamesTheCount() {
        String line = assertUsageError(run("run", "--count", "100", "--out", out()), "--count", "M = 100", "got 100",
                "smaller --window");
        assertFalse(line.startsWith("msgscope run: --window"), line);
    }

    /** Issue 18: a map option without '=' is named once ("option '--opt'"), not "option option". */
    @Test
    void anOptWithoutAValueIsNamedOnce() {
        String line = assertUsageError(run("run", "--opt", "qos", "--out", out()), "option '--opt'", "KEY=VALUE", "qos");
        assertFalse(line.contains("option option"), line);
    }

    @Test
    void sizeBelowTheHeader() {
        assertUsageError(run("run", "--size", "8", "--out", out()), "--size", "between 32", "got 8");
    }

    @Test
    void unknownPadding() {
        assertUsageError(run("run", "--padding", "purple", "--out", out()), "--padding", "zeros or random",
                "purple");
    }

    @Test
    void negativeRate() {
        assertUsageError(run("run", "--rate", "-1", "--out", out()), "--rate", "between 0 (full speed) and 100000000");
    }

    @Test
    void sendBatchWithRate() {
        assertUsageError(run("run", "--rate", "1000", "--send-batch", "4", "--out", out()), "--send-batch",
                "must be 1 when --rate is set");
    }

    @Test
    void unwritableOut() {
        assertUsageError(run("run", "--count", "1000", "--out", "/proc/forbidden"), "--out",
                "cannot write to /proc/forbidden");
    }

    @Test
    void outIsAFile() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        assertUsageError(run("run", "--count", "1000", "--out", file.toString()), "--out",
                "cannot write to " + file, "exists and is not a folder");
    }

    /** Every topic driver's own check calls the default's empty check, and runs before any connection (M10). */
    @ParameterizedTest(name = "scenario --driver {0} --topic-prefix ''")
    @ValueSource(strings = {"mqtt", "nats", "zmq"})
    void anEmptyTopicPrefixIsRefusedByEveryTopicDriver(String driver) {
        assertUsageError(run("scenario", "--driver", driver, "--topic-prefix", "", "--out", out()),
                "msgscope scenario", "--topic-prefix: must not be empty");
        assertFalse(Files.exists(tmp.resolve("out")), "nothing written");
    }

    /** Issue 13's options: bad values, addresses this box does not have, more connections than its ports allow. */
    @Test
    void scenarioConnectionOptionsAreCheckedBeforeAnyAgentStarts() {
        assertUsageError(run("scenario", "--driver", "mqtt", "--io-threads", "-1", "--out", out()), "--io-threads",
                "between 0 (one per core) and 256");
        assertUsageError(run("scenario", "--driver", "mqtt", "--connect-rate", "-5", "--out", out()), "--connect-rate",
                "between 0 (unlimited)");
        assertUsageError(run("scenario", "--driver", "mqtt", "--source-addresses", "localhost", "--out", out()),
                "--source-addresses", "must be IP addresses");
        assertUsageError(run("scenario", "--driver", "mqtt", "--source-addresses", "192.0.2.77", "--out", out()),
                "--source-addresses", "192.0.2.77 is not an address of this box");
        assertUsageError(run("scenario", "--driver", "mqtt", "--scenario", "straight-run", "--publishers", "20000",
                "--out", out()), "--publishers", "40000 connections to one broker address need more local ports",
                "--source-addresses");
        assertUsageError(run("scenario", "--driver", "mqtt", "--publishers", "100001", "--out", out()),
                "--publishers", "between 1 and 100000");
        assertUsageError(run("scenario", "--driver", "tcp", "--out", out()), "--driver", "scenario mode needs a driver with topics");
        // issue 31 item 1: the in-flight wait's timeout without a delivery
        assertUsageError(run("scenario", "--driver", "mqtt", "--drain-timeout", "-1", "--out", out()), "--drain-timeout",
                "must be between 0 and 600000 ms, got -1");
        // issue 33: a duration or a percentage of p50, nothing else
        assertUsageError(run("scenario", "--driver", "mqtt", "--max-clock-error", "5 parsecs", "--out", out()),
                "--max-clock-error", "'5 parsecs' is neither a duration (e.g. 2ms, 500us) nor a percentage of p50");
        assertUsageError(run("scenario", "--driver", "mqtt", "--max-clock-error", "10", "--out", out()),
                "--max-clock-error", "is neither");
        // issue 33 item 3: run takes the same option, refused the same way before anything starts
        assertUsageError(run("run", "--max-clock-error", "fast", "--out", out()),
                "--max-clock-error", "'fast' is neither a duration (e.g. 2ms, 500us) nor a percentage of p50");
        assertUsageError(run("run", "--agent", "sender=127.0.0.1:7000", "--agent", "sender=127.0.0.1:7001",
                "--out", out()), "--agent", "sender is given 2 times");
        assertFalse(Files.exists(tmp.resolve("out")), "nothing written");
    }

    /**
     * Issue 28: without --tls-dir or --secret-file the control channel is plain frames, so an agent off loopback is
     * refused before anything is sent to it (the run spec holds the broker's password). 10.99.0.1 is never dialled:
     * the refusal is a usage check.
     */
    @Test
    void anAgentOffLoopbackWithoutCredentialsIsRefusedBeforeAnythingIsSent() {
        String[][] commands = {
                {"run", "--agent", "receiver=10.99.0.1:7600"},
                {"throughput", "--agent", "relay=10.99.0.1:7600"},
                {"scenario", "--driver", "mqtt", "--agent", "subscribers=10.99.0.1:7600"}};
        for (String[] c : commands) {
            List<String> args = new ArrayList<>(List.of(c));
            args.addAll(List.of("--out", out()));
            assertUsageError(run(args.toArray(String[]::new)), "--agent", "10.99.0.1 is not loopback",
                    "use --tls-dir or --secret-file");
        }
        assertFalse(Files.exists(tmp.resolve("out")), "nothing written");
    }

    /**
     * Issue 28: URIs without an authority part ("//host") are refused before anything runs, one line naming --uri,
     * the password never shown (the AMQP client read them as localhost and guest/guest).
     */
    @Test
    void urisWithoutAnAuthorityAreRefusedTheirPasswordNeverShown() {
        String[][] cases = {
                {"amqp", "amqp:///%2f"},
                {"amqp", "amqp:guest:S3cr3tPW@127.0.0.1:5672"},
                {"amqp", "amqp:/guest:S3cr3tPW@127.0.0.1:5672/%2f"},
                {"amqp10", "amqp:guest:S3cr3tPW@127.0.0.1:5672"},
                {"mqtt", "u:S3cr3tPW@127.0.0.1:1883"},
                {"nats", "u:S3cr3tPW@127.0.0.1:4222"},
                {"kafka", "u:S3cr3tPW@127.0.0.1:9092"}};
        for (String[] c : cases) {
            Result r = run("run", "--driver", c[0], "--uri", c[1], "--out", out());
            assertUsageError(r, "--uri");
            assertFalse(r.err().contains("S3cr3tPW"), r.err());
        }
        assertFalse(Files.exists(tmp.resolve("out")), "nothing written");
    }

    /** Issue 16: report and compare refuse a summary.json msgscope did not write whole: exit 1, one line naming it. */
    @Test
    void reportAndCompareRefuseABrokenSummary() throws Exception {
        for (String content : new String[] {"", "[1, 2]", "{\"x\": 1}", "{not json"}) {
            Path d = Files.createDirectories(tmp.resolve("broken-" + content.length()));
            Files.writeString(d.resolve("summary.json"), content);
            for (String[] args : new String[][] {{"report", d.toString()}, {"compare", d.toString(), d.toString()}}) {
                Result r = run(args);
                assertEquals(1, r.code(), () -> String.join(" ", args) + ": " + r.err());
                assertEquals(1, r.errLines().size(), r.err());
                assertTrue(r.errLines().get(0).contains(d.resolve("summary.json") + " is not a msgscope summary"),
                        r.err());
            }
            assertFalse(Files.exists(d.resolve("index.html")), "no page for a broken summary");
        }
    }

    /** Issue 29: report of a folder that does not exist says so, not that it holds no summary. */
    @Test
    void reportOfAMissingFolderSaysSo() {
        Path missing = tmp.resolve("no-such-run");
        assertUsageError(run("report", missing.toString()), "DIR", "no such folder: " + missing);
        assertFalse(Files.exists(missing), "nothing written");
    }

    /** Issue 14: a URI a client would read otherwise (a raw '@' in the password) is refused, the password never shown. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mqtt tcp://user:p@ss-w0rd@127.0.0.1:1883", "nats nats://user:p@ss-w0rd@127.0.0.1:4222",
            "mqtt tcp://user:p@ss-w0rd@bad host:1883", "nats tls://user:pa/ss-w0rd@127.0.0.1:4222",
            "amqp amqp://guest:p@ss-w0rd@127.0.0.1:5673/%2f"})
    void aUriTheClientWouldMisreadIsRefusedWithoutShowingThePassword(String driverAndUri) {
        String[] d = driverAndUri.split(" ", 2);
        String line = assertUsageError(run("run", "--driver", d[0], "--uri", d[1], "--out", out()), "--uri");
        assertTrue(line.contains("percent-encode") || line.contains("%40"), line);
        assertFalse(line.contains("ss-w0rd"), line);
    }

    @Test
    void cleanOnADriverThatLeavesNothingSaysSo() {
        Result r = run("clean", "--driver", "tcp");
        assertEquals(0, r.code(), r.err());
        assertEquals("nothing msgscope made is left on the tcp broker", r.out().trim());
        assertUsageError(run("clean", "--driver", "nope"), "--driver", "unknown driver 'nope'");
    }

    @Test
    void relayIngressPortInUse() throws Exception {
        try (ServerSocket held = new ServerSocket()) {
            held.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = held.getLocalPort();
            assertUsageError(run("run", "--count", "1000", "--relay-ingress-port", Integer.toString(port),
                    "--out", out()), "--relay-ingress-port", "port " + port + " is in use", "0 for any");
        }
        assertFalse(Files.exists(tmp.resolve("out")), "rejected before the results folder is made");
    }

    @Test
    void relayPortOutOfRange() {
        assertUsageError(run("run", "--relay-egress-port", "70000", "--out", out()), "--relay-egress-port",
                "between 0 (any free port) and 65535");
    }

    @Test
    void unknownAgentRole() {
        assertUsageError(run("agent", "--role", "juggler"), "msgscope agent", "--role",
                "sender, receiver, relay, probe, flow, publishers or subscribers", "juggler");
    }

    @Test
    void agentMissingRole() {
        assertUsageError(run("agent"), "msgscope agent", "--role");
    }

    @Test
    void agentRefusesANonLoopbackListenAddress() {
        // refused by the check before binding: nothing is bound and no traffic is sent
        assertUsageError(run("agent", "--role", "relay", "--listen", "10.1.2.3:7600"), "--listen", "10.1.2.3",
                "without credentials", "loopback");
    }

    @Test
    void agentListenNeedsAPort() {
        assertUsageError(run("agent", "--role", "relay", "--listen", "127.0.0.1"), "--listen", "HOST:PORT");
    }

    @Test
    void agentListenPortOutOfRange() {
        assertUsageError(run("agent", "--role", "relay", "--listen", "127.0.0.1:70000"), "--listen",
                "between 0 and 65535");
    }

    @Test
    void plotOfAMissingFolder() {
        assertUsageError(run("plot", "/nonexistent"), "msgscope plot", "DIR", "/nonexistent");
    }

    @Test
    void plotWithoutAFolder() {
        assertUsageError(run("plot"), "msgscope plot", "DIR");
    }

    @Test
    void noArgumentsPrintsUsage() {
        Result r = run();
        assertEquals(2, r.code());
        assertTrue(r.err().contains("Usage: msgscope"), r.err());
        for (String sub : List.of("run", "agent", "plot")) {
            assertTrue(r.err().lines().anyMatch(l -> l.trim().startsWith(sub + " ") || l.trim().equals(sub)),
                    () -> "subcommand " + sub + " listed:\n" + r.err());
        }
        assertFalse(r.err().contains("Exception"));
    }

    /**
     * Issue 29: every command's {@code --size} takes the syntax {@code sweep --sizes} takes (64, 1k = 1024,
     * 1m = 1048576), so a size copied from a sweep's point into a run means the same bytes.
     */
    @Test
    void everySizeOptionTakesTheSweepSyntax() {
        CommandLine root = new CommandLine(new Main());
        int checked = 0;
        for (CommandLine sub : root.getSubcommands().values()) {
            OptionSpec size = sub.getCommandSpec().findOption("--size");
            if (size == null) {
                continue;
            }
            for (String[] given : new String[][] {{"64", "64"}, {"1k", "1024"}, {"4K", "4096"}, {"1m", "1048576"}}) {
                CommandLine.ParseResult parsed = new CommandLine(new Main()).parseArgs(sub.getCommandName(), "--size", given[0]);
                assertEquals(Integer.parseInt(given[1]), parsed.subcommand().matchedOptionValue("--size", 0),
                        sub.getCommandName() + " --size " + given[0]);
            }
            checked++;
        }
        assertEquals(3, checked, "run, throughput and scenario have --size");
        assertUsageError(run("run", "--size", "1x", "--out", out()), "--size", "'1x' is not a size");
        assertUsageError(run("run", "--size", "16", "--out", out()), "--size", "between 32", "got 16");
    }

    @Test
    void version() {
        Result r = run("--version");
        assertEquals(0, r.code());
        assertEquals("msgscope 0.1.0", r.out().strip());
        assertEquals("", r.err());
    }

    @Test
    void helpExitsZero() {
        for (String[] args : List.of(new String[] {"--help"}, new String[] {"run", "--help"},
                new String[] {"agent", "--help"}, new String[] {"plot", "--help"}, new String[] {"-h"})) {
            Result r = run(args);
            String what = String.join(" ", args);
            assertEquals(0, r.code(), what);
            assertTrue(r.out().startsWith("Usage: msgscope"), () -> what + ":\n" + r.out());
            assertTrue(r.out().contains("Exit codes:"), () -> what + ":\n" + r.out());
            assertEquals("", r.err(), what);
        }
    }

    @Test
    void runHelpShowsEveryDefault() throws Exception {
        String help = run("run", "--help").out();
        List<String> blocks = optionBlocks(help);
        assertTrue(blocks.size() >= 18, () -> "option blocks found: " + blocks.size() + "\n" + help);
        for (String block : blocks) {
            if (block.startsWith("-h, --help") || block.startsWith("-V, --version")) {
                continue;
            }
            assertTrue(block.contains("(default: "), () -> "no default shown for: " + block);
        }
        // and each default shown is the one the option really has (written once: in the annotation, or for the
        // spec's options in RunSpec.Builder, which picocli reads through SpecDefaults)
        CommandLine runCmd = new CommandLine(new Main()).getSubcommands().get("run");
        int checked = 0;
        for (OptionSpec o : runCmd.getCommandSpec().options()) {
            String d = defaultOf(runCmd, o);
            if (d == null || o.usageHelp() || o.versionHelp() || o.hidden()) {
                continue;
            }
            String block = blockOf(blocks, o);
            assertTrue(block.contains("(default: " + d + ")"),
                    () -> o.longestName() + " should show its default " + d + ": " + block);
            checked++;
        }
        assertTrue(checked >= 16, "options with defaults checked: " + checked);
        assertTrue(blockOf(blocks, runCmd.getCommandSpec().findOption("--out"))
                .contains("(default: results/run-YYYYMMDD-HHMMSS)"));
    }

    /** The option's default: its annotation's, or else its command's default provider's. */
    private static String defaultOf(CommandLine cmd, OptionSpec o) throws Exception {
        if (o.defaultValue() != null) {
            return o.defaultValue();
        }
        picocli.CommandLine.IDefaultValueProvider p = cmd.getCommandSpec().defaultValueProvider();
        return p == null ? null : p.defaultValue(o);
    }

    @Test
    void agentHelpShowsDefaults() {
        List<String> blocks = optionBlocks(run("agent", "--help").out());
        CommandLine agent = new CommandLine(new Main()).getSubcommands().get("agent");
        assertTrue(blockOf(blocks, agent.getCommandSpec().findOption("--listen"))
                .contains("(default: 127.0.0.1:7600)"));
        assertTrue(blockOf(blocks, agent.getCommandSpec().findOption("--max-frame"))
                .contains("(default: 8388608)"));
    }

    /** The option descriptions of a help text, one string per option, whitespace collapsed. */
    private static List<String> optionBlocks(String help) {
        List<String> blocks = new ArrayList<>();
        StringBuilder current = null;
        for (String line : help.lines().toList()) {
            String t = line.strip();
            boolean optionStart = line.matches("^\\s{1,6}(-\\w, )?--\\S.*");
            if (optionStart) {
                if (current != null) {
                    blocks.add(current.toString());
                }
                current = new StringBuilder(t);
            } else if (current != null && !t.isEmpty() && line.startsWith("  ")) {
                current.append(' ').append(t);
            } else if (current != null) {
                blocks.add(current.toString());
                current = null;
            }
        }
        if (current != null) {
            blocks.add(current.toString());
        }
        return blocks.stream().map(b -> b.replaceAll("\\s+", " ")).toList();
    }

    private static String blockOf(List<String> blocks, OptionSpec o) {
        String name = o.longestName();
        String shown = o.negatable() ? name.replaceFirst("^--", "--[no-]") : name;
        return blocks.stream().filter(b -> b.startsWith(shown + " ") || b.startsWith(shown + "=")
                        || b.equals(shown) || b.contains(", " + shown))
                .findFirst().orElseThrow(() -> new AssertionError("no help block for " + shown));
    }
}
