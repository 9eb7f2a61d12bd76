package io.msgscope.coordinator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.msgscope.core.SpecException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code --spec FILE} of {@code run}, {@code throughput} and {@code scenario} (issue 18): a run again exactly as
 * it was. FILE is a {@code summary.json} of any earlier run (its {@code spec} is read) or a spec on its own, JSON
 * or YAML ({@code .yaml}, {@code .yml}); its fields become the command's options, and options given on the
 * command line win over them. The spec a run writes loads back unchanged: the rerun's {@code spec_hash} is the
 * original's. Unknown fields, a spec of another mode and a masked password ({@code ****}, which summary.json
 * never shows in clear) are refused naming the field, so a rerun never quietly differs from what it repeats.
 */
public final class SpecFile {
    /** One field of a mode's spec: the option it becomes and how its value is written. */
    private record Field(String option, Function<JsonNode, String> value) {
        static Field plain(String option) {
            return new Field(option, JsonNode::asText);
        }

        static Field seconds(String option) {
            return new Field(option, n -> new java.math.BigDecimal(n.asLong()).movePointLeft(3).stripTrailingZeros()
                    .toPlainString());
        }
    }

    private static final Map<String, Field> RUN = new LinkedHashMap<>();
    private static final Map<String, Field> THROUGHPUT = new LinkedHashMap<>();
    private static final Map<String, Field> SCENARIO = new LinkedHashMap<>();

    static {
        for (Map<String, Field> m : List.of(RUN, THROUGHPUT, SCENARIO)) {
            m.put("driver", Field.plain("--driver"));
            m.put("uri", Field.plain("--uri"));
            m.put("size", Field.plain("--size"));
            m.put("padding", Field.plain("--padding"));
        }
        RUN.put("count", Field.plain("--count"));
        RUN.put("warmup", Field.plain("--warmup"));
        RUN.put("rate", Field.plain("--rate"));
        RUN.put("window", Field.plain("--window"));
        RUN.put("pin", new Field("--pin", JsonNode::asText)); // written as --pin or --no-pin
        RUN.put("drain_timeout_ms", Field.plain("--drain-timeout"));
        RUN.put("socket_buffer", Field.plain("--socket-buffer"));
        RUN.put("send_batch", Field.plain("--send-batch"));
        RUN.put("seed", Field.plain("--seed"));
        RUN.put("cpu_every", Field.plain("--cpu-every"));
        RUN.put("phases", new Field("--phases", SpecFile::phases));
        RUN.put("faults", new Field("--faults", SpecFile::faults));
        THROUGHPUT.put("in_flight", Field.plain("--in-flight"));
        THROUGHPUT.put("samples", Field.plain("--samples"));
        THROUGHPUT.put("final_samples", Field.plain("--final-samples"));
        THROUGHPUT.put("threshold_ms", Field.plain("--threshold"));
        THROUGHPUT.put("skip_factor", Field.plain("--skip-factor"));
        THROUGHPUT.put("probe_warmup_time_ms", Field.plain("--probe-warmup-time"));
        THROUGHPUT.put("warmup_time_ms", Field.plain("--warmup-time"));
        THROUGHPUT.put("warmup_messages", Field.plain("--warmup-messages"));
        THROUGHPUT.put("max_exponent", Field.plain("--max-exponent"));
        THROUGHPUT.put("pick", Field.plain("--pick"));
        THROUGHPUT.put("remeasure", Field.plain("--remeasure"));
        THROUGHPUT.put("max_probes", Field.plain("--max-probes"));
        SCENARIO.put("scenario", Field.plain("--scenario"));
        SCENARIO.put("publishers", Field.plain("--publishers"));
        SCENARIO.put("subscribers", Field.plain("--subscribers"));
        SCENARIO.put("rate", Field.plain("--rate"));
        SCENARIO.put("phases", new Field("--phases", SpecFile::phases));
        SCENARIO.put("warmup_ms", Field.seconds("--warmup"));
        SCENARIO.put("duration_ms", Field.seconds("--duration"));
        SCENARIO.put("topic_prefix", Field.plain("--topic-prefix"));
        SCENARIO.put("io_threads", Field.plain("--io-threads"));
        SCENARIO.put("connect_rate", Field.plain("--connect-rate"));
        SCENARIO.put("source_addresses", new Field("--source-addresses", n -> {
            List<String> a = new ArrayList<>();
            n.forEach(x -> a.add(x.asText()));
            return String.join(",", a);
        }));
        SCENARIO.put("allow_duplicates", new Field("--allow-duplicates", JsonNode::asText));
        SCENARIO.put("drain_timeout_ms", Field.plain("--drain-timeout"));
        SCENARIO.put("faults", new Field("--faults", SpecFile::faults));
    }

    private static final Map<String, String> MODE_OF_COMMAND = Map.of("run", "trace", "throughput", "throughput",
            "scenario", "scenario");

    private SpecFile() {
    }

    /**
     * The arguments with {@code --spec FILE} replaced by the spec's options, placed before the user's own (which
     * win: a spec field whose option is given is left out). Unchanged when the command takes no spec or none is
     * given.
     *
     * @throws SpecException naming {@code --spec} for an unreadable file, an unknown field, another mode's spec
     *                       or a masked secret
     */
    public static String[] expand(String[] args) {
        if (args.length == 0 || !MODE_OF_COMMAND.containsKey(args[0])) {
            return args;
        }
        String command = args[0];
        List<String> rest = new ArrayList<>();
        Path file = null;
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--spec")) {
                if (i + 1 >= args.length) {
                    throw new SpecException("--spec", "needs a FILE: a summary.json of an earlier run, or a spec in JSON or YAML");
                }
                file = Path.of(args[++i]);
            } else if (args[i].startsWith("--spec=")) {
                file = Path.of(args[i].substring("--spec=".length()));
            } else {
                rest.add(args[i]);
            }
        }
        if (file == null) {
            return args;
        }
        return expand(command, read(file), rest, file.toString()).toArray(String[]::new);
    }

    /**
     * {@code command}, the options of {@code spec} (a spec object, or a summary.json's root) that {@code rest}
     * does not give, then {@code rest}; {@code origin} names where the spec came from in messages.
     *
     * @throws SpecException naming {@code --spec} as {@link #expand(String[])} does
     */
    static List<String> expand(String command, JsonNode spec, List<String> rest, String origin) {
        if (!MODE_OF_COMMAND.containsKey(command)) {
            throw new IllegalArgumentException("no spec for msgscope " + command);
        }
        List<String> out = new ArrayList<>();
        out.add(command);
        out.addAll(options(command, spec, given(rest), origin));
        out.addAll(rest);
        return out;
    }

    /**
     * A JSON or YAML file (by its extension) as a tree. A key given twice in one object is refused naming it (issue 28:
     * the last value used to win silently).
     *
     * @param option what the file came from, for the {@link SpecException}
     */
    static JsonNode parse(Path file, String option) throws IOException {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        ObjectMapper m = name.endsWith(".yaml") || name.endsWith(".yml") ? new YAMLMapper() : new ObjectMapper();
        m.enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        try {
            return m.readTree(Files.readString(file));
        } catch (com.fasterxml.jackson.core.JsonParseException e) {
            java.util.regex.Matcher dup = java.util.regex.Pattern.compile("Duplicate field '(.*)'")
                    .matcher(String.valueOf(e.getOriginalMessage()));
            if (dup.matches()) {
                var at = e.getLocation();
                throw new SpecException(option, file + " gives the key '" + dup.group(1) + "' twice"
                        + (at == null || at.getLineNr() < 1 ? "" : " (the second at line " + at.getLineNr() + ")")
                        + "; keep one");
            }
            throw e;
        }
    }

    /** The spec object: a summary.json's {@code spec} (of the command's mode), or the file itself. */
    static JsonNode read(Path file) {
        JsonNode root;
        try {
            root = parse(file, "--spec");
        } catch (java.nio.file.NoSuchFileException e) {
            throw new SpecException("--spec", file + " does not exist");
        } catch (IOException e) {
            throw new SpecException("--spec", "cannot read " + file + ": " + oneLine(e.getMessage()));
        }
        if (root == null || !root.isObject()) {
            throw new SpecException("--spec", file + " holds no spec (a JSON or YAML object)");
        }
        return root;
    }

    private static List<String> options(String command, JsonNode root, Set<String> given, String file) {
        String mode = MODE_OF_COMMAND.get(command);
        JsonNode spec = root;
        if (root.has("spec") && root.get("spec").isObject()) { // a summary.json
            String was = root.path("mode").asText(mode);
            if (!was.equals(mode)) {
                throw new SpecException("--spec", file + " is the spec of a " + was + " run; give it to msgscope "
                        + commandOf(was) + ", not " + command);
            }
            spec = root.get("spec");
        }
        Map<String, Field> fields = command.equals("run") ? RUN : command.equals("throughput") ? THROUGHPUT : SCENARIO;
        List<String> a = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = spec.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = e.getKey();
            JsonNode v = e.getValue();
            if (key.equals("driver_options")) {
                driverOptions(v, given, a, file);
                continue;
            }
            Field f = fields.get(key);
            if (f == null) {
                throw new SpecException("--spec", "unknown field '" + key + "' in " + file + " for msgscope " + command
                        + " (it takes " + String.join(", ", fields.keySet()) + ", driver_options)");
            }
            if (v.isNull() || given.contains(f.option()) || key.equals("pin") && given.contains("--no-pin")) {
                continue;
            }
            boolean onPhases = spec.hasNonNull("phases") || given.contains("--phases");
            if (onPhases && (key.equals("count") || key.equals("rate") || key.equals("duration_ms"))) {
                continue; // the phases schedule the count, give the rates and the length (a replayed summary may hold them)
            }
            String text = f.value().apply(v);
            if (key.equals("uri") && text.isEmpty() || key.equals("source_addresses") && text.isEmpty()) {
                continue;
            }
            if (key.equals("uri") && text.contains("****")) {
                throw new SpecException("--spec", "field 'uri' of " + file + " has its password masked (" + text
                        + "); give --uri with the password");
            }
            if (key.equals("pin")) {
                a.add(v.asBoolean() ? "--pin" : "--no-pin");
            } else if (key.equals("allow_duplicates")) {
                if (v.asBoolean()) {
                    a.add("--allow-duplicates");
                }
            } else {
                a.add(f.option());
                a.add(text);
            }
        }
        return a;
    }

    /**
     * {@code phases} as the shorthand, or as a list of {@code {name, duration, rate}} objects ({@code rate: 5k..50k}
     * for a ramp, {@code 0} for a pause; {@code consumers: paused} for a backlog, {@code messages: 20k} instead of the
     * duration for one that ends on its size, {@code backlog: 20k} for one that ends on the broker's count (its duration
     * its cap), {@code until: drained} for a drain whose duration is its cap), joined into the shorthand
     * {@code --phases} parses and checks.
     */
    static String phases(JsonNode v) {
        if (!v.isArray()) {
            return v.asText();
        }
        List<String> parts = new ArrayList<>();
        for (JsonNode p : v) {
            boolean byCount = p.hasNonNull("messages");
            if (!p.isObject() || byCount == p.hasNonNull("duration") || !p.hasNonNull("rate")) {
                throw new SpecException("--spec", "each of 'phases' needs a rate and a duration or a message count, "
                        + "e.g. {name: steady, duration: 30s, rate: 5k} or {name: fill, messages: 20k, rate: 5k, "
                        + "consumers: paused}, got " + p);
            }
            String consumers = p.hasNonNull("consumers") ? p.get("consumers").asText() : "running";
            if (!consumers.equals("paused") && !consumers.equals("running")) {
                throw new SpecException("--spec", "'consumers' of a phase is paused or running, got " + p);
            }
            String until = p.hasNonNull("until") ? p.get("until").asText() : "";
            if (!until.isEmpty() && !until.equals("drained")) {
                throw new SpecException("--spec", "'until' of a phase is drained (the duration then its cap), got " + p);
            }
            parts.add((p.hasNonNull("name") ? p.get("name").asText() + ":" : "")
                    + (byCount ? p.get("messages").asText() + "msg" : p.get("duration").asText()) + "@"
                    + p.get("rate").asText() + (consumers.equals("paused") ? "/paused" : "")
                    + (p.hasNonNull("backlog") ? "/backlog=" + p.get("backlog").asText() : "")
                    + (until.isEmpty() ? "" : "/drained"));
        }
        return String.join(", ", parts);
    }

    /**
     * {@code faults} as the shorthand, or as a list of {@code {at, action, target}} objects (issue 32; a degrade also
     * {@code rate: 1mbit}), joined into the shorthand {@code --faults} parses and checks.
     */
    static String faults(JsonNode v) {
        if (!v.isArray()) {
            return v.asText();
        }
        List<String> parts = new ArrayList<>();
        for (JsonNode f : v) {
            if (!f.isObject() || !f.hasNonNull("at") || !f.hasNonNull("action") || !f.hasNonNull("target")) {
                throw new SpecException("--spec", "each of 'faults' needs at, action and target, e.g. "
                        + "{at: 30s, action: pause, target: node1}, got " + f);
            }
            parts.add(f.get("at").asText() + ":" + f.get("action").asText() + ":" + f.get("target").asText()
                    + (f.hasNonNull("rate") ? ":rate=" + f.get("rate").asText() : ""));
        }
        return String.join(", ", parts);
    }

    private static void driverOptions(JsonNode v, Set<String> given, List<String> a, String file) {
        if (!v.isObject()) {
            throw new SpecException("--spec", "field 'driver_options' of " + file + " must be an object of KEY: VALUE");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> o = it.next();
            if (given.contains("--opt " + o.getKey())) {
                continue;
            }
            if (o.getValue().asText().equals("****")) {
                throw new SpecException("--spec", "driver option '" + o.getKey() + "' of " + file + " is masked (****); "
                        + "give --opt " + o.getKey() + "=VALUE");
            }
            a.add("--opt");
            a.add(o.getKey() + "=" + o.getValue().asText());
        }
    }

    /** The options the user gave: their names, and each {@code --opt} as "--opt KEY". */
    static Set<String> given(List<String> args) {
        Set<String> g = new HashSet<>();
        for (int i = 0; i < args.size(); i++) {
            String s = args.get(i);
            if (!s.startsWith("--")) {
                continue;
            }
            String name = s.contains("=") ? s.substring(0, s.indexOf('=')) : s;
            g.add(name);
            if (name.equals("--opt")) {
                String kv = s.contains("=") ? s.substring(s.indexOf('=') + 1) : i + 1 < args.size() ? args.get(i + 1) : "";
                g.add("--opt " + (kv.contains("=") ? kv.substring(0, kv.indexOf('=')) : kv));
            }
        }
        return g;
    }

    private static String commandOf(String mode) {
        return mode.equals("trace") ? "run" : mode;
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
