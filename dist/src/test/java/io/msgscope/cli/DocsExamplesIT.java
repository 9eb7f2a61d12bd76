package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every msgscope command in the documentation runs, as written, against the brokers on loopback (issue 18).
 *
 * <p>The examples are the lines starting with {@code msgscope} or {@code ./msgscope} in the {@code sh} code blocks
 * of README.md and docs/ (a trailing {@code \} joins the next line; a {@code #} comment is dropped). A block that
 * cannot run on one machine (agents on other hosts, a broker that does not exist here, a daemon that serves until
 * stopped) is preceded by {@code <!-- examples: not run: REASON -->}. Each page runs in its own working folder, in
 * the order written, so an example may use what an earlier one on the same page wrote ({@code results/r256}),
 * and finds the repository's {@code examples/} folder (workload files) in it.
 *
 * <p>Counts and durations are shrunk by {@code MSGSCOPE_DOCS_SCALE} (default 0.01; 1 runs them as written):
 * {@code --count}, a run's {@code --warmup}, a scenario's {@code --duration}, {@code --repeat}, {@code --samples}, a
 * throughput run's warm-up and its search's {@code --max-probes}, never below a floor that still measures
 * something; rates, sizes and every other option stay as written. Each must exit 0. {@code MSGSCOPE_DOCS_PAGES=text}
 * runs only the pages whose path holds the text (e.g. {@code drivers/kafka}).
 *
 * <p>Kafka's examples (issue 19) are written against the driver's default broker, 127.0.0.1:9092. No Kafka runs on
 * this machine as a service, so this test starts its own KRaft broker in-process (the driver's {@code EmbeddedKafka})
 * on a free port when the first Kafka example comes, and points every Kafka example at it: {@code --uri} is added
 * when absent and {@code kafka://127.0.0.1:9092} is rewritten to the broker's port. A free port rather than 9092
 * itself, so that a broker someone runs on 9092 is neither needed nor touched.
 */
class DocsExamplesIT {
    private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*(\\S*)");
    private static final Pattern NOT_RUN = Pattern.compile("<!--\\s*examples:\\s*not run:\\s*(\\S[^>]*?)\\s*-->");
    private static final Pattern COMMAND = Pattern.compile("^\\s*(\\./)?msgscope\\s+(.*)$");

    @TempDir
    static Path tmp;

    /** The in-process Kafka broker of the Kafka examples, started by the first one (see the class comment). */
    private static io.msgscope.driver.kafka.EmbeddedKafka kafka;

    @org.junit.jupiter.api.AfterAll
    static void stopKafka() throws IOException {
        if (kafka != null) {
            kafka.close();
            kafka = null;
        }
    }

    /** A Kafka example's arguments pointed at the in-process broker, which starts now if it has not yet. */
    static synchronized List<String> toOwnKafka(List<String> args) throws Exception {
        if (kafka == null) {
            kafka = io.msgscope.driver.kafka.EmbeddedKafka.start();
        }
        List<String> a = new ArrayList<>(args);
        a.replaceAll(v -> v.replace("kafka://127.0.0.1:9092", kafka.uri()));
        addIfAbsent(a, "--uri", kafka.uri());
        return a;
    }

    /** One command of a page: where it is written and its arguments after {@code msgscope}. */
    record Example(String page, int line, List<String> args) {
        @Override
        public String toString() {
            return page + ":" + line + ": msgscope " + String.join(" ", args);
        }
    }

    /** The pages whose examples run. */
    static List<Path> pages() throws IOException {
        Path root = repoRoot();
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The pages whose examples run, and BENCHMARKS.md (read, not run). */
    static List<Path> pagesWithBenchmarks() throws IOException {
        List<Path> pages = new ArrayList<>(pages());
        pages.add(repoRoot().resolve("BENCHMARKS.md"));
        return pages;
    }

    static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("README.md"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("no README.md above " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    /** The examples of one page, in order; blocks marked not run are left out (their reason checked). */
    static List<Example> examples(Path page, String name) throws IOException {
        List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        List<Example> out = new ArrayList<>();
        boolean inBlock = false;
        boolean run = false;
        String pendingSkip = null;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            Matcher fence = FENCE.matcher(l);
            if (fence.find()) {
                if (!inBlock) {
                    run = fence.group(1).equals("sh") && pendingSkip == null;
                    pendingSkip = null;
                }
                inBlock = !inBlock;
                continue;
            }
            if (!inBlock) {
                Matcher skip = NOT_RUN.matcher(l);
                if (skip.find()) {
                    pendingSkip = skip.group(1);
                } else if (!l.isBlank()) {
                    pendingSkip = null; // the marker must stand right before its block
                }
                continue;
            }
            Matcher c = COMMAND.matcher(l);
            if (!run || !c.find()) {
                continue;
            }
            int first = i;
            StringBuilder cmd = new StringBuilder(c.group(2));
            while (cmd.toString().stripTrailing().endsWith("\\") && i + 1 < lines.size()) {
                String t = cmd.toString().stripTrailing();
                cmd.setLength(0);
                cmd.append(t, 0, t.length() - 1).append(' ').append(lines.get(++i).strip());
            }
            out.add(new Example(name, first + 1, words(stripComment(cmd.toString()))));
        }
        return out;
    }

    static String stripComment(String s) {
        boolean single = false;
        boolean dbl = false;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '\'' && !dbl) {
                single = !single;
            } else if (ch == '"' && !single) {
                dbl = !dbl;
            } else if (ch == '#' && !single && !dbl && (i == 0 || Character.isWhitespace(s.charAt(i - 1)))) {
                return s.substring(0, i);
            }
        }
        return s;
    }

    /** The shell's word splitting for what the examples use: blanks, single and double quotes. */
    static List<String> words(String s) {
        List<String> w = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean in = false;
        char quote = 0;
        for (char ch : s.toCharArray()) {
            if (quote != 0) {
                if (ch == quote) {
                    quote = 0;
                } else {
                    cur.append(ch);
                }
            } else if (ch == '\'' || ch == '"') {
                quote = ch;
                in = true;
            } else if (Character.isWhitespace(ch)) {
                if (in) {
                    w.add(cur.toString());
                    cur.setLength(0);
                    in = false;
                }
            } else {
                cur.append(ch);
                in = true;
            }
        }
        if (in) {
            w.add(cur.toString());
        }
        return w;
    }

    static double scale() {
        String s = System.getenv("MSGSCOPE_DOCS_SCALE");
        double v = s == null || s.isBlank() ? 0.01 : Double.parseDouble(s);
        if (!(v > 0 && v <= 1)) {
            throw new IllegalArgumentException("MSGSCOPE_DOCS_SCALE must be in (0, 1], was " + s);
        }
        return v;
    }

    /** The example's arguments with counts and durations scaled (see the class comment). */
    static List<String> shrunk(List<String> args, double scale) {
        List<String> a = new ArrayList<>(args);
        if (scale >= 1 || a.isEmpty()) {
            return a;
        }
        String cmd = a.get(0);
        boolean spec = a.contains("--spec");
        boolean throughputSweep = cmd.equals("sweep") && (a.contains("--in-flights") || a.contains("--mode")
                && a.get(a.indexOf("--mode") + 1).equals("throughput"));
        // a run at a rate keeps at least five seconds of it: a tenth of a second measures the start, not the rate,
        // and in one or two seconds a single stall of the broker (JetStream's 300 ms here) fails the 95 % rule
        long oneSecond = a.contains("--rate") ? (long) parseCount(a.get(a.indexOf("--rate") + 1)) : 0;
        long fiveSeconds = 5 * oneSecond;
        scaleOption(a, "--count", scale, Math.max(10_000, fiveSeconds));
        scaleOption(a, "--samples", scale, 10);
        scaleOption(a, "--repeat", scale, 1);
        if (cmd.equals("run") || cmd.equals("sweep") && !throughputSweep) {
            // and a second of warm-up before it: a client ramping up (publisher confirms) falls behind at first
            scaleOption(a, "--warmup", scale, Math.max(1_000, oneSecond));
            if (!spec) {
                if (!a.contains("--phases")) { // phases schedule their own count (and last as written)
                    addIfAbsent(a, "--count", (long) Math.max(Math.max(10_000, fiveSeconds), 1_000_000 * scale));
                }
                addIfAbsent(a, "--warmup", (long) Math.max(Math.max(1_000, oneSecond), 50_000 * scale));
            }
        }
        if (cmd.equals("scenario")) {
            if (!a.contains("--phases")) { // phases last as written (issue 31)
                scaleOption(a, "--duration", scale, 2);
                addIfAbsent(a, "--duration", (long) Math.max(2, Math.ceil(60 * scale)));
            }
            scaleOption(a, "--warmup", scale, 1);
            addIfAbsent(a, "--warmup", (long) Math.max(1, Math.ceil(5 * scale)));
        }
        if (cmd.equals("throughput") && !a.contains("--in-flight")) {
            addIfAbsent(a, "--max-probes", (long) Math.max(12, 40 * scale)); // the search's probe count
        }
        if (cmd.equals("throughput") || throughputSweep) {
            addIfAbsent(a, "--samples", (long) Math.max(10, 100 * scale));
            addIfAbsent(a, "--warmup-time", (long) Math.max(200, 3_000 * scale));
            addIfAbsent(a, "--warmup-messages", (long) Math.max(1_000, 20_000 * scale));
        }
        return a;
    }

    private static void scaleOption(List<String> a, String name, double scale, long floor) {
        int i = a.indexOf(name);
        if (i >= 0 && i + 1 < a.size()) {
            double v = parseCount(a.get(i + 1));
            a.set(i + 1, Long.toString(Math.min((long) v, Math.max(floor, Math.round(v * scale)))));
        }
    }

    /** 200000, 20k, 1m as msgscope reads them. */
    private static double parseCount(String v) {
        String t = v.toLowerCase(Locale.ROOT);
        double f = t.endsWith("k") ? 1e3 : t.endsWith("m") ? 1e6 : 1;
        return Double.parseDouble(f == 1 ? t : t.substring(0, t.length() - 1)) * f;
    }

    private static void addIfAbsent(List<String> a, String name, long value) {
        addIfAbsent(a, name, Long.toString(value));
    }

    private static void addIfAbsent(List<String> a, String name, String value) {
        if (!a.contains(name)) {
            a.add(name);
            a.add(value);
        }
    }

    @Test
    void theExtractionFindsTheReadmesExamplesAndHonoursTheMarker() throws IOException {
        List<Example> readme = examples(repoRoot().resolve("README.md"), "README.md");
        assertTrue(readme.size() >= 8, readme::toString);
        assertEquals(List.of("run"), readme.get(0).args(), "the first example is the main job");
        List<Example> commands = examples(repoRoot().resolve("docs/commands.md"), "docs/commands.md");
        assertTrue(commands.size() >= 30, commands::toString);
        assertFalse(commands.stream().anyMatch(e -> e.args().get(0).equals("agent") || e.args().contains("--agent")),
                "agents and runs on other hosts are marked not run");
        Path page = tmp.resolve("page.md");
        Files.writeString(page, String.join("\n", "```sh", "./msgscope run --count 5 \\", "  --rate 10   # note",
                "git status", "```", "<!-- examples: not run: agents on other hosts -->", "```sh",
                "msgscope agent --role relay --listen 10.0.0.2:7600", "```", "```text", "msgscope plot x", "```",
                "```sh", "msgscope plot 'a b'", "```"));
        List<Example> ex = examples(page, "page.md");
        assertEquals(2, ex.size(), ex::toString);
        assertEquals(List.of("run", "--count", "5", "--rate", "10"), ex.get(0).args());
        assertEquals(2, ex.get(0).line());
        assertEquals(List.of("plot", "a b"), ex.get(1).args());
        assertEquals(List.of("run", "--count", "10000", "--rate", "10", "--warmup", "1000"),
                shrunk(ex.get(0).args().stream().map(s -> s.equals("5") ? "200000" : s).toList(), 0.01));
        assertEquals(List.of("run", "--count", "100000", "--rate", "20k", "--warmup", "20000"),
                shrunk(List.of("run", "--count", "200000", "--rate", "20k"), 0.01), "five seconds at the rate");
        assertEquals(List.of("run", "--count", "25000", "--rate", "5000", "--warmup", "5000"),
                shrunk(List.of("run", "--count", "100000", "--rate", "5000"), 0.01), "JetStream's example");
        assertEquals(List.of("run", "--phases", "a:2s@2k", "--warmup", "1000"), shrunk(List.of("run", "--phases",
                "a:2s@2k"), 0.01), "phases schedule their own count");
        assertEquals(List.of("run", "--count", "5000", "--warmup", "1000"), shrunk(List.of("run", "--count", "5000"),
                0.01), "never more than written");
        assertEquals(List.of("scenario", "--duration", "2", "--warmup", "1"), shrunk(List.of("scenario"), 0.01));
        assertEquals(List.of("scenario", "--duration", "60"), shrunk(List.of("scenario", "--duration", "60"), 1));
        assertEquals(List.of("scenario", "--phases", "a:2s@2k", "--warmup", "1"),
                shrunk(List.of("scenario", "--phases", "a:2s@2k"), 0.01), "scenario phases last as written");
    }

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s#]+)(#[^)\\s]*)?\\)");

    /** Every relative link of README.md, BENCHMARKS.md and docs/ points at a file or folder that exists. */
    @Test
    void everyRelativeLinkPointsAtSomethingThatExists() throws IOException {
        Path root = repoRoot();
        List<Path> pages = pagesWithBenchmarks();
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = LINK.matcher(lines.get(i));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("^[a-z]+:.*")) {
                        continue; // http:, mailto: ...
                    }
                    if (!Files.exists(page.getParent().resolve(target).normalize())) {
                        broken.add(root.relativize(page) + ":" + (i + 1) + ": " + target);
                    }
                }
            }
        }
        assertTrue(broken.isEmpty(), () -> "links to nothing:\n" + String.join("\n", broken));
    }

    /**
     * Issue 29: a clone has no {@code msgscope} on its PATH (a bare one exits 127), so every command in an sh block
     * of README.md, BENCHMARKS.md and docs/ — run here or marked not run — is written {@code ./msgscope}; and the
     * launcher, linked into a folder on the PATH as docs/commands.md says, finds its clone through the link.
     */
    @Test
    void everyCommandIsTheClonesLauncherAndTheLauncherWorksThroughALink() throws Exception {
        Path root = repoRoot();
        List<Path> pages = pagesWithBenchmarks();
        List<String> bare = new ArrayList<>();
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            boolean inBlock = false;
            boolean sh = false;
            for (int i = 0; i < lines.size(); i++) {
                Matcher fence = FENCE.matcher(lines.get(i));
                if (fence.find()) {
                    sh = !inBlock && fence.group(1).equals("sh");
                    inBlock = !inBlock;
                } else if (inBlock && sh && lines.get(i).matches("^\\s*msgscope\\s.*")) {
                    bare.add(root.relativize(page) + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        List<String> installs = new ArrayList<>();
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).matches(".*\\bmvnw\\b.*\\sinstall(\\s.*)?$")) {
                    installs.add(root.relativize(page) + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertTrue(installs.isEmpty(), () -> "a recipe must not install into the user's ~/.m2:\n" + String.join("\n", installs));
        assertTrue(bare.isEmpty(), () -> "a bare msgscope is not on a clone's PATH (exit 127):\n" + String.join("\n", bare));
        String commands = Files.readString(root.resolve("docs/commands.md"), StandardCharsets.UTF_8);
        assertTrue(commands.contains("ln -s \"$PWD/msgscope\" ~/.local/bin/msgscope"), "docs/commands.md says how");
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("msgscope"), root.resolve("msgscope"));
        ProcessBuilder pb = new ProcessBuilder(bin.resolve("msgscope").toString(), "--version")
                .directory(bin.toFile()).redirectErrorStream(true);
        pb.environment().put("MSGSCOPE_NO_REBUILD", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.startsWith("msgscope "), out);
    }

    /** Each page's examples, in order, in the page's own working folder; the same command runs once per page. */
    @TestFactory
    Stream<DynamicTest> everyExampleRunsAsWritten() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        double scale = scale();
        Path root = repoRoot();
        String only = System.getenv("MSGSCOPE_DOCS_PAGES"); // e.g. "drivers/kafka": only pages whose path holds it
        for (Path page : pages()) {
            String name = root.relativize(page).toString();
            if (only != null && !only.isBlank() && !name.contains(only)) {
                continue;
            }
            Path work = tmp.resolve(name.replaceAll("[^A-Za-z0-9]+", "-").toLowerCase(Locale.ROOT));
            copyExamples(root.resolve("examples"), work.resolve("examples")); // the files the docs' commands name
            Set<List<String>> seen = new LinkedHashSet<>();
            for (Example e : examples(page, name)) {
                List<String> args = shrunk(e.args(), scale);
                if (seen.add(args)) {
                    tests.add(DynamicTest.dynamicTest(e.toString(), () -> run(work, e, args)));
                }
            }
        }
        return tests.stream();
    }

    /** The repository's examples/ folder (workload files) into a page's working folder. */
    private static void copyExamples(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            return;
        }
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static void run(Path work, Example e, List<String> args) throws Exception {
        if (args.get(0).equals("scenario") || args.contains("--driver")) {
            String driver = args.contains("--driver") ? args.get(args.indexOf("--driver") + 1) : "zmq";
            switch (driver) {
                case "amqp" -> ScenarioIT.requireBroker(5672, "RabbitMQ");
                case "amqp10" -> io.msgscope.driver.amqp10.RabbitAmqp10.require(); // enables rabbitmq_amqp1_0 when off
                case "rabbitmq-stream" -> RabbitStreams.require(); // enables rabbitmq_stream when off
                case "mqtt" -> ScenarioIT.requireBroker(1883, "Mosquitto");
                case "nats" -> ScenarioIT.requireBroker(4222, "nats-server");
                case "redis" -> ScenarioIT.requireBroker(6379, "Redis");
                case "stomp" -> RabbitStreams.requirePlugin("rabbitmq_stomp", 61613, "STOMP"); // enables it when off
                case "kafka" -> args = toOwnKafka(args);
                default -> { }
            }
        }
        MsgscopeProcess p = MsgscopeProcess.start(work, args.toArray(String[]::new));
        int rc = p.waitFor(600);
        if (rc != 0) {
            String err = TraceRunIT.safe(p::err);
            String out = TraceRunIT.safe(p::out);
            fail(e + "\n  ran as: msgscope " + String.join(" ", args) + "\n  exit " + rc + "\n  stderr: "
                    + tail(err) + "\n  stdout: " + tail(out));
        }
    }

    private static String tail(String s) {
        return s.length() <= 3_000 ? s : "..." + s.substring(s.length() - 3_000);
    }
}
