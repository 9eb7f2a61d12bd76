package io.msgscope.driver.zmq;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The ZeroMQ driver's {@code --opt} options, read and checked once (M10): every refusal names the
 * option and what it allows, and combinations the driver cannot do are refused up front.
 *
 * @param via       {@code direct}: brokerless, the receiver binds and the sender connects to it;
 *                  {@code proxy}: both connect to the proxy the broker-probe agent runs (M1's middle box)
 * @param pubsub    {@code pattern=pubsub}: PUB/SUB through an XSUB/XPUB proxy; else PUSH/PULL
 * @param topic     the subscription prefix in {@code pattern=pubsub}
 * @param hwm       SNDHWM/RCVHWM of every socket, 0 = unlimited
 */
record ZmqOptions(boolean proxy, boolean pubsub, String topic, int hwm, String bind, String advertise, int port) {
    static final Set<String> KEYS = Set.of("via", "pattern", "topic", "hwm", "bind", "advertise", "port");
    static final String DEFAULT_TOPIC = "msgscope";

    static ZmqOptions of(DriverSpec spec) {
        return of(spec.options());
    }

    static ZmqOptions of(Map<String, String> options) {
        DriverSpec spec = new DriverSpec("", 0, "", 0, 0, options, "");
        spec.requireKnownOptions("zmq", KEYS);
        boolean proxy = switch (spec.option("via", "direct").toLowerCase(Locale.ROOT)) {
            case "direct" -> false;
            case "proxy" -> true;
            default -> throw new SpecException("--opt via", "must be direct (brokerless) or proxy (through the "
                    + "broker-probe agent's ZeroMQ proxy), got '" + spec.option("via", "") + "'");
        };
        boolean pubsub = switch (spec.option("pattern", "pushpull").toLowerCase(Locale.ROOT)) {
            case "pushpull", "push-pull" -> false;
            case "pubsub", "pub-sub" -> true;
            default -> throw new SpecException("--opt pattern", "must be pushpull or pubsub, got '"
                    + spec.option("pattern", "") + "'");
        };
        if (pubsub && !proxy) {
            throw new SpecException("--opt pattern", "pubsub runs through the proxy only: add --opt via=proxy");
        }
        String topic = spec.option("topic", null);
        if (topic != null && !pubsub) {
            throw new SpecException("--opt topic", "is a PUB/SUB subscription prefix: it needs --opt pattern=pubsub");
        }
        if (topic != null && (topic.isEmpty() || topic.indexOf('\0') >= 0
                || topic.getBytes(StandardCharsets.UTF_8).length > 255)) {
            throw new SpecException("--opt topic", "must be 1 to 255 bytes without NUL, got '" + topic + "'");
        }
        if (proxy) {
            for (String k : new String[] {"bind", "advertise", "port"}) {
                if (options.containsKey(k)) {
                    throw new SpecException("--opt " + k, "applies to via=direct only; through the proxy the "
                            + "broker-probe agent binds (--relay-ingress-port, --relay-egress-port)");
                }
            }
        }
        int hwm = (int) spec.longOption("hwm", 0, 0, Integer.MAX_VALUE);
        int port = (int) spec.longOption("port", 0, 0, 65_535);
        return new ZmqOptions(proxy, pubsub, topic == null ? DEFAULT_TOPIC : topic, hwm,
                spec.option("bind", "127.0.0.1"), spec.option("advertise", null), port);
    }

    /**
     * The first frame of a PUB/SUB message and the subscription: the topic and a NUL, so that the
     * prefix match of ZeroMQ is an exact match (topic "t.1" does not receive "t.10").
     */
    static byte[] topicFrame(String topic) {
        byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        byte[] f = new byte[t.length + 1];
        System.arraycopy(t, 0, f, 0, t.length);
        return f;
    }
}
