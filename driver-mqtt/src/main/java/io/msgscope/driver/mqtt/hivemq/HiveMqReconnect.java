package io.msgscope.driver.mqtt.hivemq;

import com.hivemq.client.mqtt.MqttClientBuilder;
import com.hivemq.client.mqtt.lifecycle.MqttClientConnectedContext;
import com.hivemq.client.mqtt.lifecycle.MqttClientConnectedListener;
import com.hivemq.client.mqtt.lifecycle.MqttClientDisconnectedContext;
import com.hivemq.client.mqtt.lifecycle.MqttClientDisconnectedListener;
import com.hivemq.client.mqtt.lifecycle.MqttClientReconnector;
import com.hivemq.client.mqtt.lifecycle.MqttDisconnectSource;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import io.msgscope.core.driver.Confirmations;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Reconnects;
import io.msgscope.driver.mqtt.MqttSettings;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * {@code --opt reconnect=true} on the hivemq engine (issue 32 item 3): the HiveMQ client's own automatic reconnect,
 * bounded and counted so that it hides nothing. The client dials again every 75-125 ms ({@link #DELAY_MS}, to which it
 * adds up to a quarter either way at random) with the same client id and the CONNECT of the lost connection (clean
 * start off, the session expiry kept), for as long as a disconnected listener lets it: the client has no give-up of its
 * own, so this one ends the attempts after {@link MqttSettings#RECONNECT_GIVE_UP_S} s without a connection, as the
 * netty engine does, or at once on a refusal (a CONNACK error code), and the connection is then lost as without the
 * option ({@link #lostReason}).
 *
 * <p>What the client does on its own after a reconnect (read in its 1.4.2 sources: {@code MqttSession.startOrResume},
 * {@code MqttOutgoingQosHandler.onSessionStartOrResume} and {@code resend}, {@code MqttSubscriptionHandler
 * .onSessionStartOrResume}): every QoS 1/2 publish written and not yet acknowledged is sent again with DUP set and its
 * packet id, and at QoS 2 a PUBREL again where the PUBREC had come; publishes not yet written go out after them. It
 * tells nobody how many it sent again, so {@code messages_republished} is unknown on this engine. Here it is also told
 * to republish when the broker lost the session ({@code republishIfSessionExpired}, off by default: the publishes
 * would fail instead) and to subscribe again even when the broker kept it ({@code resubscribeIfSessionPresent}, off by
 * default; it subscribes again after a lost session by default), so the subscription is back either way, as on the
 * netty engine.
 */
final class HiveMqReconnect implements MqttClientConnectedListener, MqttClientDisconnectedListener {
    /** The client's delay before each attempt, before its random quarter. */
    static final long DELAY_MS = 100;
    private static final long GIVE_UP_NS = TimeUnit.SECONDS.toNanos(MqttSettings.RECONNECT_GIVE_UP_S);

    private final MqttSettings settings;
    private final Consumer<String> onLost;
    private final AtomicLong reconnects = new AtomicLong();
    private volatile boolean connected;
    /** When the connection was lost ({@link System#nanoTime}, made non-zero), 0 while it lives. */
    private volatile long downSince;
    private volatile String lastCause;
    private volatile Fault gaveUp;
    private volatile boolean closing;
    /** Disconnects the client: a connection got back after the attempts ended or after close is let go at once. */
    private volatile Runnable disconnect = () -> { };

    HiveMqReconnect(MqttSettings settings, Consumer<String> onLost) {
        this.settings = settings;
        this.onLost = onLost;
    }

    /** {@code b} with the automatic reconnect and these listeners. */
    MqttClientBuilder apply(MqttClientBuilder b) {
        return b.automaticReconnect().initialDelay(DELAY_MS, TimeUnit.MILLISECONDS)
                .maxDelay(DELAY_MS, TimeUnit.MILLISECONDS).applyAutomaticReconnect()
                .addConnectedListener(this).addDisconnectedListener(this);
    }

    void disconnectWith(Runnable disconnect) {
        this.disconnect = disconnect;
    }

    /** Client thread, after each CONNACK: one after a loss is a reconnect. */
    @Override
    public void onConnected(MqttClientConnectedContext context) {
        boolean back = downSince != 0;
        connected = true;
        downSince = 0;
        if (back && (gaveUp != null || closing)) {
            disconnect.run();
        } else if (back) {
            reconnects.incrementAndGet();
        }
    }

    /**
     * Client thread, after the connection went and after each failed attempt; runs after the client's own automatic
     * reconnect listener, which has asked for the next attempt, so what is set here wins.
     */
    @Override
    public void onDisconnected(MqttClientDisconnectedContext context) {
        if (context.getSource() == MqttDisconnectSource.USER) {
            return; // msgscope closed it
        }
        MqttClientReconnector next = context.getReconnector();
        if (!connected || closing || gaveUp != null) {
            next.reconnect(false); // a first connect that fails fails as without the option
            return;
        }
        Throwable cause = context.getCause();
        lastCause = context.getSource() + " closed it: " + MqttSettings.oneLine(cause);
        long now = System.nanoTime() | 1;
        if (downSince == 0) {
            downSince = now;
        }
        if (cause instanceof Mqtt5ConnAckException || cause instanceof Mqtt3ConnAckException) {
            giveUp(Fault.Kind.REFUSED, "refused again (" + lastCause + ")");
            next.reconnect(false);
        } else if (overdue(now)) {
            next.reconnect(false);
        } else {
            next.resubscribeIfSessionPresent(true).republishIfSessionExpired(true);
        }
    }

    /** Whether the attempts have gone on for longer than the give-up; ends them if so (any thread). */
    private boolean overdue(long now) {
        long since = downSince;
        if (since == 0 || now - since < GIVE_UP_NS) {
            return false;
        }
        giveUp(Fault.Kind.CONNECTION_LOST, "not got back within " + MqttSettings.RECONNECT_GIVE_UP_S
                + " s (--opt reconnect=true): " + lastCause);
        return true;
    }

    private synchronized void giveUp(Fault.Kind kind, String why) {
        if (gaveUp == null) {
            gaveUp = new Fault(kind, "connection to MQTT broker at " + settings.address() + " lost and " + why);
            if (onLost != null) {
                onLost.accept(gaveUp.getMessage());
            }
        }
    }

    /**
     * Null while the connection lives or is being got back; once the attempts have ended, the fault that ends the run.
     * Checks the give-up first: a sender waiting on a full window or a poll must not wait for the client's next
     * failed attempt, which a connect timeout may hold up for seconds.
     */
    Fault lostReason() {
        if (downSince != 0) {
            overdue(System.nanoTime());
        }
        return gaveUp;
    }

    /** Msgscope is closing the client: no further attempt. */
    void closing() {
        closing = true;
    }

    /** Whether the connection is gone right now (being got back, or given up). */
    boolean down() {
        return downSince != 0 || gaveUp != null;
    }

    long reconnects() {
        return reconnects.get();
    }

    /**
     * A side's counters {@code own} with {@link Reconnects}' ones: {@code reconnectsKey} (the publisher's or the
     * subscriber's), and {@code confirmations}' (null at QoS 0, which confirms nothing) without {@link
     * Reconnects#REPUBLISHED}, which the client does not tell: unknown, so absent, never 0.
     */
    Map<String, Long> counters(Map<String, Long> own, String reconnectsKey, Confirmations confirmations) {
        Map<String, Long> m = new HashMap<>(own);
        m.put(reconnectsKey, reconnects.get());
        if (confirmations != null) {
            m.putAll(confirmations.counters());
            m.remove(Reconnects.REPUBLISHED);
        }
        return Map.copyOf(m);
    }
}
