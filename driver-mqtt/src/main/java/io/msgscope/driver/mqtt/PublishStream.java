package io.msgscope.driver.mqtt;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.datatypes.MqttTopic;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3PublishResult;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import io.reactivex.FlowableSubscriber;
import io.reactivex.processors.UnicastProcessor;
import org.reactivestreams.Subscription;

import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * The publisher's hot path: ONE reactive publish stream per connection instead of one asynchronous
 * publish (and one future) per message. The sender thread pushes each publish into a single-producer
 * {@link UnicastProcessor}; the client pulls from it as its flow control allows and hands publishes to
 * its Netty event loop in batches (one wake-up and one flush per batch rather than per message). Each
 * publish's result (written at QoS 0, PUBACK at QoS 1, PUBCOMP at QoS 2, or an error) reaches the
 * result consumer on the client's thread. The caller bounds what is queued here (its in-flight
 * window), so the processor's queue never grows beyond that window.
 *
 * <p>Measured with 64 B at QoS 0 against Mosquitto on this machine class: ~35 k msg/s with one
 * asynchronous publish per message, ~55 k msg/s with the stream (BENCHMARKS.md, "Peers").
 */
final class PublishStream {
    private final UnicastProcessor<Mqtt5Publish> in5;
    private final UnicastProcessor<Mqtt3Publish> in3;
    private final Mqtt5Publish template5;
    private final Mqtt3Publish template3;

    /**
     * Starts the stream on the connection; {@code onResult} gets every publish result (an
     * {@link Mqtt5PublishResult} or {@link Mqtt3PublishResult}), {@code onFailure} the reason if the
     * stream itself ends with an error (e.g. the connection closed).
     */
    PublishStream(MqttConnection conn, MqttTopic topic, MqttQos qos, int window, Consumer<Object> onResult,
                  Consumer<Throwable> onFailure) {
        int hint = Math.min(Math.max(window, 16), 4096);
        ResultSink sink = new ResultSink(onResult, onFailure);
        if (conn.v5 != null) {
            template5 = Mqtt5Publish.builder().topic(topic).qos(qos).build();
            template3 = null;
            in5 = UnicastProcessor.create(hint);
            in3 = null;
            conn.v5.toRx().publish(in5).subscribe(sink);
        } else {
            template3 = Mqtt3Publish.builder().topic(topic).qos(qos).build();
            template5 = null;
            in3 = UnicastProcessor.create(hint);
            in5 = null;
            conn.v3.toRx().publish(in3).subscribe(sink);
        }
    }

    /** Sender thread only: queues one publish of this payload (the client keeps the array). */
    void publish(byte[] payload) {
        if (in5 != null) {
            in5.onNext(template5.extend().payload(payload).build());
        } else {
            in3.onNext(template3.extend().payload(payload).build());
        }
    }

    /** Ends the stream: the client completes it after the last result. */
    void complete() {
        if (in5 != null) {
            in5.onComplete();
        } else {
            in3.onComplete();
        }
    }

    /** The payload of a result's publish, little-endian, for telling warm-up from measured messages. */
    static ByteBuffer payloadOf(Object result) {
        java.util.Optional<ByteBuffer> p = result instanceof Mqtt5PublishResult r5 ? r5.getPublish().getPayload()
                : ((Mqtt3PublishResult) result).getPublish().getPayload();
        return p.map(b -> b.order(java.nio.ByteOrder.LITTLE_ENDIAN)).orElse(null);
    }

    /** True when the result carries an error (a failed write, a PUBACK/PUBREC error code, a lost connection). */
    static boolean failed(Object result) {
        return result instanceof Mqtt5PublishResult r5 ? r5.getError().isPresent()
                : result instanceof Mqtt3PublishResult r3 && r3.getError().isPresent();
    }

    /** Requests every result up front: results are bounded by the publishes the window lets through. */
    private static final class ResultSink implements FlowableSubscriber<Object> {
        private final Consumer<Object> onResult;
        private final Consumer<Throwable> onFailure;

        ResultSink(Consumer<Object> onResult, Consumer<Throwable> onFailure) {
            this.onResult = onResult;
            this.onFailure = onFailure;
        }

        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Object result) {
            onResult.accept(result);
        }

        @Override
        public void onError(Throwable t) {
            onFailure.accept(t);
        }

        @Override
        public void onComplete() {
        }
    }
}
