package io.msgscope.driver.mqtt.hivemq;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.datatypes.MqttTopic;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3PublishResult;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import io.reactivex.FlowableSubscriber;
import io.reactivex.Flowable;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The publisher's hot path: ONE reactive publish stream per connection instead of one asynchronous
 * publish (and one future) per message. The sender thread queues publishes ({@link #publish}) into a
 * single-producer ring and hands them to the client once per {@code send} call ({@link #signal}); the
 * client pulls what its flow control allows and passes publishes to its Netty event loop in batches.
 * Handing over per message woke the idle event loop per message (a cross-thread wake-up each); with
 * {@code --send-batch K} the sender hands over K at a time, and whenever the client asks for more it
 * pulls what is queued itself, on its own thread. Each publish's result (written at QoS 0, PUBACK at
 * QoS 1, PUBCOMP at QoS 2, or an error) reaches the result consumer on the client's thread. The
 * caller's in-flight window bounds what is queued, so the ring (sized to the window) never overflows.
 *
 * <p>A bare HiveMQ loop against Mosquitto on this machine class (64 B, QoS 0, one JVM) published
 * ~35 k msg/s with one asynchronous publish per message and ~55 k msg/s through one stream, side by
 * side; msgscope's own figures against mosquitto_pub/sub are in BENCHMARKS.md ("Peers").
 */
final class PublishStream {
    private final Ring<Mqtt5Publish> in5;
    private final Ring<Mqtt3Publish> in3;
    private final Mqtt5Publish template5;
    private final Mqtt3Publish template3;

    /**
     * Starts the stream on the connection; {@code onResult} gets every publish result (an
     * {@link Mqtt5PublishResult} or {@link Mqtt3PublishResult}), {@code onFailure} the reason if the
     * stream itself ends with an error (e.g. the connection closed).
     */
    PublishStream(HiveMqConnection conn, MqttTopic topic, MqttQos qos, int window, Consumer<Object> onResult,
                  Consumer<Throwable> onFailure) {
        ResultSink sink = new ResultSink(onResult, onFailure);
        if (conn.v5 != null) {
            template5 = Mqtt5Publish.builder().topic(topic).qos(qos).build();
            template3 = null;
            in5 = new Ring<>(window);
            in3 = null;
            conn.v5.toRx().publish(Flowable.fromPublisher(in5)).subscribe(sink);
        } else {
            template3 = Mqtt3Publish.builder().topic(topic).qos(qos).build();
            template5 = null;
            in3 = new Ring<>(window);
            in5 = null;
            conn.v3.toRx().publish(Flowable.fromPublisher(in3)).subscribe(sink);
        }
    }

    /** Sender thread only: queues one publish of this payload (the client keeps the array); see {@link #signal}. */
    void publish(byte[] payload) {
        if (in5 != null) {
            in5.offer(template5.extend().payload(payload).build());
        } else {
            in3.offer(template3.extend().payload(payload).build());
        }
    }

    /** Sender thread: hands what is queued to the client, as far as it has asked for publishes. */
    void signal() {
        (in5 != null ? in5 : in3).drain();
    }

    /** Ends the stream once what is queued has gone: the client completes it after the last result. */
    void complete() {
        (in5 != null ? in5 : in3).complete();
    }

    /** The payload of a result's publish, little-endian, for telling warm-up from measured messages. */
    static ByteBuffer payloadOf(Object result) {
        java.util.Optional<ByteBuffer> p = result instanceof Mqtt5PublishResult r5 ? r5.getPublish().getPayload()
                : ((Mqtt3PublishResult) result).getPublish().getPayload();
        return p.map(b -> b.order(java.nio.ByteOrder.LITTLE_ENDIAN)).orElse(null);
    }

    /** The result's error (a failed write, a PUBACK/PUBREC error code, a lost connection), or null. */
    static Throwable error(Object result) {
        return result instanceof Mqtt5PublishResult r5 ? r5.getError().orElse(null)
                : result instanceof Mqtt3PublishResult r3 ? r3.getError().orElse(null) : null;
    }

    /**
     * A single-producer ring as a Reactive Streams source, drained by whichever thread gets there:
     * the sender after queueing ({@link #drain}) or the client when it requests more. Serialised by a
     * work-in-progress counter (the usual queue-drain pattern), so onNext calls never overlap.
     */
    static final class Ring<T> implements org.reactivestreams.Publisher<T>, Subscription {
        private final Object[] slots;
        private final int mask;
        private final AtomicLong tail = new AtomicLong(); // written by the sender only
        private long head; // read and written inside drain only (serialised by wip)
        private final AtomicInteger wip = new AtomicInteger();
        private final AtomicLong requested = new AtomicLong();
        private volatile Subscriber<? super T> downstream;
        private volatile boolean cancelled;
        private volatile boolean completed;

        Ring(int window) {
            int cap = Integer.highestOneBit(Math.max(2, window) - 1) << 1;
            slots = new Object[cap];
            mask = cap - 1;
        }

        /** Sender thread: the caller's window guarantees a free slot (at most {@code window} outstanding). */
        void offer(T item) {
            long t = tail.get();
            slots[(int) (t & mask)] = item;
            tail.lazySet(t + 1);
        }

        void complete() {
            completed = true;
            drain();
        }

        @Override
        public void subscribe(Subscriber<? super T> s) {
            downstream = s;
            s.onSubscribe(this);
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                return;
            }
            long r;
            long u;
            do {
                r = requested.get();
                u = r + n < 0 ? Long.MAX_VALUE : r + n;
            } while (!requested.compareAndSet(r, u));
            drain();
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        @SuppressWarnings("unchecked")
        void drain() {
            if (wip.getAndIncrement() != 0) {
                return;
            }
            int missed = 1;
            do {
                final Subscriber<? super T> down = downstream;
                if (down != null && !cancelled) {
                    final long r = requested.get();
                    long e = 0;
                    long h = head;
                    final long t = tail.get();
                    while (e != r && h != t) {
                        final int i = (int) (h & mask);
                        final T item = (T) slots[i];
                        slots[i] = null;
                        h++;
                        e++;
                        down.onNext(item);
                    }
                    head = h;
                    if (e != 0 && r != Long.MAX_VALUE) {
                        requested.addAndGet(-e);
                    }
                    if (completed && h == tail.get()) {
                        cancelled = true;
                        down.onComplete();
                    }
                }
                missed = wip.addAndGet(-missed);
            } while (missed != 0);
        }
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
