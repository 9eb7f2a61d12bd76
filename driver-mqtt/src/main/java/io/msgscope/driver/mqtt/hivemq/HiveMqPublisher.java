package io.msgscope.driver.mqtt.hivemq;

import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.Confirmations;
import io.msgscope.core.driver.Reconnects;
import io.msgscope.core.driver.DeliveryCount;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.datatypes.MqttTopic;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Publisher;

import io.msgscope.core.driver.Fault;
import io.msgscope.driver.mqtt.MqttSettings;
import io.msgscope.driver.mqtt.PublishWindow;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubRecException;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAck;
import com.hivemq.client.mqtt.mqtt5.message.publish.pubrec.Mqtt5PubRec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Publishes from the sender's thread into one reactive publish stream per connection
 * ({@link PublishStream}); the topic and a template publish (topic, QoS) are built once. The client
 * keeps a reference to the payload it is given (its builder only slices the buffer) and encodes it
 * later on its I/O thread, while the sender rewrites its buffer in place for the next message: so each
 * message is copied into a fresh byte[] of the message size — the one allocation per message in this
 * driver's own code. The client adds its own (publish object, Rx plumbing).
 *
 * <p>Each publish completes once written (QoS 0), on PUBACK (QoS 1) or, at QoS 2, on PUBREC: the client's publish
 * stream gives each publish's result when the PUBREC comes and only frees its flow control at the PUBCOMP
 * ({@code MqttOutgoingQosHandler.readPubRec}, {@code QOS_2_COMPLETE_RESULT = false} in its 1.4.2 sources). Completions
 * at QoS 1 and 2 count as {@code messages_acked} (Q5; warm-up messages, with a negative sequence, as
 * {@code warmup_acked}), failures as {@code publish_errors}. At most {@code max_inflight} publishes are
 * outstanding (a window, not a wait per message); {@link #drain} waits for all of them.
 *
 * <p>{@code --opt reconnect=true} (issue 32 item 3, {@link HiveMqReconnect}): the client gets the connection back and
 * sends again what was not acknowledged; here each measured message's completion is noted by sequence
 * ({@link Confirmations}), so what is never confirmed is counted and named, not hidden, and a send fails only once the
 * client has given the connection up. QoS 0 publishes written into the dead connection are gone (counted lost, not
 * publish errors), as on the netty engine.
 */
public final class HiveMqPublisher implements Publisher {

    private final HiveMqConnection conn;
    private final int size;
    private final boolean acks;
    private final int maxInflight;
    private final AckCounts counts = new AckCounts();
    private final int qos;
    private final DeliveryCount lost = new DeliveryCount();
    /** Warm-up messages (negative sequence) and measured ones complete into separate ack counts. */
    private final BiConsumer<Object, Throwable> onDone = new Completion(false);
    private final BiConsumer<Object, Throwable> onWarmupDone = new Completion(true);

    private final class Completion implements BiConsumer<Object, Throwable> {
        private final boolean warmup;

        Completion(boolean warmup) {
            this.warmup = warmup;
        }

        @Override
        public void accept(Object result, Throwable failure) {
            Throwable f = failure != null ? failure : PublishStream.error(result);
            if (f != null && qos == 0 && conn.reconnect != null
                    && f instanceof com.hivemq.client.mqtt.exceptions.ConnectionClosedException) {
                window.complete(1); // written into the dead connection: gone, counted lost; the client reconnects
                return;
            }
            if (f != null) {
                failed(f);
            } else if (acks) {
                counts.acked(warmup);
            }
            window.complete(1);
        }
    }

    /**
     * A failed publish: a PUBACK/PUBREC with an error reason code (MQTT 5) is a refusal, counted as
     * {@code publish_refused} too; the first failure is kept, with its reason code, for the results.
     */
    private void failed(Throwable f) {
        String broker = "MQTT broker at " + conn.settings.address() + " ";
        if (f instanceof Mqtt5PubAckException x) {
            Mqtt5PubAck a = x.getMqttMessage();
            counts.refused(broker + "refused a QoS 1 publish: PUBACK reason code " + HiveMqConnection.code(a.getReasonCode())
                    + a.getReasonString().map(r -> " (" + r + ")").orElse(""));
        } else if (f instanceof Mqtt5PubRecException x) {
            Mqtt5PubRec a = x.getMqttMessage();
            counts.refused(broker + "refused a QoS 2 publish: PUBREC reason code " + HiveMqConnection.code(a.getReasonCode())
                    + a.getReasonString().map(r -> " (" + r + ")").orElse(""));
        } else {
            counts.error(broker + "failed a publish: " + MqttSettings.oneLine(f));
        }
    }

    private long sent; // sender thread only
    private final PublishStream stream;
    private volatile Throwable streamFailure;
    /** At most max_inflight publishes outstanding; see {@link PublishWindow}. */
    private final PublishWindow window;
    /** reconnect=true at QoS 1 and 2: each measured message's confirmation by sequence; null otherwise. */
    private final Confirmations confirmations;

    public HiveMqPublisher(MqttSettings s, int size, io.msgscope.core.driver.ClientContext context) throws IOException {
        this.size = size;
        this.acks = s.qos() > 0;
        this.qos = s.qos();
        this.maxInflight = s.maxInflight();
        this.window = new PublishWindow(maxInflight, s.address());
        this.confirmations = s.reconnect() && s.qos() > 0 ? new Confirmations() : null;
        this.conn = HiveMqConnection.open(s, "pub", why -> lost.lost(), context);
        if (s.qos() > conn.maximumQos) {
            conn.close();
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " accepts QoS " + conn.maximumQos
                    + " at most (CONNACK Maximum QoS), asked --opt qos=" + s.qos());
        }
        stream = new PublishStream(conn, MqttTopic.of(s.topic()), MqttQos.fromCode(s.qos()), maxInflight,
                this::onResult, t -> streamFailure = t);
    }

    /** Client thread: one publish completed; warm-up messages (negative sequence) count apart. */
    private void onResult(Object result) {
        ByteBuffer p = PublishStream.payloadOf(result);
        long seq = p != null && p.remaining() >= WireHeader.SIZE ? WireHeader.sequence(p, p.position()) : -1;
        boolean warmup = p != null && p.remaining() >= WireHeader.SIZE && seq < 0;
        if (confirmations != null && PublishStream.error(result) == null) {
            confirmations.confirm(seq);
        }
        (warmup ? onWarmupDone : onDone).accept(result, null);
    }

    /** Sender thread, before the hand-over: reconnect=true notes each measured message sent. */
    private void track(ByteBuffer buffer, int off) {
        if (confirmations != null && size >= WireHeader.SIZE) {
            confirmations.sent(WireHeader.sequence(buffer, off));
        }
    }

    /**
     * Copies each message, queues it on the publish stream and hands the call's messages to the client
     * at once (so {@code --send-batch K} means K publishes per hand-over); waits only when {@code max_inflight}
     * publishes are outstanding (the window bounds the client's queue and, at QoS 1 and 2, the packet
     * identifiers in use), so the sender never waits for a single publish's future.
     */
    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int size = this.size;
        final int end = offset + length;
        final PublishStream out = stream;
        for (int off = offset; off < end; off += size) {
            if (lost.isLost()) { // a volatile read: the client would fail every publish from now on
                checkAlive();
            }
            if (window.full(sent)) {
                out.signal(); // what is queued must go before the window can open
                window.await(sent, this::checkAlive);
            }
            final byte[] copy = new byte[size];
            buffer.get(off, copy, 0, size);
            track(buffer, off);
            sent++;
            out.publish(copy);
        }
        out.signal(); // one hand-over per call: --send-batch K hands K messages to the client at once
    }

    /**
     * One message if the window has room, without waiting (the scenario pacers, issue 13): copied and handed
     * to the client at once; false when {@code max_inflight} publishes are outstanding.
     */
    @Override
    public boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        if (lost.isLost()) {
            checkAlive();
        }
        final PublishStream out = stream;
        if (window.full(sent)) {
            out.signal();
            if (conn.reconnect != null) {
                checkAlive(); // a pacer offering into a window the outage filled learns of the give-up here
            }
            return false;
        }
        final byte[] copy = new byte[size];
        buffer.get(offset, copy, 0, size);
        track(buffer, offset);
        sent++;
        out.publish(copy);
        out.signal();
        return true;
    }

    private void checkAlive() throws IOException {
        Fault given = conn.reconnect != null ? conn.reconnect.lostReason() : null;
        if (given != null) {
            throw new Fault(given.kind(), given.getMessage() + " after " + sent + " publishes", given);
        }
        Throwable f = streamFailure;
        if (f != null) {
            throw new IOException("publishing to MQTT broker at " + conn.settings.address() + " failed after "
                    + sent + " publishes: " + MqttSettings.oneLine(f), f);
        }
        if (lost.isLost() && conn.reconnect == null) {
            if (qos > 0 && sent > 0 && counts.totalAcked() == 0 && conn.v3 != null) {
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
        if (conn.reconnect != null) {
            window.drainCounting(sent, timeoutMs, this::checkAlive);
            return;
        }
        // the client fails outstanding futures when the connection goes: give them 1 s to land first
        final long[] lostAt = {0};
        window.drain(sent, timeoutMs, () -> {
            if (lost.isLost()) {
                long now = System.nanoTime();
                if (lostAt[0] == 0) {
                    lostAt[0] = now;
                } else if (now - lostAt[0] > 1_000_000_000L) {
                    checkAlive();
                }
            }
        });
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> own = counts.counters(true, true);
        return conn.reconnect == null ? own : conn.reconnect.counters(own, Reconnects.PUBLISHER_RECONNECTS, confirmations);
    }

    /** reconnect=true at QoS 1 and 2: each measured message's PUBACK (QoS 1) or PUBREC (QoS 2) is noted by sequence. */
    @Override
    public boolean confirms() {
        return confirmations != null;
    }

    @Override
    public long[] unconfirmed() {
        return confirmations == null ? null : confirmations.unconfirmedRanges();
    }

    @Override
    public String firstError() {
        return counts.firstError();
    }

    @Override
    public void close() {
        stream.complete();
        conn.close();
    }
}
