package io.msgscope.driver.mqtt;

import io.msgscope.core.driver.DeliveryCount;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.datatypes.MqttTopic;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Publisher;

import io.msgscope.core.driver.Fault;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubRecException;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAck;
import com.hivemq.client.mqtt.mqtt5.message.publish.pubrec.Mqtt5PubRec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.concurrent.locks.LockSupport;

/**
 * Publishes from the sender's thread with the async API; the topic and a template publish (topic,
 * QoS) are built once. The client keeps a reference to the payload it is given (its builder only
 * slices the buffer) and encodes it later on its I/O thread, while the sender rewrites its buffer in
 * place for the next message: so each message is copied into a fresh byte[] of the message size —
 * the one allocation per message in this driver's own code. The client adds its own (publish object,
 * future, Rx plumbing).
 *
 * <p>The publish future completes on PUBACK (QoS 1), PUBCOMP (QoS 2), or once written (QoS 0);
 * completions at QoS 1 and 2 count as {@code messages_acked} (warm-up messages, with a negative
 * sequence, as {@code warmup_acked}), failures as {@code publish_errors}.
 * At most {@code max_inflight} publishes are outstanding; {@link #drain} waits for all of them.
 */
final class MqttPublisher implements Publisher {
    private static final long STALL_NS = 30_000_000_000L;

    private final MqttConnection conn;
    private final int size;
    private final boolean acks;
    private final int maxInflight;
    private final Mqtt5Publish template5;
    private final Mqtt3Publish template3;
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong warmupAcked = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile String firstError;
    private final int qos;
    private final DeliveryCount lost = new DeliveryCount();
    /** Warm-up messages (negative sequence) and measured ones complete into separate ack counts. */
    private final BiConsumer<Object, Throwable> onDone = new Completion(acked);
    private final BiConsumer<Object, Throwable> onWarmupDone = new Completion(warmupAcked);

    private final class Completion implements BiConsumer<Object, Throwable> {
        private final AtomicLong ackCount;

        Completion(AtomicLong ackCount) {
            this.ackCount = ackCount;
        }

        @Override
        public void accept(Object result, Throwable failure) {
            Throwable f = failure != null ? failure
                    : result instanceof Mqtt5PublishResult r && r.getError().isPresent() ? r.getError().get() : null;
            if (f != null) {
                failed(f);
            } else if (acks) {
                ackCount.incrementAndGet();
            }
            completed.incrementAndGet();
        }
    }

    /**
     * A failed publish: a PUBACK/PUBREC with an error reason code (MQTT 5) is a refusal, counted as
     * {@code publish_refused} too; the first failure is kept, with its reason code, for the results.
     */
    private void failed(Throwable f) {
        errors.incrementAndGet();
        String why;
        if (f instanceof Mqtt5PubAckException x) {
            Mqtt5PubAck a = x.getMqttMessage();
            refused.incrementAndGet();
            why = "refused a QoS 1 publish: PUBACK reason code " + MqttConnection.code(a.getReasonCode())
                    + a.getReasonString().map(r -> " (" + r + ")").orElse("");
        } else if (f instanceof Mqtt5PubRecException x) {
            Mqtt5PubRec a = x.getMqttMessage();
            refused.incrementAndGet();
            why = "refused a QoS 2 publish: PUBREC reason code " + MqttConnection.code(a.getReasonCode())
                    + a.getReasonString().map(r -> " (" + r + ")").orElse("");
        } else {
            why = "failed a publish: " + MqttConnection.oneLine(f);
        }
        if (firstError == null) {
            firstError = "MQTT broker at " + conn.settings.address() + " " + why;
        }
    }

    private long sent; // sender thread only

    MqttPublisher(MqttSettings s, int size) throws IOException {
        this.size = size;
        this.acks = s.qos() > 0;
        this.qos = s.qos();
        this.maxInflight = s.maxInflight();
        this.conn = MqttConnection.open(s, "pub", lost);
        if (s.qos() > conn.maximumQos) {
            conn.close();
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " accepts QoS " + conn.maximumQos
                    + " at most (CONNACK Maximum QoS), asked --opt qos=" + s.qos());
        }
        MqttTopic topic = MqttTopic.of(s.topic());
        MqttQos qos = MqttQos.fromCode(s.qos());
        if (conn.v5 != null) {
            template5 = Mqtt5Publish.builder().topic(topic).qos(qos).build();
            template3 = null;
        } else {
            template3 = Mqtt3Publish.builder().topic(topic).qos(qos).build();
            template5 = null;
        }
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int size = this.size;
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            if (lost.isLost()) { // a volatile read: the client would fail every publish from now on
                checkAlive();
            }
            if (sent - completed.get() >= maxInflight) {
                awaitWindow();
            }
            final byte[] copy = new byte[size];
            buffer.get(off, copy, 0, size);
            sent++;
            final BiConsumer<Object, Throwable> done = WireHeader.sequence(buffer, off) < 0 ? onWarmupDone : onDone;
            if (template5 != null) {
                conn.v5.publish(template5.extend().payload(copy).build()).whenComplete(done);
            } else {
                conn.v3.publish(template3.extend().payload(copy).build()).whenComplete(done);
            }
        }
    }

    private void awaitWindow() throws IOException {
        long last = completed.get();
        long since = System.nanoTime();
        while (sent - completed.get() >= maxInflight) {
            checkAlive();
            long c = completed.get();
            if (c != last) {
                last = c;
                since = System.nanoTime();
            } else if (System.nanoTime() - since > STALL_NS) {
                throw new IOException("MQTT broker at " + conn.settings.address() + " completed no publish for "
                        + STALL_NS / 1_000_000_000L + " s (" + (sent - c) + " outstanding)");
            }
            LockSupport.parkNanos(20_000);
        }
    }

    private void checkAlive() throws IOException {
        if (lost.isLost()) {
            if (qos > 0 && sent > 0 && acked.get() + warmupAcked.get() == 0 && conn.v3 != null) {
                // MQTT 3.1.1 has no reason codes: a broker that does not accept a QoS closes the connection
                throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + conn.settings.address() + " closed the "
                        + "connection after " + sent + " QoS " + qos + " publishes, none acknowledged: an MQTT 3.1.1 "
                        + "broker refuses a QoS it does not support this way (e.g. mosquitto's max_qos)");
            }
            throw new Fault(Fault.Kind.CONNECTION_LOST, "connection to MQTT broker at " + conn.settings.address()
                    + " lost after " + sent + " publishes");
        }
    }

    @Override
    public void drain(long timeoutMs) throws IOException {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        long lostAt = 0;
        while (completed.get() < sent) {
            long now = System.nanoTime();
            if (now > deadline) {
                throw new IOException((sent - completed.get()) + " of " + sent + " publishes to "
                        + conn.settings.address() + " not completed after " + timeoutMs + " ms");
            }
            if (lost.isLost()) { // the client fails outstanding futures when the connection goes
                if (lostAt == 0) {
                    lostAt = now;
                } else if (now - lostAt > 1_000_000_000L) {
                    checkAlive();
                }
            }
            LockSupport.parkNanos(100_000);
        }
    }

    @Override
    public Map<String, Long> counters() {
        return Map.of("messages_acked", acked.get(), "warmup_acked", warmupAcked.get(), "publish_errors", errors.get(),
                "publish_refused", refused.get());
    }

    @Override
    public String firstError() {
        return firstError;
    }

    @Override
    public void close() {
        conn.close();
    }
}
