package io.msgscope.driver.mqtt.netty;

import io.msgscope.driver.mqtt.MqttSettings;

import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttProperties;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a {@link NettyMqttSession}'s broker announced in its CONNACK (MQTT 5; MQTT's defaults otherwise) and
 * what the results record of it. Written on the event loop before the CONNACK future completes, read by the
 * opener after it.
 */
final class MqttBrokerLimits {
    private int receiveMaximum = 65_535;
    private int maximumQos = 2;
    private long maximumPacketSize = NettyMqttSession.MAX_PACKET;
    private boolean sharedSubscriptionAvailable = true;
    private final Map<String, String> info = new LinkedHashMap<>();

    /** The broker's address, protocol, engine and TLS, before any CONNACK. */
    MqttBrokerLimits(MqttSettings s) {
        info.put("broker", "mqtt " + s.address());
        info.put("protocol", s.version() == 5 ? "MQTT 5" : "MQTT 3.1.1");
        info.put("engine", "netty");
        if (s.tls()) {
            info.put("tls", s.tlsSettings().verify() ? "verified" : "not verified (tls_verify=false)");
        }
    }

    /**
     * Event loop: the CONNACK's properties into the limits and the broker info (MQTT 5); a Server Keep Alive
     * replaces the client's in {@code keepAlive}.
     */
    void read(MqttConnAckMessage ack, int version, MqttKeepAlive keepAlive) {
        MqttProperties p = ack.variableHeader().properties();
        if (version != 5 || p == null) {
            return;
        }
        receiveMaximum = MqttWire.intProperty(p, MqttProperties.RECEIVE_MAXIMUM, 65_535);
        maximumQos = MqttWire.intProperty(p, MqttProperties.MAXIMUM_QOS, 2);
        int mps = MqttWire.intProperty(p, MqttProperties.MAXIMUM_PACKET_SIZE, 0); // above 2^31-1 reads negative: no limit
        maximumPacketSize = mps <= 0 ? NettyMqttSession.MAX_PACKET : mps;
        sharedSubscriptionAvailable = MqttWire.intProperty(p, MqttProperties.SHARED_SUBSCRIPTION_AVAILABLE, 1) != 0;
        MqttProperties.MqttProperty<?> assigned = p.getProperty(MqttProperties.ASSIGNED_CLIENT_IDENTIFIER);
        String assignedClientId = assigned == null ? null : String.valueOf(assigned.value());
        info.put("maximum_qos", "" + maximumQos);
        info.put("receive_maximum", "" + receiveMaximum);
        info.put("maximum_packet_size", "" + maximumPacketSize);
        info.put("retain_available", "" + (MqttWire.intProperty(p, MqttProperties.RETAIN_AVAILABLE, 1) != 0));
        info.put("wildcard_subscription_available",
                "" + (MqttWire.intProperty(p, MqttProperties.WILDCARD_SUBSCRIPTION_AVAILABLE, 1) != 0));
        info.put("shared_subscription_available", "" + sharedSubscriptionAvailable);
        int serverKeepAlive = MqttWire.intProperty(p, MqttProperties.SERVER_KEEP_ALIVE, -1);
        if (serverKeepAlive >= 0) {
            info.put("server_keep_alive", "" + serverKeepAlive);
            keepAlive.change(serverKeepAlive);
        }
        if (assignedClientId != null) {
            info.put("assigned_client_identifier", assignedClientId);
        }
    }

    /** The Receive Maximum the broker announced (65535 when it did not, and at MQTT 3.1.1). */
    int receiveMaximum() {
        return receiveMaximum;
    }

    /** The highest QoS the broker accepts (CONNACK Maximum QoS; 2 when it did not say, and at MQTT 3.1.1). */
    int maximumQos() {
        return maximumQos;
    }

    /** The largest packet the broker accepts (CONNACK Maximum Packet Size; MQTT's limit when it did not say). */
    long maximumPacketSize() {
        return maximumPacketSize;
    }

    boolean sharedSubscriptionAvailable() {
        return sharedSubscriptionAvailable;
    }

    /** What the results record of the broker: address, protocol, engine, TLS and what the CONNACK announced. */
    Map<String, String> info() {
        return new LinkedHashMap<>(info);
    }
}
