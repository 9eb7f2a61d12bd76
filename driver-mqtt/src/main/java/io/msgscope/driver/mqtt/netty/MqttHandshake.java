package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.driver.mqtt.MqttSettings;
import io.msgscope.netty.TlsClient;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.handler.ssl.SslHandler;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/** The CONNECT a {@link NettyMqttSession} sends and what it makes of the CONNACK, through Netty's codec. */
final class MqttHandshake {
    private MqttHandshake() {
    }

    /**
     * The TLS handler for {@code ssl://} and {@code mqtts://}, null without TLS; made before the event loop runs, so
     * that an unusable {@code tls_ca} is the opener's SpecException.
     */
    static SslHandler tls(MqttSettings settings, ClientContext context) throws javax.net.ssl.SSLException {
        if (!settings.tls()) {
            return null;
        }
        try {
            return TlsClient.handler(context, settings.tlsSettings(), ByteBufAllocator.DEFAULT, settings.host(),
                    settings.port());
        } catch (IllegalArgumentException e) { // SslContextBuilder.trustManager(File) on a file without certificates
            throw new io.msgscope.core.SpecException("--opt tls_ca", "is not a usable PEM certificate file ('"
                    + settings.tlsSettings().caFile() + "'): " + MqttSettings.oneLine(e));
        }
    }

    /**
     * CONNECT: protocol level 5 or 4, client id, clean session/start, keep-alive, credentials; at MQTT 5 the
     * properties Receive Maximum (65535: the subscriber acknowledges at once, so the broker may keep as many in
     * flight as it likes), Maximum Packet Size ({@code maxIncoming}) and, for a session kept across connections
     * ({@code clean_session=false}), Session Expiry Interval ({@link NettyMqttSession#SESSION_EXPIRY_S}).
     */
    static MqttMessage connect(MqttSettings settings, String clientId, int maxIncoming) {
        int version = settings.version();
        MqttProperties props = MqttProperties.NO_PROPERTIES;
        if (version == 5) {
            props = new MqttProperties();
            props.add(new MqttProperties.IntegerProperty(MqttProperties.RECEIVE_MAXIMUM, 65_535));
            props.add(new MqttProperties.IntegerProperty(MqttProperties.MAXIMUM_PACKET_SIZE, maxIncoming));
            if (!settings.cleanSession()) {
                props.add(new MqttProperties.IntegerProperty(MqttProperties.SESSION_EXPIRY_INTERVAL,
                        NettyMqttSession.SESSION_EXPIRY_S));
            }
        }
        MqttMessageBuilders.ConnectBuilder c = MqttMessageBuilders.connect()
                .protocolVersion(version == 5 ? MqttVersion.MQTT_5 : MqttVersion.MQTT_3_1_1)
                .clientId(clientId).cleanSession(settings.cleanSession()).keepAlive(settings.keepAlive())
                .properties(props);
        if (settings.username() != null) {
            c.hasUser(true).username(settings.username());
        }
        if (settings.password() != null) {
            c.hasPassword(true).password(settings.password().getBytes(StandardCharsets.UTF_8));
        }
        return c.build();
    }

    /**
     * Reads the CONNACK that {@code connack} completed with: a non-zero return/reason code is a
     * {@link Fault.Kind#REFUSED} naming it (and the reason string, MQTT 5); a connection that failed first is
     * {@link Fault.Kind#CONNECT_FAILED}.
     */
    static void check(CompletableFuture<MqttConnAckMessage> connack, MqttSettings settings) throws Fault {
        MqttConnAckMessage ack;
        try {
            ack = connack.getNow(null);
        } catch (RuntimeException e) {
            Throwable c = e.getCause() == null ? e : e.getCause();
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to MQTT broker at " + settings.address() + ": "
                    + MqttSettings.oneLine(c), c);
        }
        if (ack == null) {
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to MQTT broker at " + settings.address()
                    + ": no CONNACK yet");
        }
        MqttConnectReturnCode rc = ack.variableHeader().connectReturnCode();
        if (rc != MqttConnectReturnCode.CONNECTION_ACCEPTED) {
            String name = rc.name().replaceFirst("^CONNECTION_REFUSED_", "").replaceFirst("_5$", "");
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + settings.address() + " refused the connection: "
                    + "CONNACK " + (settings.version() == 5 ? "reason" : "return") + " code "
                    + Fault.reasonCode(rc.byteValue() & 0xff, name)
                    + MqttWire.reasonString(ack.variableHeader().properties()));
        }
    }
}
