package io.msgscope.driver.mqtt;

import io.msgscope.core.driver.DeliveryCount;
import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttClientBuilder;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.message.connect.Mqtt3ConnectBuilder;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.message.connect.Mqtt5ConnectBuilder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One connected HiveMQ client, MQTT 3.1.1 or 5 (exactly one of {@link #v3} and {@link #v5} is set).
 * No automatic reconnect: a lost connection is reported, not hidden. TCP_NODELAY: the client does not
 * set it itself; Netty's socket channels enable it by default on Linux (checked in the tests).
 */
final class MqttConnection {
    static final long CONNECT_TIMEOUT_S = 5;

    final MqttSettings settings;
    final Mqtt5AsyncClient v5;
    final Mqtt3AsyncClient v3;

    private MqttConnection(MqttSettings settings, Mqtt5AsyncClient v5, Mqtt3AsyncClient v3) {
        this.settings = settings;
        this.v5 = v5;
        this.v3 = v3;
    }

    static MqttConnection open(MqttSettings s, String role, DeliveryCount lostFlag) throws IOException {
        MqttClientBuilder b = MqttClient.builder()
                .identifier("msgscope-" + role + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()))
                .transportConfig().serverHost(s.host()).serverPort(s.port())
                .socketConnectTimeout(CONNECT_TIMEOUT_S, TimeUnit.SECONDS)
                .mqttConnectTimeout(CONNECT_TIMEOUT_S, TimeUnit.SECONDS).applyTransportConfig()
                .addDisconnectedListener(ctx -> {
                    if (lostFlag != null) {
                        lostFlag.lost();
                    }
                });
        if (s.tls()) {
            b = b.sslWithDefaultConfig();
        }
        byte[] pass = s.password() == null ? null : s.password().getBytes(StandardCharsets.UTF_8);
        if (s.version() == 5) {
            Mqtt5AsyncClient c = b.useMqttVersion5().buildAsync();
            Mqtt5ConnectBuilder.Send<CompletableFuture<com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAck>> connect = c.connectWith().cleanStart(s.cleanSession())
                    .sessionExpiryInterval(s.cleanSession() ? 0 : 3600).keepAlive(s.keepAlive());
            if (s.username() != null) {
                connect = connect.simpleAuth().username(s.username()).password(pass == null ? new byte[0] : pass)
                        .applySimpleAuth();
            }
            await(connect.send(), s, "connect");
            return new MqttConnection(s, c, null);
        }
        Mqtt3AsyncClient c = b.useMqttVersion3().buildAsync();
        Mqtt3ConnectBuilder.Send<CompletableFuture<com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAck>> connect = c.connectWith().cleanSession(s.cleanSession()).keepAlive(s.keepAlive());
        if (s.username() != null) {
            var auth = connect.simpleAuth().username(s.username());
            connect = pass == null ? auth.applySimpleAuth() : auth.password(pass).applySimpleAuth();
        }
        await(connect.send(), s, "connect");
        return new MqttConnection(s, null, c);
    }

    /** Waits for a set-up step; failures become one line naming the broker's address. */
    static <T> T await(CompletableFuture<T> f, MqttSettings s, String what) throws IOException {
        try {
            return f.get(2 * CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause() == null ? e : e.getCause();
            throw new IOException("cannot " + what + " to MQTT broker at " + s.address() + ": " + oneLine(c), c);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new IOException("cannot " + what + " to MQTT broker at " + s.address() + ": no answer within "
                    + 2 * CONNECT_TIMEOUT_S + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting to " + what + " to " + s.address());
        }
    }

    static String oneLine(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        if (root != t && t.getMessage() != null && !t.getMessage().contains(m)) {
            m = t.getMessage() + " (" + m + ")";
        }
        return m.replace('\n', ' ');
    }

    void close() {
        try {
            CompletableFuture<Void> f = v5 != null ? v5.disconnect() : v3.disconnect();
            f.get(CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (Exception e) {
            // already gone, or the broker did not answer: closing anyway
        }
    }
}
