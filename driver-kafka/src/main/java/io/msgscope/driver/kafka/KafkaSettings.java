package io.msgscope.driver.kafka;

import io.msgscope.core.Secrets;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Reconnects;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The Kafka URI and options of one side, read once and strictly, each error naming its option (see
 * {@link KafkaDriver} for what each means). Both sides read the same way, so {@code checkOptions} refuses before any
 * agent starts what a side would refuse later.
 *
 * @param bootstrap   {@code host:port,host:port} as the clients take it
 * @param topic       the topic; empty on a subscriber whose topic msgscope names (see {@link #ownTopic})
 * @param ownTopic    true when msgscope chose the topic's name (and so creates and deletes it)
 * @param acks        "0", "1" or "all"
 * @param idempotence the producer's enable.idempotence
 * @param linger      linger.ms, or -1 for the client's default
 * @param batchSize   batch.size, or -1 for the client's default
 * @param compression none, gzip, snappy, lz4 or zstd
 * @param maxInflight sends not yet acknowledged before {@code send} waits and {@code offer} refuses
 * @param fetchMinBytes   fetch.min.bytes, or -1 for the client's default
 * @param fetchMaxWaitMs  fetch.max.wait.ms, or -1 for the client's default
 * @param classicGroups   group.protocol=classic instead of the consumer protocol (KIP-848, Kafka 4)
 * @param reconnect   {@code --opt reconnect=true} (issue 32 item 3): failed sends are sent again, not the end of the
 *                    run, and a consumer's group keeps committed positions to come back to ({@link KafkaPublisher})
 * @param tls         over {@code kafka+ssl://}: what the TLS trusts ({@link KafkaTls}); null over PLAINTEXT
 */
record KafkaSettings(String bootstrap, String address, String topic, boolean ownTopic, String group, int partitions,
                     short replication, String acks, boolean idempotence, int linger, int batchSize,
                     String compression, int maxInflight, int fetchMinBytes, int fetchMaxWaitMs,
                     boolean classicGroups, boolean reconnect, KafkaTls tls) {
    static final String DEFAULT_URI = "kafka://127.0.0.1:9092";
    static final int DEFAULT_PORT = 9092;
    /** The TLS scheme ({@code security.protocol=SSL}) and its default port. */
    static final String TLS_SCHEME = "kafka+ssl://";
    static final int DEFAULT_TLS_PORT = 9093;
    /** Every topic and consumer group msgscope names starts with this: {@code msgscope clean} finds leftovers by it. */
    static final String PREFIX = "msgscope";
    /** Kafka's limit on a topic name. */
    static final int MAX_TOPIC = 249;
    static final Set<String> KEYS = Set.of("topic", "group", "partitions", "replication", "acks", "idempotence",
            "linger_ms", "batch_size", "compression", "max_inflight", "fetch_min_bytes", "fetch_max_wait_ms",
            "group_protocol", Reconnects.OPTION, KafkaTls.CA, KafkaTls.VERIFY);
    static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");

    static KafkaSettings of(DriverSpec spec, boolean publisher) {
        spec.requireKnownOptions("kafka", KEYS);
        String uri = spec.uri().isEmpty() ? DEFAULT_URI : spec.uri();
        List<String> servers = servers(uri);
        KafkaTls tls = KafkaTls.of(spec, isTls(uri));
        String bootstrap = String.join(",", servers);
        String acks = spec.option("acks", "all").toLowerCase(Locale.ROOT);
        if (acks.equals("-1")) {
            acks = "all";
        }
        if (!acks.equals("0") && !acks.equals("1") && !acks.equals("all")) {
            throw new SpecException("--opt acks", "must be 0, 1 or all, got '" + spec.option("acks", "") + "'");
        }
        boolean idempotence = spec.boolOption("idempotence", acks.equals("all"));
        if (idempotence && !acks.equals("all")) {
            throw new SpecException("--opt idempotence", "true needs --opt acks=all (Kafka's idempotent producer "
                    + "waits for every in-sync replica), got acks=" + acks);
        }
        String compression = spec.option("compression", "none").toLowerCase(Locale.ROOT);
        if (!CODECS.contains(compression)) {
            throw new SpecException("--opt compression", "must be one of " + String.join(", ", CODECS) + ", got '"
                    + spec.option("compression", "") + "'");
        }
        int linger = (int) spec.longOption("linger_ms", -1, 0, 60_000);
        int batch = (int) spec.longOption("batch_size", -1, 0, 64 << 20);
        int partitions = (int) spec.longOption("partitions", 1, 1, 10_000);
        short replication = (short) spec.longOption("replication", 1, 1, Short.MAX_VALUE);
        int maxInflight = (int) spec.longOption("max_inflight", 10_000, 1, 10_000_000);
        int fetchMin = (int) spec.longOption("fetch_min_bytes", -1, 1, 64 << 20);
        int fetchWait = (int) spec.longOption("fetch_max_wait_ms", -1, 0, 60_000);
        String protocol = spec.option("group_protocol", "consumer").toLowerCase(Locale.ROOT);
        if (!protocol.equals("consumer") && !protocol.equals("classic")) {
            throw new SpecException("--opt group_protocol", "must be consumer (KIP-848, Kafka 4 brokers) or classic, "
                    + "got '" + spec.option("group_protocol", "") + "'");
        }
        String given = spec.option("topic", "");
        if (spec.options().containsKey("topic")) {
            checkTopic("--opt topic", given);
        }
        String group = spec.option("group", "");
        if (spec.options().containsKey("group") && (group.isEmpty() || group.chars().anyMatch(Character::isWhitespace))) {
            throw new SpecException("--opt group", "must be a consumer group name without white space, got '" + group
                    + "'");
        }
        String topic;
        boolean own;
        if (publisher) {
            topic = !spec.destination().isEmpty() ? spec.destination() : given;
            if (topic.isEmpty()) {
                throw new SpecException("--opt topic", "the kafka publisher has no topic: give --opt topic or let the "
                        + "subscriber choose one");
            }
            own = false;
        } else {
            own = given.isEmpty();
            topic = own ? PREFIX + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) : given;
        }
        return new KafkaSettings(bootstrap, servers.get(0) + (servers.size() > 1 ? " (+" + (servers.size() - 1)
                + " more)" : ""), topic, own, group, partitions, replication, acks, idempotence, linger, batch,
                compression, maxInflight, fetchMin, fetchWait, protocol.equals("classic"), Reconnects.on(spec), tls);
    }

    /** Whether the URI asks for TLS ({@code kafka+ssl://}). */
    static boolean isTls(String raw) {
        return raw.toLowerCase(Locale.ROOT).startsWith(TLS_SCHEME);
    }

    /**
     * Reads {@code kafka://host:port[,host:port...]} or {@code kafka+ssl://...}: the bootstrap servers, port 9092
     * (9093 over TLS) when left out, nothing after them but an optional '/'. User info is refused (this driver does
     * not authenticate), its password masked.
     */
    static List<String> servers(String raw) {
        String shown = Secrets.uri(raw);
        boolean tls = isTls(raw);
        if (!tls && !raw.toLowerCase(Locale.ROOT).startsWith("kafka://")) {
            throw new SpecException("--uri", "must start with kafka:// or kafka+ssl://, got '" + shown + "'");
        }
        String rest = raw.substring(tls ? TLS_SCHEME.length() : "kafka://".length());
        if (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        if (rest.indexOf('@') >= 0) {
            throw new SpecException("--uri", "holds user info: the kafka driver connects over PLAINTEXT or SSL "
                    + "without authentication, got '" + shown + "'");
        }
        if (rest.isEmpty()) {
            throw new SpecException("--uri", "names no broker: '" + shown + "'");
        }
        List<String> out = new ArrayList<>();
        for (String hp : rest.split(",", -1)) {
            out.add(server(hp, shown, tls ? DEFAULT_TLS_PORT : DEFAULT_PORT));
        }
        return out;
    }

    private static String server(String hp, String shown, int defaultPort) {
        String host;
        String port;
        if (hp.startsWith("[")) { // [IPv6]:port
            int close = hp.indexOf(']');
            if (close < 0) {
                throw new SpecException("--uri", "has an unclosed '[' in '" + shown + "'");
            }
            host = hp.substring(0, close + 1);
            String after = hp.substring(close + 1);
            if (!after.isEmpty() && !after.startsWith(":")) {
                throw new SpecException("--uri", "cannot read '" + hp + "' in '" + shown + "' as host:port");
            }
            port = after.isEmpty() ? "" : after.substring(1);
        } else {
            int colon = hp.indexOf(':');
            host = colon < 0 ? hp : hp.substring(0, colon);
            port = colon < 0 ? "" : hp.substring(colon + 1);
        }
        if (host.isEmpty() || !host.matches("\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9.-]+")) {
            throw new SpecException("--uri", "names no valid host in '" + hp + "' of '" + shown
                    + "' (kafka://host:port[,host:port...] or kafka+ssl://...)");
        }
        int p = defaultPort;
        if (!port.isEmpty()) {
            try {
                p = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                p = -1;
            }
            if (p < 1 || p > 65_535) {
                throw new SpecException("--uri", "has a port that is not 1-65535 in '" + hp + "' of '" + shown + "'");
            }
        }
        return host + ":" + p;
    }

    /** Kafka's rule for topic names: 1-249 characters of ASCII letters, digits, '.', '_' and '-', not "." or "..". */
    static void checkTopic(String option, String topic) {
        if (topic.isEmpty() || topic.length() > MAX_TOPIC || !topic.matches("[A-Za-z0-9._-]+")
                || topic.equals(".") || topic.equals("..")) {
            throw new SpecException(option, "must be a Kafka topic name: 1-" + MAX_TOPIC + " characters of ASCII "
                    + "letters, digits, '.', '_' and '-' (not '.' or '..'), got '" + topic + "'");
        }
    }

    /** The delivery guarantee in words, e.g. "acks=all, idempotent". */
    String label() {
        return "acks=" + acks + (idempotence ? ", idempotent" : "");
    }

    /**
     * Whether an acknowledged record is a promise the run can hold the broker to (issue 32 item 3): acks=all, where
     * every in-sync replica has it. acks=1 acknowledges the leader's write only, which a leader's failure may lose by
     * Kafka's own rules, and acks=0 acknowledges nothing.
     */
    boolean promises() {
        return acks.equals("all");
    }

    /**
     * Whether a subscriber's committed offsets must follow it (auto-commit, its start committed at once): in a shared
     * group a partition's next owner starts there; with reconnect=true (issue 32 item 3) a member that loses its
     * assignment to a broker's failure resumes there rather than at the partition's end, which would skip what was
     * sent meanwhile (what it consumed after the last commit comes again: duplicates, counted, not losses).
     */
    boolean keepsPositions() {
        return !group.isEmpty() || reconnect;
    }

    /** The results' broker section as far as these settings tell it: broker, protocol, topic, and tls over TLS. */
    Map<String, String> serverInfo() {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        m.put("broker", "kafka " + bootstrap);
        m.put("protocol", "Kafka (kafka-clients " + org.apache.kafka.common.utils.AppInfoParser.getVersion()
                + ", group protocol " + (classicGroups ? "classic" : "consumer") + (tls != null ? ", SSL" : "") + ")");
        m.put("topic", topic);
        if (tls != null) {
            m.put("tls", tls.label());
        }
        return m;
    }

    /** The options as the map a spec holds (scenarios read them without a URI). */
    static KafkaSettings ofOptions(Map<String, String> options) {
        return of(new DriverSpec("", 0, "", 32, 0, options, "msgscope-check"), true);
    }
}
