package io.msgscope.driver.mqtt;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.mqtt.hivemq.HiveMqPublisher;
import io.msgscope.driver.mqtt.hivemq.HiveMqSubscriber;
import io.msgscope.driver.mqtt.netty.NettyMqttPublisher;
import io.msgscope.driver.mqtt.netty.NettyMqttSubscriber;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;

/**
 * MQTT 5 and 3.1.1 through msgscope's own lean engine on Netty (the default, {@code --opt engine=netty}:
 * {@link NettyMqttPublisher}, {@link NettyMqttSubscriber}) or, as the reference, the HiveMQ async client
 * ({@code --opt engine=hivemq}: {@link HiveMqPublisher}, {@link HiveMqSubscriber}) (seed 002, issues 5 and 13). The
 * subscriber connects first, subscribes to its topic (by default {@code msgscope/<random>}), waits for the
 * SUBACK and reports the topic as its destination; the publisher publishes every message to it on its own
 * connection. Both engines bind their sockets to the context's source addresses.
 *
 * <p>{@code --uri}: {@code tcp://host:port} or {@code mqtt://} (default {@code tcp://127.0.0.1:1883}),
 * {@code ssl://} or {@code mqtts://} for TLS (default port 8883); user info in the URI is taken as the
 * credentials. Options ({@code --opt key=value}):
 * <ul>
 *   <li>{@code engine} netty (default) or hivemq, both sides</li>
 *   <li>{@code version} 5 (default) or 3 (MQTT 3.1.1)</li>
 *   <li>{@code qos} 0, 1 or 2 for both the publishes and the subscription (default 1); PUBACK (QoS 1)
 *       and PUBCOMP (QoS 2) are counted as {@code messages_acked}</li>
 *   <li>{@code clean_session} true/false (default true; MQTT 5: clean start, and a session expiry of
 *       one hour when false)</li>
 *   <li>{@code keep_alive} seconds, 0-65535 (default 60; MQTT 5: the broker's Server Keep Alive wins)</li>
 *   <li>{@code topic} the topic to use (default chosen by the subscriber); no wildcards</li>
 *   <li>{@code username}, {@code password} credentials</li>
 *   <li>{@code group} subscriber only: subscribe through the MQTT 5 shared subscription
 *       {@code $share/GROUP/topic}, so each message goes to one member of the group (round-robin)</li>
 *   <li>{@code max_inflight} publishes not yet completed before {@code send} waits ({@code offer} says no),
 *       1-1000000, at most 65535 with the netty engine (see {@link MqttSettings#defaultMaxInflight} for the
 *       defaults); at MQTT 5 the broker's Receive Maximum bounds it too</li>
 *   <li>{@code tls_ca} a PEM file of the certificates to trust, {@code tls_verify} true (default) or false
 *       (any certificate and host name): TLS URIs only ({@link io.msgscope.netty.TlsClient})</li>
 *   <li>{@code reconnect} true/false (default false, both engines; issue 32 item 3): a lost connection is got
 *       back with the same client id and a persistent session (clean start off, session expiry), the subscriber
 *       subscribes again and the publisher republishes, DUP set, what was not completed (PUBACK, PUBCOMP); counted,
 *       never hidden ({@link io.msgscope.core.driver.Reconnects}; the hivemq engine: the client's own reconnect,
 *       {@code messages_republished} unknown)</li>
 * </ul>
 */
public final class MqttDriver implements Driver {
    static final Set<String> OPTIONS = Set.of("version", "qos", "clean_session", "keep_alive", "topic", "username",
            "password", "max_inflight", "group", "engine", "tls_ca", "tls_verify", io.msgscope.core.driver.Reconnects.OPTION);

    @Override
    public String name() {
        return "mqtt";
    }

    /** Issue 31: msgscope's MQTT subscriber has no paused state the broker honours (see limits.md). */
    @Override
    public String whyConsumersCannotPause(java.util.Map<String, String> options) {
        return "an MQTT broker pushes to a connected subscriber whether it reads or not (QoS 0 drops, QoS 1/2 fill "
                + "its in-flight window), and the mqtt driver does not disconnect a persistent session to hold a backlog";
    }

    /** Kill and restart need {@code --opt reconnect=true} (issue 32 item 3), on either engine. */
    @Override
    public String whyClientsCannotReconnect(java.util.Map<String, String> options) {
        if (io.msgscope.core.driver.Reconnects.on(options)) {
            return null;
        }
        return "the mqtt clients do not reconnect without --opt reconnect=true (either engine, netty or hivemq)";
    }

    @Override
    public Set<String> optionKeys() {
        return OPTIONS;
    }

    /** The URI and every option as both sides read them. */
    @Override
    public void checkOptions(DriverSpec spec) {
        MqttSettings.of(spec, false);
    }

    /** Heap: the client takes byte arrays, and each message is copied out of this buffer anyway. */
    /**
     * Mosquitto, on its defaults, keeps at most 1000 QoS 1/2 messages queued for a subscriber that is behind
     * ({@code max_queued_messages}) and drops the rest without a word to the publisher; QoS 0 is not queued for an
     * online subscriber at all. What else loses messages (a subscriber's connection lost) is named in the errors.
     */
    @Override
    public String lossHint(java.util.Map<String, String> options) {
        return "if the broker is Mosquitto on its defaults, it drops what a subscriber's queue cannot hold "
                + "(max_queued_messages 1000, max_queued_bytes): raise them in mosquitto.conf, or lower --rate";
    }

    /**
     * Persistent sessions ({@code clean_session=false}, {@code reconnect=true}) are cleared when a client closes
     * cleanly; one whose connection was lost keeps its session on the broker, and MQTT cannot list them to clean.
     */
    @Override
    public String failureNote(java.util.Map<String, String> options) {
        boolean persistent = "true".equalsIgnoreCase(options.get("reconnect"))
                || "false".equalsIgnoreCase(options.get("clean_session"));
        return persistent ? "a client whose connection was lost left its persistent session (client id msgscope-pub-... "
                + "or msgscope-sub-...) on the broker: at MQTT 5 it expires after 3600 s, at MQTT 3.1.1 when the broker "
                + "expires it (Mosquitto: persistent_client_expiration)" : null;
    }

    @Override
    public ByteBuffer allocatePayload(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException {
        MqttSettings s = MqttSettings.of(spec, false);
        return s.netty() ? NettyMqttSubscriber.open(s, spec.messageSize(), context) : new HiveMqSubscriber(s, context);
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        MqttSettings s = MqttSettings.of(spec, true);
        return s.netty() ? NettyMqttPublisher.open(s, spec.messageSize(), context)
                : new HiveMqPublisher(s, spec.messageSize(), context);
    }

    /**
     * Both engines bind to {@link ClientContext#nextSourceAddress()}: the netty engine through
     * {@link io.msgscope.netty.NettyIo#connect}, the HiveMQ client through its {@code transportConfig().localAddress}.
     */
    @Override
    public boolean bindsSourceAddresses(java.util.Map<String, String> options) {
        return true;
    }

    /**
     * MQTT topic names take no wildcards (+, #) or NUL and at most 65,535 bytes, and '$' topics such as
     * $SYS belong to the broker (scenario {@code --topic-prefix}, Q6).
     */
    @Override
    public void checkTopicPrefix(String prefix) {
        Driver.super.checkTopicPrefix(prefix);
        String opt = "--topic-prefix";
        if (prefix.indexOf('+') >= 0 || prefix.indexOf('#') >= 0 || prefix.indexOf('\0') >= 0) {
            throw new io.msgscope.core.SpecException(opt, "must be an MQTT topic name without wildcards (+, #) or "
                    + "NUL, got '" + prefix + "'");
        }
        if (prefix.startsWith("$")) {
            throw new io.msgscope.core.SpecException(opt, "must not start with '$' (topics such as $SYS belong to "
                    + "the broker), got '" + prefix + "'");
        }
        if (prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 65_000) {
            throw new io.msgscope.core.SpecException(opt, "must be at most 65000 bytes (MQTT topics are at most "
                    + "65535), got " + prefix.length() + " characters");
        }
    }

    /** Scenario mode (seed 002): see {@link MqttScenarios}. */
    @Override
    public io.msgscope.core.driver.ScenarioSupport scenarios() {
        return MqttScenarios.INSTANCE;
    }
}
