package io.msgscope.driver.amqp10;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.TlsOptions;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code --opt} keys of the AMQP 1.0 driver (issue 19), read and checked once, before any connection is made
 * ({@link Amqp10Driver#checkOptions}); both sides read the whole set, so a bad value or combination is bad usage
 * (exit 2) whichever side would have used it.
 *
 * @param settled      {@code settled}: the sender's transfers are pre-settled (AMQP 1.0 "at most once": the broker
 *                     sends no disposition and may drop them) and the receiver's link asks for settled deliveries;
 *                     false (the default): unsettled transfers ("at least once"), every one answered by the broker's
 *                     disposition (accepted, rejected, released, modified), every delivery accepted by the receiver
 * @param credit       {@code credit}: the receiver's link credit, how many deliveries the broker may send before the
 *                     receiver grants more (AMQP 1.0's flow control; ProtonJ2 tops it up as deliveries are taken)
 * @param maxInflight  {@code max_inflight}: unsettled transfers the sender keeps outstanding before it waits for the
 *                     oldest one's disposition (the publisher window); only with {@code settled=false}
 * @param durable      {@code durable}: the messages' header says durable (the broker keeps them across a restart,
 *                     where the node it routes them to is durable)
 * @param address      {@code address}: the node both sides use instead of the queue the broker creates per run (a
 *                     dynamic node); empty = the dynamic node
 * @param topic        {@code topic}: route through RabbitMQ's {@code /topic/TOPIC} (the {@code amq.topic} exchange, a
 *                     private queue per receiver), scenario mode sets it; empty = off
 * @param shared       {@code shared}: with {@code topic}, both sides use the one queue {@code /queue/TOPIC} instead (the
 *                     receivers share it: round-robin)
 * @param containerId  {@code container_id}: the AMQP container id each connection announces in its open frame; empty =
 *                     ProtonJ2's generated one
 * @param idleTimeoutMs {@code idle_timeout_ms}: the idle timeout announced in open (the peer must send something at
 *                     least this often, and heartbeats are sent at half of the peer's); 0 = none
 * @param openTimeoutMs {@code open_timeout_ms}: how long connecting, opening a link and closing may take
 * @param tls          {@code tls_ca} and {@code tls_verify} ({@link TlsOptions}), read for an {@code amqps://} URI; null
 *                     for {@code amqp://}. Without {@code tls_ca} the default trusts any certificate (as the amqp
 *                     driver's); with it, the chain must end at one of its certificates and the host name is checked
 * @param reconnect    {@code reconnect} (issue 32 item 3, {@link io.msgscope.core.driver.Reconnects}): a lost
 *                     connection is got back with its links, unsettled transfers are sent again, every event counted
 *                     ({@link Amqp10Reconnect}); false (the default): a lost connection ends the run
 */
public record Amqp10Options(boolean settled, int credit, int maxInflight, boolean durable, String address,
                            String topic, boolean shared, String containerId, long idleTimeoutMs, long openTimeoutMs,
                            TlsOptions tls, boolean reconnect) {
    public static final String SETTLED = "settled";
    public static final String CREDIT = "credit";
    public static final String MAX_INFLIGHT = "max_inflight";
    public static final String DURABLE = "durable";
    public static final String ADDRESS = "address";
    public static final String TOPIC = "topic";
    public static final String SHARED = "shared";
    public static final String CONTAINER_ID = "container_id";
    public static final String IDLE_TIMEOUT_MS = "idle_timeout_ms";
    public static final String OPEN_TIMEOUT_MS = "open_timeout_ms";
    public static final String TLS_VERIFY = TlsOptions.VERIFY;
    public static final String TLS_CA = TlsOptions.CA;
    public static final String USERNAME = "username";
    public static final String PASSWORD = "password";
    public static final String RECONNECT = io.msgscope.core.driver.Reconnects.OPTION;

    public static final Set<String> KEYS = Set.of(SETTLED, CREDIT, MAX_INFLIGHT, DURABLE, ADDRESS, TOPIC, SHARED,
            CONTAINER_ID, IDLE_TIMEOUT_MS, OPEN_TIMEOUT_MS, TLS_VERIFY, TLS_CA, USERNAME, PASSWORD, RECONNECT);

    static final int DEFAULT_CREDIT = 1_000;
    static final int MAX_CREDIT = 1_000_000;
    static final int DEFAULT_MAX_INFLIGHT = 1_000;
    static final int MAX_MAX_INFLIGHT = 1 << 20;
    static final long DEFAULT_IDLE_TIMEOUT_MS = 60_000;
    static final long DEFAULT_OPEN_TIMEOUT_MS = 15_000;
    /** Addresses and container ids: AMQP strings, kept to a size brokers accept in a name. */
    static final int MAX_NAME_BYTES = 255;
    /** reconnect=true keeps a copy of every unsettled transfer (max_inflight x size bytes): at most this much. */
    static final long MAX_KEPT_BYTES = 256L << 20;

    /** Reads and cross-checks every option; bad values and combinations name the option. */
    public static Amqp10Options of(DriverSpec spec) {
        spec.requireKnownOptions("amqp10", KEYS);
        boolean settled = spec.boolOption(SETTLED, false);
        int credit = (int) spec.longOption(CREDIT, DEFAULT_CREDIT, 1, MAX_CREDIT);
        if (settled && spec.options().containsKey(MAX_INFLIGHT)) {
            throw new SpecException("--opt " + MAX_INFLIGHT, "bounds unsettled transfers: with --opt settled=true "
                    + "nothing waits for a disposition; drop one of them");
        }
        int maxInflight = (int) spec.longOption(MAX_INFLIGHT, DEFAULT_MAX_INFLIGHT, 1, MAX_MAX_INFLIGHT);
        boolean durable = spec.boolOption(DURABLE, false);
        String address = name(spec, ADDRESS);
        String topic = name(spec, TOPIC);
        boolean shared = spec.boolOption(SHARED, false);
        if (!address.isEmpty() && !topic.isEmpty()) {
            throw new SpecException("--opt " + TOPIC, "and --opt " + ADDRESS + " both choose the node; give one of them");
        }
        if (shared && !address.isEmpty()) {
            throw new SpecException("--opt " + SHARED, "shares the queue of a topic: it cannot be used with --opt "
                    + ADDRESS + " (which names the node itself)");
        }
        if (topic.indexOf('/') >= 0) {
            throw new SpecException("--opt " + TOPIC, "must not hold '/' (it becomes the last part of /topic/TOPIC or "
                    + "/queue/TOPIC), got '" + topic + "'");
        }
        String containerId = name(spec, CONTAINER_ID);
        long idle = spec.longOption(IDLE_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, 0, 3_600_000);
        long open = spec.longOption(OPEN_TIMEOUT_MS, DEFAULT_OPEN_TIMEOUT_MS, 100, 600_000);
        TlsOptions tls = TlsOptions.of(spec, Amqp10Connections.uri(spec).tls(), "an amqps://", false);
        boolean reconnect = spec.boolOption(RECONNECT, false);
        if (reconnect && !settled && (long) maxInflight * spec.messageSize() > MAX_KEPT_BYTES) {
            throw new SpecException("--opt " + MAX_INFLIGHT, "with --opt " + RECONNECT + "=true each unsettled transfer "
                    + "is kept to be sent again: " + maxInflight + " x " + spec.messageSize() + " bytes is over "
                    + (MAX_KEPT_BYTES >> 20) + " MiB; give a smaller --opt " + MAX_INFLIGHT);
        }
        return new Amqp10Options(settled, credit, maxInflight, durable, address, topic, shared, containerId, idle, open,
                tls, reconnect);
    }

    /** A name option: absent = empty; given, 1 to 255 bytes of UTF-8 without control characters. */
    private static String name(DriverSpec spec, String key) {
        String v = spec.options().get(key);
        if (v == null) {
            return "";
        }
        if (v.isEmpty() || v.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES
                || v.chars().anyMatch(Character::isISOControl)) {
            throw new SpecException("--opt " + key, "must be 1 to " + MAX_NAME_BYTES
                    + " bytes without control characters, got '" + v + "'");
        }
        return v;
    }

    /** True when the run uses a dynamic node the broker creates for the receiver (no address, no topic). */
    boolean dynamic() {
        return address.isEmpty() && topic.isEmpty();
    }

    /**
     * The node the receiver's source names: the address, or for a topic RabbitMQ's {@code /topic/TOPIC} (a private
     * queue bound to {@code amq.topic}) or {@code /queue/TOPIC} (one queue shared by the receivers); empty = dynamic.
     */
    String sourceAddress() {
        return topic.isEmpty() ? address : (shared ? "/queue/" : "/topic/") + topic;
    }

    /**
     * True when the per-run queue is declared durable on RabbitMQ (the links' terminus durability "configuration"):
     * with reconnect=true and durable messages, so that the queue and what it holds outlive a broker restart, as the
     * AMQP 0-9-1 driver's queue with persistent=true.
     */
    boolean durableRunQueue() {
        return reconnect && durable && dynamic();
    }

    /** True when delivery is a promise (Q6): unsettled transfers acknowledged by the broker and by the receiver. */
    boolean reliable() {
        return !settled;
    }

    /** "unsettled" or "settled", for the scenario's QoS label. */
    String settlement() {
        return (settled ? "settled" : "unsettled").toLowerCase(Locale.ROOT);
    }
}
