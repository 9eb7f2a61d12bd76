package io.msgscope.driver.mqtt.hivemq;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.datatypes.MqttTopicFilter;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAck;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAckReturnCode;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.suback.Mqtt5SubAck;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.suback.Mqtt5SubAckReasonCode;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.HandOver;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3SubAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5SubAckException;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.mqtt.MqttSettings;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Subscribes before reporting its topic as the destination and waits for the SUBACK: a refused
 * subscription (MQTT 5 reason code such as 0x87 NOT_AUTHORIZED, MQTT 3.1.1 return code 0x80) and a
 * granted QoS below the one asked are a {@link Fault.Kind#REFUSED} naming the code (the run fails,
 * issue 5); a topic filter the client or the broker (0x8F) rejects is a {@link SpecException} on
 * {@code --opt topic} (bad usage). Messages are delivered on the client's Netty I/O thread (a direct executor, no
 * hand-over to another thread), where {@link HandOver} runs the handler first thing with the payload
 * buffer the client decoded (its {@code getPayload} wraps it in an Optional and a read-only view: the
 * client's allocation). Payloads shorter than the header are not handed on: counted as {@code errors}
 * and {@code short_payloads}. Polled ({@link #poll}) or pushed ({@link #start}) as {@link HandOver} describes.
 *
 * <p>{@code --opt reconnect=true} (issue 32 item 3, {@link HiveMqReconnect}): the client gets the connection back on
 * the persistent session and subscribes again; the subscription's callback stays, so what the broker kept meanwhile
 * arrives through it ({@code subscriber_reconnects}). The connection counts as lost only once the client gave it up.
 */
public final class HiveMqSubscriber implements Subscriber {
    private static final Executor DIRECT = Runnable::run;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final HiveMqConnection conn;
    private final HandOver delivery = new HandOver();
    private final String topic;
    private final int grantedQos;

    public HiveMqSubscriber(MqttSettings s, io.msgscope.core.driver.ClientContext context) throws IOException {
        this.topic = s.topic();
        this.conn = HiveMqConnection.open(s, "sub", delivery::lost, context);
        MqttTopicFilter filter;
        try {
            filter = MqttTopicFilter.of(s.filter());
        } catch (IllegalArgumentException e) {
            conn.close();
            throw new SpecException("--opt topic", "the MQTT client rejects the topic filter '" + s.filter() + "': "
                    + e.getMessage());
        }
        MqttQos qos = MqttQos.fromCode(s.qos());
        int granted;
        try {
            if (conn.v5 != null) {
                Consumer<Mqtt5Publish> cb = this::onPublish5;
                Mqtt5SubAck ack;
                try {
                    ack = HiveMqConnection.await(conn.v5.subscribeWith().topicFilter(filter).qos(qos)
                            .callback(cb).executor(DIRECT).send(), s, "subscribe to '" + s.filter() + "'");
                } catch (IOException e) {
                    if (!(e.getCause() instanceof Mqtt5SubAckException x)) {
                        throw e;
                    }
                    ack = x.getMqttMessage(); // the client fails a SUBACK of error codes only: read them
                }
                Mqtt5SubAckReasonCode code = ack.getReasonCodes().get(0);
                String reason = "SUBACK reason code " + HiveMqConnection.code(code)
                        + ack.getReasonString().map(r -> " (" + r + ")").orElse("");
                if (code == Mqtt5SubAckReasonCode.TOPIC_FILTER_INVALID) {
                    throw new SpecException("--opt topic", "the MQTT broker at " + s.address()
                            + " rejects the topic filter '" + s.filter() + "': " + reason);
                }
                if (code == Mqtt5SubAckReasonCode.SHARED_SUBSCRIPTIONS_NOT_SUPPORTED) {
                    throw new SpecException("--opt group", "the MQTT broker at " + s.address()
                            + " has no shared subscriptions ($share/...), needed for round-robin: " + reason);
                }
                if (code.isError()) {
                    throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " refused the subscription to '"
                            + s.filter() + "': " + reason);
                }
                granted = code.getCode();
            } else {
                Consumer<Mqtt3Publish> cb = this::onPublish3;
                Mqtt3SubAck ack;
                try {
                    ack = HiveMqConnection.await(conn.v3.subscribeWith().topicFilter(filter).qos(qos)
                            .callback(cb).executor(DIRECT).send(), s, "subscribe to '" + s.filter() + "'");
                } catch (IOException e) {
                    if (!(e.getCause() instanceof Mqtt3SubAckException x)) {
                        throw e;
                    }
                    ack = x.getMqttMessage();
                }
                Mqtt3SubAckReturnCode code = ack.getReturnCodes().get(0);
                if (code.isError()) {
                    throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " refused the subscription to '"
                            + s.filter() + "': SUBACK return code " + Fault.reasonCode(code.getCode(), code));
                }
                granted = code.getCode();
            }
            if (granted < s.qos()) {
                throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " lowered the subscription to '"
                        + s.filter() + "' to QoS " + granted + " (SUBACK granted QoS " + Fault.reasonCode(granted, "")
                        .trim() + "), asked --opt qos=" + s.qos());
            }
        } catch (IOException | RuntimeException e) {
            conn.close();
            throw e;
        }
        this.grantedQos = granted;
    }

    private void onPublish5(Mqtt5Publish p) {
        deliver(p.getPayload().orElse(EMPTY));
    }

    private void onPublish3(Mqtt3Publish p) {
        deliver(p.getPayload().orElse(EMPTY));
    }

    private void deliver(ByteBuffer payload) {
        delivery.deliver(payload.order(ByteOrder.LITTLE_ENDIAN));
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) {
        if (conn.reconnect != null) {
            conn.lostReason(); // past the give-up, ends the connection now rather than at the client's next attempt
        }
        return delivery.poll(handler, timeoutMs);
    }

    /** Push mode: the handler runs on the client's I/O thread (the subscription's direct executor). */
    @Override
    public void start(MessageHandler handler, Consumer<String> ended) {
        delivery.start(handler, ended);
    }

    @Override
    public String destination() {
        return topic;
    }

    @Override
    public Map<String, Long> counters() {
        long shorts = delivery.shortPayloads();
        Map<String, Long> own = Map.of("errors", shorts, "short_payloads", shorts, "qos_granted", (long) grantedQos);
        return conn.reconnect == null ? own
                : conn.reconnect.counters(own, io.msgscope.core.driver.Reconnects.SUBSCRIBER_RECONNECTS, null);
    }

    @Override
    public String closeReason() {
        return conn.lostReason();
    }

    @Override
    public Map<String, String> serverInfo() {
        Map<String, String> m = new java.util.LinkedHashMap<>(conn.serverInfo);
        m.put("granted_qos", "" + grantedQos);
        return m;
    }

    @Override
    public void close() {
        delivery.closing();
        conn.close();
    }
}
