package io.msgscope.driver.amqp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;

import java.util.Set;

/**
 * The {@code --opt} keys of the AMQP 0-9-1 driver (seed 000, A4), read and checked once, before any
 * connection is made. Both sides read the whole set, so a combination the broker would refuse is bad
 * input on either side, named after the option to drop.
 *
 * @param autoAck     {@code auto_ack}: basic.consume with no-ack; the broker forgets a message as it sends it
 * @param txSize      {@code tx_size}: messages per producer and per consumer transaction (tx.select on both
 *                    channels; tx.commit after every tx_size publishes, and after every tx_size deliveries
 *                    once they are acked); 0 = no transactions
 * @param mandatory   {@code mandatory}: basic.publish mandatory flag; unroutable messages come back
 *                    as basic.return and are counted as {@code returned}
 * @param immediate   {@code immediate}: basic.publish immediate flag (RabbitMQ 3.0 and later refuse it by
 *                    closing the connection, 540 NOT_IMPLEMENTED; Qpid Broker-J returns the message,
 *                    313 NO_CONSUMERS, when no consumer can take it)
 * @param persistent  {@code persistent}: delivery mode 2 instead of 1
 * @param confirm     {@code confirm}: publisher confirms, at most this many unconfirmed messages in flight
 *                    (the publisher waits when the window is full; drain waits for every confirm); 0 = off
 * @param prefetch    {@code prefetch}: basic.qos prefetch count of the consumer; 0 = unlimited
 * @param multiAck    {@code multi_ack}: acknowledge every K deliveries with multiple=true; 1 = each one
 * @param tlsVerify   {@code tls_verify}: for amqps:// URIs, check the broker's certificate (against {@code tls_ca}, or
 *                    the JVM's default trust store) and its host name; false (the default) trusts any certificate
 *                    unless {@code tls_ca} is given ({@link AmqpTls})
 * @param topic       {@code topic}: route through {@code exchange} with this routing key instead of the default
 *                    exchange and the queue's name: the subscriber binds its queue to the exchange with it, the
 *                    publisher publishes to the exchange with it (scenario mode sets it per connection); empty = off
 * @param exchange    {@code exchange}: the topic exchange {@code topic} routes through, default
 *                    {@value #DEFAULT_EXCHANGE}; declared (topic, non-durable, auto-delete) when it does not exist
 * @param group       {@code group}: consume the named, shared, auto-delete queue of this name, bound to {@code topic},
 *                    instead of a server-named one of the subscriber's own (round-robin, Q6); empty = off
 * @param nio         {@code io}: {@code nio} (the default in scenarios): amqp-client's NIO mode on the agent's
 *                    shared loops, a constant number of threads for any number of connections; {@code blocking}
 *                    (the default in run and throughput modes, one connection per side): amqp-client's
 *                    classic blocking sockets, a reader thread per connection (what PerfTest uses), cheaper per
 *                    message for a connection or two (docs/drivers/amqp.md)
 * @param queueType   {@code queue_type}: {@code classic} (the default: seed 000's server-named, auto-delete queue,
 *                    A2), {@code quorum} or {@code stream} (RabbitMQ 3.9 and later): a named, durable queue of that
 *                    type, which msgscope deletes when the subscriber closes; a stream is read from the next
 *                    message on with a prefetch and manual acks
 * @param reconnect   {@code reconnect} (issue 32 item 3, {@link io.msgscope.core.driver.Reconnects}): a lost connection
 *                    is opened again (each side on its own), the queue declared again and consumed, and what publisher
 *                    confirms did not confirm published again; false (the default) ends the run as before. The
 *                    subscriber's queue is then named by msgscope (the publisher must find it again; routed, the
 *                    group's name or {@code msgscope-TYPE-RANDOM}, bound again after each reconnect), not auto-delete
 *                    (a lost consumer would delete it) and durable when messages are {@code persistent}
 * @param tlsCa       {@code tls_ca}: for amqps:// URIs, a PEM file of the certificates the broker's must chain to;
 *                    null when not given ({@link AmqpTls})
 */
public record AmqpOptions(boolean autoAck, int txSize, boolean mandatory, boolean immediate, boolean persistent,
                          int confirm, int prefetch, int multiAck, boolean tlsVerify, String topic, String exchange,
                          String group, boolean nio, QueueType queueType, boolean reconnect, String tlsCa) {

    /** The queue types of RabbitMQ's {@code x-queue-type}: what a queue keeps and how it is read. */
    public enum QueueType {
        /** Seed 000's queue (A2): server-named, auto-delete, in memory unless persistent. */
        CLASSIC,
        /** Raft-replicated, always durable; named, since a quorum queue cannot be server-named or auto-delete. */
        QUORUM,
        /** An append-only log read without removing: every consumer of it sees every message. */
        STREAM;

        String argument() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** Quorum and stream queues keep every message on disk whatever the delivery mode says. */
        boolean durable() {
            return this != CLASSIC;
        }
    }

    public static final String AUTO_ACK = "auto_ack";
    public static final String TX_SIZE = "tx_size";
    public static final String MANDATORY = "mandatory";
    public static final String IMMEDIATE = "immediate";
    public static final String PERSISTENT = "persistent";
    public static final String CONFIRM = "confirm";
    public static final String PREFETCH = "prefetch";
    public static final String MULTI_ACK = "multi_ack";
    public static final String TLS_VERIFY = "tls_verify";
    public static final String TLS_CA = "tls_ca";
    public static final String TOPIC = "topic";
    public static final String EXCHANGE = "exchange";
    public static final String GROUP = "group";
    public static final String IO = "io";
    public static final String QUEUE_TYPE = "queue_type";
    public static final String RECONNECT = io.msgscope.core.driver.Reconnects.OPTION;
    /** {@code msgscope clean} only: RabbitMQ's management API, http://HOST:PORT ({@link AmqpClean}). */
    public static final String MANAGEMENT = "management";

    public static final Set<String> KEYS = Set.of(AUTO_ACK, TX_SIZE, MANDATORY, IMMEDIATE, PERSISTENT, CONFIRM,
            PREFETCH, MULTI_ACK, TLS_VERIFY, TLS_CA, TOPIC, EXCHANGE, GROUP, IO, QUEUE_TYPE, RECONNECT, MANAGEMENT);

    /** Predeclared by every AMQP 0-9-1 broker (RabbitMQ, Qpid Broker-J). */
    public static final String DEFAULT_EXCHANGE = "amq.topic";
    /** AMQP 0-9-1 names and routing keys are short strings: at most 255 bytes. */
    static final int MAX_NAME_BYTES = 255;

    /** basic.qos prefetch-count is a short (0-65535) in AMQP 0-9-1. */
    static final int MAX_PREFETCH = 65_535;
    static final int MAX_WINDOW = 1 << 24;
    /**
     * A stream consumer must have a prefetch (RabbitMQ refuses basic.consume without one): this many when
     * {@code prefetch} is not given, as many as a fast consumer keeps busy without holding much in its client.
     */
    static final int STREAM_PREFETCH = 1_000;

    /** Reads and cross-checks every option; bad values and bad combinations name the option. */
    public static AmqpOptions of(DriverSpec spec) {
        spec.requireKnownOptions("amqp", KEYS);
        boolean autoAck = spec.boolOption(AUTO_ACK, false);
        int txSize = (int) spec.longOption(TX_SIZE, 0, 0, MAX_WINDOW);
        boolean mandatory = spec.boolOption(MANDATORY, false);
        boolean immediate = spec.boolOption(IMMEDIATE, false);
        QueueType queueType = queueType(spec.option(QUEUE_TYPE, "classic"));
        boolean persistent = spec.boolOption(PERSISTENT, queueType.durable());
        if (queueType.durable() && !persistent) {
            throw new SpecException("--opt " + PERSISTENT, "false cannot be honoured by a " + queueType.argument()
                    + " queue (it keeps every message on disk whatever the delivery mode); drop it or use "
                    + "--opt queue_type=classic");
        }
        if (queueType.durable() && immediate) {
            throw new SpecException("--opt " + IMMEDIATE, "cannot be used with --opt queue_type=" + queueType.argument()
                    + " (a RabbitMQ queue type, and RabbitMQ 3.0 and later refuse the flag); drop it");
        }
        if (queueType == QueueType.STREAM && autoAck) {
            throw new SpecException("--opt " + AUTO_ACK, "cannot be used with --opt queue_type=stream: a stream "
                    + "consumer must acknowledge (its prefetch credit comes back with the acks); drop --opt " + AUTO_ACK);
        }
        int confirm = (int) spec.longOption(CONFIRM, 0, 0, MAX_WINDOW);
        int prefetch = (int) spec.longOption(PREFETCH, 0, 0, MAX_PREFETCH);
        int multiAck = (int) spec.longOption(MULTI_ACK, 1, 1, MAX_WINDOW);
        boolean tlsVerify = spec.boolOption(TLS_VERIFY, false);
        if (txSize > 0 && confirm > 0) {
            throw new SpecException("--opt " + CONFIRM, "cannot be used with --opt " + TX_SIZE
                    + ": an AMQP channel is either transactional or in confirm mode; drop one of them");
        }
        if (autoAck && txSize > 0) {
            throw new SpecException("--opt " + TX_SIZE, "needs manual acks on the consumer (its transactions "
                    + "commit acks); drop --opt " + AUTO_ACK + " or --opt " + TX_SIZE);
        }
        if (autoAck && multiAck > 1) {
            throw new SpecException("--opt " + MULTI_ACK, "needs manual acks; with --opt " + AUTO_ACK
                    + "=true nothing is acked; drop one of them");
        }
        if (autoAck && prefetch > 0) {
            throw new SpecException("--opt " + PREFETCH, "has no effect with --opt " + AUTO_ACK
                    + "=true (the broker ignores basic.qos for no-ack consumers); drop one of them");
        }
        if (prefetch > 0 && prefetch < multiAck) {
            throw new SpecException("--opt " + PREFETCH, "must be at least --opt " + MULTI_ACK + " (" + multiAck
                    + "), or the consumer waits forever for the delivery that would trigger its ack; got "
                    + prefetch);
        }
        if (prefetch > 0 && prefetch < txSize) {
            throw new SpecException("--opt " + PREFETCH, "must be at least --opt " + TX_SIZE + " (" + txSize
                    + "): acks in a transaction free no prefetch credit until the commit; got " + prefetch);
        }
        String topic = name(spec, TOPIC, "");
        String exchange = name(spec, EXCHANGE, DEFAULT_EXCHANGE);
        String group = name(spec, GROUP, "");
        if (topic.isEmpty() && spec.options().containsKey(EXCHANGE)) {
            throw new SpecException("--opt " + EXCHANGE, "routes by topic: it needs --opt " + TOPIC
                    + " (without it messages go through the default exchange to the subscriber's queue)");
        }
        if (topic.isEmpty() && !group.isEmpty()) {
            throw new SpecException("--opt " + GROUP, "is a queue shared by the subscribers of one topic: it needs --opt "
                    + TOPIC);
        }
        if (queueType == QueueType.STREAM && !group.isEmpty()) {
            throw new SpecException("--opt " + GROUP, "cannot share a stream: every consumer of a stream reads every "
                    + "message (reads do not remove), so there is no round-robin; use --opt queue_type=quorum or classic");
        }
        if (group.startsWith("amq.")) {
            throw new SpecException("--opt " + GROUP, "must not start with 'amq.' (queue names the brokers reserve), got '"
                    + group + "'");
        }
        // blocking by default: one connection per side (run, throughput) costs ~30 % less CPU per message that way;
        // scenarios, with their hundreds of connections, get nio from AmqpScenarios unless the user chose
        boolean nio = switch (spec.option(IO, "blocking").toLowerCase(java.util.Locale.ROOT)) {
            case "nio" -> true;
            case "blocking" -> false;
            default -> throw new SpecException("--opt " + IO, "must be nio (shared I/O threads) or blocking (a thread "
                    + "per connection), got '" + spec.option(IO, "") + "'");
        };
        boolean reconnect = spec.boolOption(RECONNECT, false);
        if (reconnect && txSize > 0) {
            throw new SpecException("--opt " + RECONNECT, "=true does not resume transactions yet (docs/limits.md): drop "
                    + "--opt " + TX_SIZE + " (publisher confirms, --opt " + CONFIRM + "=N, are what it republishes by)");
        }
        return new AmqpOptions(autoAck, txSize, mandatory, immediate, persistent, confirm, prefetch, multiAck,
                tlsVerify, topic, exchange, group, nio, queueType, reconnect, tlsCa(spec));
    }

    /** {@code --opt tls_ca}: a readable file, or null when not given. */
    private static String tlsCa(DriverSpec spec) {
        String ca = spec.option(TLS_CA, null);
        if (ca != null && !java.nio.file.Files.isReadable(java.nio.file.Path.of(ca))) {
            throw new SpecException("--opt " + TLS_CA, "cannot read the CA file '" + ca + "'");
        }
        return ca;
    }

    private static QueueType queueType(String v) {
        return switch (v.toLowerCase(java.util.Locale.ROOT)) {
            case "classic" -> QueueType.CLASSIC;
            case "quorum" -> QueueType.QUORUM;
            case "stream" -> QueueType.STREAM;
            default -> throw new SpecException("--opt " + QUEUE_TYPE, "must be classic, quorum or stream, got '" + v + "'");
        };
    }

    /** A short-string option: absent = {@code dflt}; given, 1 to 255 bytes of UTF-8. */
    private static String name(DriverSpec spec, String key, String dflt) {
        String v = spec.options().get(key);
        if (v == null) {
            return dflt;
        }
        if (v.isEmpty() || v.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            throw new SpecException("--opt " + key, "must be 1 to " + MAX_NAME_BYTES + " bytes (an AMQP short string), got '"
                    + v + "'");
        }
        return v;
    }

    /** True when messages are routed by topic through {@link #exchange} (scenario mode, or {@code --opt topic}). */
    boolean routed() {
        return !topic.isEmpty();
    }

    /**
     * True when these options make delivery a promise (Q6): the broker confirms taking each message (publisher
     * confirms, or transactions) and keeps it until the consumer acknowledges it (manual acks). Without confirms a
     * publish is fire-and-forget; with auto-ack the broker forgets a message as it sends it. Persistence is about
     * broker restarts, which end the run anyway (the connections are lost), so it is not needed.
     */
    boolean reliable() {
        return (confirm > 0 || txSize > 0) && !autoAck;
    }

    /**
     * Deliveries the client may hold beyond a consumer transaction before its commit, when no
     * {@code prefetch} is given: amqp-client queues deliveries per channel and blocks its connection
     * thread once 1,000 are waiting, while the consumer thread waits in {@code tx.commit} for a reply
     * only that thread can read: with an unbounded prefetch the two wait on each other (seen here as a
     * 30 s stall of one commit). A prefetch of {@code tx_size + 500} keeps at most 500 waiting at a commit.
     */
    static final int TX_PREFETCH_SLACK = 500;

    /** The basic.qos prefetch count to set, 0 = none: {@code prefetch}, or the bound consumer transactions need. */
    int effectivePrefetch() {
        if (queueType == QueueType.STREAM && prefetch == 0) {
            return Math.min(MAX_PREFETCH, Math.max(STREAM_PREFETCH, Math.max(multiAck, txSize + TX_PREFETCH_SLACK)));
        }
        if (prefetch > 0 || autoAck || txSize == 0) {
            return prefetch;
        }
        // above the largest prefetch count a bound would stop the consumer before its commit: none then
        return txSize + TX_PREFETCH_SLACK <= MAX_PREFETCH ? txSize + TX_PREFETCH_SLACK : 0;
    }
}
