package io.msgscope.driver.stomp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.BrokerUri;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.TlsOptions;
import io.msgscope.netty.TlsClient;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The STOMP driver's reading of {@code --uri} and {@code --opt} (issue 35 item 3), the same on both sides and in
 * {@link StompDriver#checkOptions}: every bad value is a {@link SpecException} naming the option.
 *
 * @param uri         the broker: host, port, login, passcode and virtual host (the CONNECT frame's {@code host})
 * @param ack         the subscription's ack mode: {@code auto}, {@code client} (cumulative) or
 *                    {@code client-individual}
 * @param receipts    a {@code receipt} header on every Nth SEND, each RECEIPT a publisher confirm; 0 = none
 * @param maxInflight SENDs awaiting their receipt before {@code send} waits (with receipts only)
 * @param kind        where messages go on RabbitMQ: {@code queue}, {@code topic}, {@code exchange} or {@code amq-queue}
 * @param destination the STOMP destination ({@code /queue/NAME}, ...); the subscriber's choice when no name is given
 * @param durable     {@code kind=queue}: the queue survives a broker restart and the run (not auto-deleted)
 * @param persistent  SEND's {@code persistent:true}: RabbitMQ writes each message to disk in a durable queue
 * @param prefetch    RabbitMQ's {@code prefetch-count} SUBSCRIBE header, 0 = not sent (no limit)
 * @param artemis     {@code broker=artemis}: ActiveMQ Artemis' destinations, an address named as it is, its routing
 *                    type (anycast for {@code kind=queue}, multicast for {@code topic}) in a header of each frame
 * @param tls         {@code stomps://} or {@code stomp+ssl://} (issue 35 item 6): {@code tls_ca} and {@code tls_verify}
 *                    (default true: the chain and the host name are checked, as the mqtt and nats drivers do); null
 *                    for plain {@code stomp://}
 */
record StompSettings(BrokerUri uri, String vhost, String ack, int receipts, int maxInflight, String kind,
                     String destination, boolean durable, boolean persistent, int prefetch, boolean artemis,
                     TlsClient.Settings tls) {
    static final Set<String> OPTIONS = Set.of("ack", "receipts", "max_inflight", "kind", "name", "durable",
            "persistent", "prefetch", "username", "password", "broker", TlsOptions.CA, TlsOptions.VERIFY);
    /** {@code broker=artemis}: ActiveMQ Artemis the broker (spelled as the artemis driver is: LayoutRulesTest allows it). */
    static final String ARTEMIS = "artemis";
    static final List<String> BROKERS = List.of("rabbitmq", ARTEMIS);
    static final String DEFAULT_URI = "stomp://guest:guest@127.0.0.1:61613";
    /** Every destination name msgscope chooses begins with this. */
    static final String NAME_PREFIX = "msgscope-stomp-";
    static final List<String> ACKS = List.of("auto", "client", "client-individual");
    static final List<String> KINDS = List.of("queue", "topic", "exchange", "amq-queue");
    private static final BrokerUri.Schemes SCHEMES = new BrokerUri.Schemes(List.of("stomp"),
            List.of("stomps", "stomp+ssl"), 61613, 61614);

    static StompSettings of(DriverSpec spec, boolean publisher) {
        spec.requireKnownOptions("stomp", OPTIONS);
        String raw = spec.uri().isEmpty() ? DEFAULT_URI : spec.uri();
        BrokerUri uri = BrokerUri.parse(raw, SCHEMES, spec);
        if (uri.user() == null) {
            uri = new BrokerUri(uri.scheme(), uri.tls(), uri.host(), uri.port(), "guest",
                    uri.password() == null ? "guest" : uri.password());
        }
        TlsOptions t = TlsOptions.of(spec, uri.tls(), "a stomps:// or stomp+ssl://", true);
        String ack = oneOf(spec, "ack", "client", ACKS);
        String kind = oneOf(spec, "kind", "queue", KINDS);
        boolean artemis = oneOf(spec, "broker", "rabbitmq", BROKERS).equals(ARTEMIS);
        if (artemis) {
            refuseOnArtemis(spec, kind);
        }
        int receipts = (int) spec.longOption("receipts", 0, 0, 1_000_000);
        int maxInflight = (int) spec.longOption("max_inflight", 1000, 1, 1_000_000);
        if (receipts > maxInflight) {
            throw new SpecException("--opt receipts", "must be at most max_inflight (" + maxInflight + "): a receipt "
                    + "every " + receipts + " SENDs would never come with only " + maxInflight
                    + " unconfirmed allowed");
        }
        boolean durable = spec.boolOption("durable", false);
        if (durable && !kind.equals("queue")) {
            throw new SpecException("--opt durable", "is for kind=queue (a durable RabbitMQ queue); kind=" + kind
                    + " subscriptions are the broker's own transient queues here");
        }
        boolean persistent = spec.boolOption("persistent", durable);
        int prefetch = (int) spec.longOption("prefetch", 0, 0, 65_535);
        if (prefetch > 0 && ack.equals("auto")) {
            throw new SpecException("--opt prefetch", "limits unacknowledged messages: it needs ack=client or "
                    + "ack=client-individual, not ack=auto");
        }
        String destination = publisher && !spec.destination().isEmpty() ? spec.destination()
                : destination(kind, spec.option("name", null), artemis);
        return new StompSettings(uri, vhost(raw), ack, receipts, maxInflight, kind, destination, durable, persistent,
                prefetch, artemis, t == null ? null : new TlsClient.Settings(t.ca(), t.verify()));
    }

    /** What RabbitMQ's destinations have and Artemis' do not: named, so that a user learns which option to drop. */
    private static void refuseOnArtemis(DriverSpec spec, String kind) {
        if (!kind.equals("queue") && !kind.equals("topic")) {
            throw new SpecException("--opt kind", "must be queue (an anycast address) or topic (multicast) with "
                    + "broker=artemis, got '" + kind + "' (a RabbitMQ destination)");
        }
        if (spec.boolOption("durable", false)) {
            throw new SpecException("--opt durable", "is RabbitMQ's queue declaration: with broker=artemis the "
                    + "broker creates the queue itself (durable, deleted once it is empty without consumers)");
        }
        if (spec.longOption("prefetch", 0, 0, 65_535) > 0) {
            throw new SpecException("--opt prefetch", "is RabbitMQ's prefetch-count header, which Artemis ignores "
                    + "(it limits a consumer by bytes, consumer-window-size); drop it with broker=artemis");
        }
    }
    private static String oneOf(DriverSpec spec, String key, String dflt, List<String> allowed) {
        String v = spec.option(key, dflt).trim().toLowerCase(Locale.ROOT);
        if (!allowed.contains(v)) {
            throw new SpecException("--opt " + key, "must be " + String.join(", ", allowed.subList(0,
                    allowed.size() - 1)) + " or " + allowed.get(allowed.size() - 1) + ", got '" + spec.option(key, "")
                    + "'");
        }
        return v;
    }

    /**
     * The STOMP destination of {@code kind} for {@code name}, or for a name of msgscope's own when null: RabbitMQ's
     * {@code /queue/NAME}, {@code /topic/KEY}, {@code /exchange/EXCHANGE/KEY} (default exchange {@code amq.topic})
     * or {@code /amq/queue/NAME} (a queue that must exist: no default); on Artemis the address's name itself (the
     * routing type goes in a header, {@link #routingType}).
     */
    static String destination(String kind, String name, boolean artemis) {
        if (name != null) {
            if (name.isEmpty() || name.chars().anyMatch(c -> c == ':' || c == '\\' || c < ' ')) {
                throw new SpecException("--opt name", "must be a non-empty name without ':', '\\' or control "
                        + "characters (STOMP header values), got '" + name + "'");
            }
            if (!kind.equals("exchange") && name.indexOf('/') >= 0) {
                throw new SpecException("--opt name", "takes no '/' with kind=" + kind + ", got '" + name + "'");
            }
        } else if (kind.equals("amq-queue")) {
            throw new SpecException("--opt name", "kind=amq-queue needs the name of an existing queue "
                    + "(/amq/queue/NAME: RabbitMQ does not create it)");
        }
        String n = name != null ? name : NAME_PREFIX + Long.toHexString(ThreadLocalRandom.current().nextLong());
        if (artemis) {
            return n;
        }
        return switch (kind) {
            case "queue" -> "/queue/" + n;
            case "topic" -> "/topic/" + n;
            case "exchange" -> "/exchange/" + (n.indexOf('/') >= 0 ? n : "amq.topic/" + n);
            default -> "/amq/queue/" + n;
        };
    }

    /** The URI's path, percent-decoded, without its leading '/': RabbitMQ's virtual host, "/" when empty. */
    private static String vhost(String raw) {
        String path = URI.create(raw).getRawPath();
        if (path == null || path.isEmpty() || path.equals("/")) {
            return "/";
        }
        return URLDecoder.decode(path.substring(1), StandardCharsets.UTF_8);
    }

    /**
     * The headers of a {@code kind=queue} SUBSCRIBE, with which RabbitMQ declares the queue: durable and kept, or
     * transient and deleted with its last consumer; never exclusive (round-robin's subscribers share it).
     */
    String queueHeaders() {
        if (artemis) {
            return "subscription-type:" + routingType() + "\n";
        }
        if (!kind.equals("queue")) {
            return "";
        }
        return (durable ? "durable:true\nauto-delete:false\n" : "durable:false\nauto-delete:true\n")
                + "exclusive:false\n";
    }

    /**
     * Where publishers SEND for a subscription to {@code destination}: a {@code /queue/NAME} the subscriber declared
     * is sent to as {@code /amq/queue/NAME}, which declares nothing (a SEND to {@code /queue/NAME} would declare the
     * queue again, with RabbitMQ's defaults unless every header matched, and bring it back after the run).
     */
    static String publishDestination(String destination, boolean artemis) {
        return !artemis && destination.startsWith("/queue/") ? "/amq/queue/" + destination.substring(7) : destination;
    }

    /**
     * Artemis' routing type for {@code kind}: ANYCAST (one queue, each message to one consumer) for {@code queue},
     * MULTICAST (a subscription queue per subscriber) for {@code topic}; sent as SUBSCRIBE's {@code subscription-type}
     * and SEND's {@code destination-type}, so the address is made with it whichever side comes first.
     */
    String routingType() {
        return kind.equals("queue") ? "ANYCAST" : "MULTICAST";
    }

    /** SEND's headers after the destination's: Artemis' routing type, and {@code persistent}. */
    String sendHeaders() {
        return (artemis ? "destination-type:" + routingType() + "\n" : "") + (persistent ? "persistent:true\n" : "");
    }

    /** Whether these settings promise delivery: receipts confirm every message and the subscriber acknowledges. */
    boolean reliable() {
        return receipts > 0 && !ack.equals("auto");
    }

    /** {@code stomp://host:port} (the URI's scheme), without credentials, for messages. */
    String address() {
        return uri.scheme() + "://" + uri.address();
    }
}
