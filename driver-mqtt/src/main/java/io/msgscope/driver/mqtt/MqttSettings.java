package io.msgscope.driver.mqtt;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.netty.TlsClient;

import javax.net.ssl.SSLException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The MQTT options of one side, checked once, each error naming its option.
 *
 * @param tlsSettings the TLS options ({@code tls_ca}, {@code tls_verify}) of an {@code ssl://} or {@code mqtts://}
 *                    URI, null for plain TCP
 * @param netty       the lean engine ({@code engine=netty}, the default) rather than the HiveMQ client
 * @param reconnect   {@code --opt reconnect=true} (issue 32 item 3, both engines): a lost connection is got back
 *                    with the same client id and its persistent session (so {@code clean_session} is false), the
 *                    subscriber subscribes again and the publisher republishes what was not completed, DUP set
 */
public record MqttSettings(String host, int port, boolean tls, int version, int qos, boolean cleanSession, int keepAlive,
                    String topic, String username, String password, int maxInflight, String group, boolean netty,
                    TlsClient.Settings tlsSettings, boolean reconnect) {
    /** How long either engine waits for a socket and for the CONNACK; set-up steps wait twice as long. */
    public static final long CONNECT_TIMEOUT_S = 5;
    /**
     * {@code --opt reconnect=true}: how long either engine goes on dialling a lost connection before giving it up (the
     * run then fails as without the option); long enough for a broker's restart, short enough to end a run that cannot
     * go on.
     */
    public static final long RECONNECT_GIVE_UP_S = 30;
    /** The MQTT 5 Session Expiry Interval both engines ask with {@code clean_session=false}: one hour. */
    public static final int SESSION_EXPIRY_S = 3600;
    static final String DEFAULT_URI = "tcp://127.0.0.1:1883";
    static final int DEFAULT_QOS = 1;
    static final io.msgscope.core.driver.BrokerUri.Schemes SCHEMES = new io.msgscope.core.driver.BrokerUri.Schemes(
            java.util.List.of("tcp", "mqtt"), java.util.List.of("ssl", "mqtts"), 1883, 8883);

    public static MqttSettings of(DriverSpec spec, boolean publisher) {
        spec.requireKnownOptions("mqtt", MqttDriver.OPTIONS);
        String raw = spec.uri().isEmpty() ? DEFAULT_URI : spec.uri();
        // issue 14: a URI the client would read otherwise than written is refused, its password masked
        io.msgscope.core.driver.BrokerUri uri = io.msgscope.core.driver.BrokerUri.parse(raw, SCHEMES, spec);
        boolean tls = uri.tls();
        String scheme = uri.scheme();
        int port = uri.port();
        String user = uri.user();
        String pass = uri.password();
        if (pass != null && user == null) {
            throw new SpecException("--opt password", "needs --opt username as well");
        }
        String engine = spec.option("engine", "netty");
        if (!engine.equals("hivemq") && !engine.equals("netty")) {
            throw new SpecException("--opt engine", "must be netty or hivemq, got '" + engine + "'");
        }
        boolean netty = engine.equals("netty");
        int version = (int) spec.longOption("version", 5, 3, 5);
        if (version == 4) {
            throw new SpecException("--opt version", "must be 3 (MQTT 3.1.1) or 5, got 4");
        }
        int qos = (int) spec.longOption("qos", DEFAULT_QOS, 0, 2);
        TlsClient.Settings tlsSettings = null;
        if (tls) {
            tlsSettings = TlsClient.Settings.of(spec);
        } else if (TlsClient.Settings.given(spec)) {
            String opt = spec.options().containsKey("tls_ca") ? "--opt tls_ca" : "--opt tls_verify";
            throw new SpecException(opt, "applies to TLS only: use an ssl:// or mqtts:// --uri, got " + scheme + "://");
        }
        boolean reconnect = io.msgscope.core.driver.Reconnects.on(spec);
        if (reconnect && spec.options().containsKey("clean_session") && spec.boolOption("clean_session", false)) {
            throw new SpecException("--opt clean_session", "=true cannot go with --opt reconnect=true: the broker must "
                    + "keep the session (the subscriber's QoS 1/2 messages) while the client is away; drop it");
        }
        boolean clean = !reconnect && spec.boolOption("clean_session", true);
        int keepAlive = (int) spec.longOption("keep_alive", 60, 0, 65_535);
        int maxInflight = (int) spec.longOption("max_inflight", defaultMaxInflight(version, qos, netty), 1, 1_000_000);
        if (netty && maxInflight > 65_535) {
            throw new SpecException("--opt max_inflight", "must be at most 65535 with --opt engine=netty (one packet id each), got " + maxInflight);
        }
        String topic = publisher && !spec.destination().isEmpty() ? spec.destination()
                : spec.option("topic", publisher ? "" : "msgscope/" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        if (topic.isEmpty()) {
            throw new SpecException("--opt topic", "the publisher has no topic: give --opt topic or let the subscriber choose one");
        }
        if (topic.indexOf('#') >= 0 || topic.indexOf('+') >= 0) {
            throw new SpecException("--opt topic", "must be a topic name without wildcards (+, #), got '" + topic + "'");
        }
        String group = spec.option("group", "");
        if (!group.isEmpty()) {
            if (version == 3) {
                throw new SpecException("--opt group", "shared subscriptions ($share/GROUP/topic) need MQTT 5; "
                        + "--opt version=3 (MQTT 3.1.1) has none");
            }
            if (group.indexOf('/') >= 0 || group.indexOf('#') >= 0 || group.indexOf('+') >= 0) {
                throw new SpecException("--opt group", "must be a share name without '/', '+' or '#', got '" + group + "'");
            }
        }
        return new MqttSettings(uri.host(), port, tls, version, qos, clean, keepAlive, topic, user, pass, maxInflight,
                group, netty, tlsSettings, reconnect);
    }

    /**
     * {@code max_inflight} when not given. MQTT 3.1.1 has no flow control: without a window the client sends as
     * fast as it can and a broker such as Mosquitto (max_queued_messages 1000) drops what its subscriber queue
     * cannot hold, so 20 at QoS 1 and 2 (Mosquitto's max_inflight_messages). QoS 0 has no acknowledgement and
     * Mosquitto queues nothing of it for an online subscriber: there the window only bounds what waits in the
     * client, and 20 made the sender wait for every 20 writes (netty engine, side by side: 77-117k msg/s received
     * with 20, 153-207k with 1000), so 1000 (the netty engine keeps 1000 at MQTT 5 too). MQTT 5 brokers announce a
     * Receive Maximum, which both engines keep to as well: 10000 there only bounds the client's own queue.
     */
    static int defaultMaxInflight(int version, int qos, boolean netty) {
        if (qos == 0 && (version == 3 || netty)) {
            return 1000;
        }
        return version == 5 ? 10_000 : 20;
    }

    /** {@code uri} with the password of its user info as {@code ****}: errors never print a password. */
    static String masked(String uri) {
        return uri.replaceFirst("^([A-Za-z][A-Za-z0-9+.-]*://[^/@:]*):[^/@]*@", "$1:****@");
    }

    /** The same settings on a clean session (MQTT 5: clean start, no session expiry), without reconnecting. */
    public MqttSettings onCleanSession() {
        return new MqttSettings(host, port, tls, version, qos, true, keepAlive, topic, username, password, maxInflight,
                group, netty, tlsSettings, false);
    }

    /** The subscriber's topic filter: the topic, or {@code $share/GROUP/topic} with a group (MQTT 5). */
    public String filter() {
        return group.isEmpty() ? topic : "$share/" + group + "/" + topic;
    }

    public String address() {
        return host + ":" + port;
    }

    /** Whether {@code t} or a cause of it is a TLS failure. */
    public static boolean hasSsl(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SSLException) {
                return true;
            }
        }
        return false;
    }

    /**
     * What a connection the broker closed before its CONNACK adds to its one-line reason: at MQTT 5 that brokers
     * without MQTT 5 do this (RabbitMQ's MQTT plugin before 3.13 among them) and the option asking for 3.1.1, so the
     * user is not left guessing; nothing at MQTT 3.1.1.
     */
    public String noConnackHint() {
        return version == 5 ? " (a broker without MQTT 5 does that, RabbitMQ's MQTT plugin before 3.13 among them:"
                + " try --opt version=3)" : "";
    }

    /** The exception and its root cause in one line, for a failure reason. */
    public static String oneLine(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        if (root != t && t.getMessage() != null && !t.getMessage().contains(m)) {
            m = t.getMessage() + " (" + m + ")";
        }
        return m.replace('\n', ' ');
    }
}
