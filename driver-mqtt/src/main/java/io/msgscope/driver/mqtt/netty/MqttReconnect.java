package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Confirmations;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Reconnects;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * {@code --opt reconnect=true} on the netty engine (issue 32 item 3): getting a lost connection back, and the
 * publisher's book of what it must publish again.
 *
 * <p>{@link #reconnect} dials the same broker with the same client id every {@link #WAIT_NS} until a CONNACK comes or
 * {@link #GIVE_UP_NS} have passed; the CONNECT keeps the persistent session (clean start off, a session expiry at MQTT
 * 5), so the broker kept the subscriber's QoS 1/2 messages while it was away (if it outlived the outage: a broker
 * restarted without persistence has forgotten them, and what it had acknowledged is then lost, a guarantee
 * violation the results name).
 *
 * <p>A publisher keeps a copy of each QoS 1/2 publish by packet id until its PUBACK (QoS 1) or PUBCOMP (QoS 2) ({@link
 * #keep}, {@link #completed}): one array of the message size per publish, the price of the option. After a reconnect
 * the publisher sends again, in the order they were first sent, every publish still waiting, with the DUP flag
 * ({@code messages_republished}), or at QoS 2, where the broker had answered PUBREC and kept the session, the PUBREL
 * (MQTT 5 §4.4). Each measured message's completion is noted by sequence ({@link Confirmations}): the coordinator tells
 * a lost message the broker had acknowledged from one it never had.
 */
final class MqttReconnect {
    /** The wait between two attempts. */
    static final long WAIT_NS = 100_000_000L;
    /** How long attempts go on before the connection is given up (the run then fails as without the option). */
    static final long GIVE_UP_NS = io.msgscope.driver.mqtt.MqttSettings.RECONNECT_GIVE_UP_S * 1_000_000_000L;

    final Confirmations confirmations = new Confirmations();
    final AtomicLong reconnects = new AtomicLong();
    private final AtomicReferenceArray<byte[]> copies;
    private final long[] seqs; // written by the sender before the publish is handed over, read on the event loop

    /** A publisher's book for packet ids 1..maxId. */
    MqttReconnect(int maxId) {
        this.copies = new AtomicReferenceArray<>(maxId + 1);
        this.seqs = new long[maxId + 1];
    }

    /**
     * Dials {@code lost}'s successors until one is connected. {@code attempt} is told of each before it dials (the
     * owner's packets from the broker arrive right after the CONNACK and are acknowledged through its current
     * session); a refusal (CONNACK reason code) ends the attempts at once, as does {@code closing}.
     */
    static NettyMqttSession reconnect(NettyMqttSession lost, ClientContext context, Consumer<NettyMqttSession> attempt,
            BooleanSupplier closing) throws IOException {
        final long deadline = System.nanoTime() + GIVE_UP_NS;
        String last = lost.lostWhy();
        while (!closing.getAsBoolean() && System.nanoTime() < deadline) {
            NettyMqttSession next = lost.successor();
            attempt.accept(next);
            try {
                next.connect(context);
                return next;
            } catch (Fault f) {
                if (f.kind() == Fault.Kind.REFUSED) {
                    throw f;
                }
                last = f.getMessage();
            }
            LockSupport.parkNanos(WAIT_NS);
        }
        throw new Fault(Fault.Kind.CONNECTION_LOST, "connection to MQTT broker at " + lost.settings.address()
                + " lost (" + lost.lostWhy() + ") and not got back" + (closing.getAsBoolean() ? " before the end"
                : " within " + GIVE_UP_NS / 1_000_000_000L + " s (--opt reconnect=true): " + last));
    }

    /**
     * At a clean close of a persistent session: connects once more with {@code closed}'s client id on a clean session
     * and disconnects, so the run leaves no session on the broker (MQTT 3.1.1 discards the stored session at a CONNECT
     * with clean session set, MQTT 5 at clean start; with no session expiry the new one ends with the connection). A
     * failure is one line on stderr; the run's figures stand.
     */
    static void clear(NettyMqttSession closed, ClientContext context) {
        NettyMqttSession clearer = closed.onCleanSession();
        try {
            clearer.connect(context);
            clearer.close();
        } catch (IOException | RuntimeException e) {
            System.err.println("mqtt: could not clear the persistent session of client '" + closed.clientId + "' at "
                    + closed.settings.address() + ": " + io.msgscope.driver.mqtt.MqttSettings.oneLine(e));
        }
    }

    /** Sender thread: the publish with packet id {@code id} carries message {@code seq} (negative: warm-up). */
    void keep(int id, long seq, ByteBuffer buffer, int off, int size) {
        byte[] copy = new byte[size];
        buffer.get(off, copy, 0, size);
        seqs[id] = seq;
        copies.set(id, copy);
        confirmations.sent(seq);
    }

    /** Event loop: the publish {@code id} completed; {@code ok} when the broker took it (a success reason code). */
    void completed(int id, boolean ok) {
        if (copies.getAndSet(id, null) != null && ok) {
            confirmations.confirm(seqs[id]);
        }
    }

    /** The copy of the publish still waiting under {@code id}, or null. */
    byte[] waiting(int id) {
        return copies.get(id);
    }

    /** One publish sent again. */
    void republished() {
        confirmations.republished();
    }

    /** {@link Reconnects}' publisher counters. */
    Map<String, Long> counters() {
        Map<String, Long> m = new java.util.HashMap<>(confirmations.counters());
        m.put(Reconnects.PUBLISHER_RECONNECTS, reconnects.get());
        return m;
    }

    /** The publisher's own counters {@code acks} and {@link Reconnects}' ones; none of confirmation at QoS 0. */
    Map<String, Long> counters(Map<String, Long> acks, boolean qos0) {
        Map<String, Long> m = new java.util.HashMap<>(acks);
        m.putAll(counters());
        if (qos0) { // nothing is confirmed at QoS 0
            m.remove(Reconnects.CONFIRMED);
            m.remove(Reconnects.UNCONFIRMED);
            m.remove(Reconnects.REPUBLISHED);
        }
        return Map.copyOf(m);
    }
}
