package io.msgscope.driver.mqtt.hivemq;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.driver.mqtt.MqttSettings;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAck;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import com.hivemq.client.mqtt.mqtt5.message.Mqtt5ReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAck;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckRestrictions;
import java.util.LinkedHashMap;
import java.util.Map;
import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttClientBuilder;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * One connected HiveMQ client, MQTT 3.1.1 or 5 (exactly one of {@link #v3} and {@link #v5} is set).
 * No automatic reconnect unless {@code --opt reconnect=true} ({@link #reconnect}): a lost connection is reported, not
 * hidden. TCP_NODELAY: the client does not set it itself; Netty's socket channels enable it by default on Linux
 * (checked in the tests). Credentials are the client's defaults rather than the CONNECT's: its automatic reconnect
 * builds each CONNECT again from those defaults and would otherwise come back without them.
 */
final class HiveMqConnection {
    final MqttSettings settings;
    final Mqtt5AsyncClient v5;
    final Mqtt3AsyncClient v3;
    /** What the CONNACK told of the broker (MQTT has no server name or version: the restrictions, at MQTT 5). */
    final Map<String, String> serverInfo;
    /** The highest QoS the broker accepts (MQTT 5 CONNACK Maximum QoS; 2 at MQTT 3.1.1, which cannot say). */
    final int maximumQos;

    /** {@code --opt reconnect=true}: the client's own reconnect, bounded and counted; null without the option. */
    final HiveMqReconnect reconnect;

    private final java.util.concurrent.atomic.AtomicReference<String> lostWhy;

    private HiveMqConnection(MqttSettings settings, Mqtt5AsyncClient v5, Mqtt3AsyncClient v3,
                           Map<String, String> serverInfo, int maximumQos,
                           java.util.concurrent.atomic.AtomicReference<String> lostWhy, HiveMqReconnect reconnect) {
        this.lostWhy = lostWhy;
        this.reconnect = reconnect;
        this.settings = settings;
        this.v5 = v5;
        this.v3 = v3;
        this.serverInfo = Map.copyOf(serverInfo);
        this.maximumQos = maximumQos;
    }

    /**
     * Connects and waits for the CONNACK. The socket binds to the context's next source address when it has
     * any ({@code transportConfig().localAddress}); the client runs on its own process-wide event loops.
     *
     * @param onLost hears the one-line reason when the connection ends (also when msgscope closes it), or null; with
     *               {@code --opt reconnect=true} only when it is given up
     */
    static HiveMqConnection open(MqttSettings s, String role, Consumer<String> onLost, ClientContext context)
            throws IOException {
        java.util.concurrent.atomic.AtomicReference<String> lostWhy = new java.util.concurrent.atomic.AtomicReference<>();
        var transport = MqttClient.builder()
                .identifier("msgscope-" + role + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()))
                .transportConfig().serverHost(s.host()).serverPort(s.port())
                .socketConnectTimeout(MqttSettings.CONNECT_TIMEOUT_S, TimeUnit.SECONDS)
                .mqttConnectTimeout(MqttSettings.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
        java.net.InetAddress source = context.nextSourceAddress();
        if (source != null) {
            transport = transport.localAddress(source);
        }
        if (s.tls()) {
            transport = tls(transport.sslConfig(), s.tlsSettings()).applySslConfig();
        }
        MqttClientBuilder b = transport.applyTransportConfig();
        HiveMqReconnect reconnect = s.reconnect() ? new HiveMqReconnect(s, onLost) : null;
        if (reconnect != null) {
            b = reconnect.apply(b);
        } else {
            b = b.addDisconnectedListener(ctx -> {
                lostWhy.compareAndSet(null, ctx.getSource() + " closed it: " + MqttSettings.oneLine(ctx.getCause()));
                if (onLost != null) {
                    onLost.accept("connection to MQTT broker at " + s.address() + " lost (" + lostWhy.get() + ")");
                }
            });
        }
        byte[] pass = s.password() == null ? null : s.password().getBytes(StandardCharsets.UTF_8);
        if (s.version() == 5) {
            var b5 = b.useMqttVersion5();
            if (s.username() != null) {
                b5 = b5.simpleAuth().username(s.username()).password(pass == null ? new byte[0] : pass)
                        .applySimpleAuth();
            }
            Mqtt5AsyncClient c = b5.buildAsync();
            if (reconnect != null) {
                reconnect.disconnectWith(c::disconnect);
            }
            Mqtt5ConnAck ack = awaitConnect(c.connectWith().cleanStart(s.cleanSession())
                    .sessionExpiryInterval(s.cleanSession() ? 0 : MqttSettings.SESSION_EXPIRY_S)
                    .keepAlive(s.keepAlive()).send(), s);
            Mqtt5ConnAckRestrictions r = ack.getRestrictions();
            Map<String, String> info = info(s, "MQTT 5");
            info.put("maximum_qos", "" + r.getMaximumQos().getCode());
            info.put("receive_maximum", "" + r.getReceiveMaximum());
            info.put("maximum_packet_size", "" + r.getMaximumPacketSize());
            info.put("retain_available", "" + r.isRetainAvailable());
            info.put("wildcard_subscription_available", "" + r.isWildcardSubscriptionAvailable());
            info.put("shared_subscription_available", "" + r.isSharedSubscriptionAvailable());
            ack.getServerKeepAlive().ifPresent(k -> info.put("server_keep_alive", "" + k));
            return new HiveMqConnection(s, c, null, info, r.getMaximumQos().getCode(), lostWhy, reconnect);
        }
        var b3 = b.useMqttVersion3();
        if (s.username() != null) {
            var auth = b3.simpleAuth().username(s.username());
            b3 = pass == null ? auth.applySimpleAuth() : auth.password(pass).applySimpleAuth();
        }
        Mqtt3AsyncClient c = b3.buildAsync();
        if (reconnect != null) {
            reconnect.disconnectWith(c::disconnect);
        }
        awaitConnect(connect3(c, s, s.cleanSession()), s);
        return new HiveMqConnection(s, null, c, info(s, "MQTT 3.1.1"), 2, lostWhy, reconnect);
    }

    /** Sends an MQTT 3.1.1 CONNECT on {@code clean} session with {@code s}'s keep-alive (the client adds the credentials). */
    private static CompletableFuture<com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAck> connect3(
            Mqtt3AsyncClient c, MqttSettings s, boolean clean) {
        return c.connectWith().cleanSession(clean).keepAlive(s.keepAlive()).send();
    }

    private static Map<String, String> info(MqttSettings s, String protocol) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("broker", "mqtt " + s.address());
        m.put("protocol", protocol);
        m.put("engine", "hivemq");
        if (s.tls()) {
            m.put("tls", s.tlsSettings().verify() ? "verified" : "not verified (tls_verify=false)");
        }
        return m;
    }

    /**
     * The same TLS options as the netty engine ({@link io.msgscope.netty.TlsClient}): {@code tls_ca} trusted
     * instead of the JVM's trust store, {@code tls_verify=false} any certificate and host name. Otherwise the
     * client checks the certificate and that it names the host dialled.
     */
    private static <B extends com.hivemq.client.mqtt.MqttClientSslConfigBuilderBase<B>> B tls(
            B ssl, io.msgscope.netty.TlsClient.Settings t) {
        if (!t.verify()) {
            return ssl.trustManagerFactory(io.netty.handler.ssl.util.InsecureTrustManagerFactory.INSTANCE)
                    .hostnameVerifier((host, session) -> true);
        }
        if (t.caFile() == null) {
            return ssl;
        }
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(java.nio.file.Path.of(t.caFile()))) {
            java.security.KeyStore ks = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
            ks.load(null, null);
            int n = 0;
            for (java.security.cert.Certificate c
                    : java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                ks.setCertificateEntry("ca-" + n++, c);
            }
            if (n == 0) {
                throw new java.security.cert.CertificateException("no certificate in it");
            }
            javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                    javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            return ssl.trustManagerFactory(tmf);
        } catch (java.io.IOException | java.security.GeneralSecurityException e) {
            throw new io.msgscope.core.SpecException("--opt tls_ca", "is not a usable PEM certificate file ('"
                    + t.caFile() + "'): " + MqttSettings.oneLine(e));
        }
    }

    /**
     * Waits for the CONNACK. A broker's refusal is a {@link Fault.Kind#REFUSED} naming the reason code
     * (MQTT 5) or return code (3.1.1); anything else (nothing listening, a timeout, the connection closed before
     * the CONNACK: {@link MqttSettings#noConnackHint}) is {@link Fault.Kind#CONNECT_FAILED}.
     */
    private static <T> T awaitConnect(CompletableFuture<T> f, MqttSettings s) throws Fault {
        try {
            return await(f, s, "connect");
        } catch (IOException e) {
            Throwable c = e.getCause();
            if (c instanceof Mqtt5ConnAckException x) {
                Mqtt5ConnAck a = x.getMqttMessage();
                throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " refused the connection: CONNACK "
                        + "reason code " + code(a.getReasonCode())
                        + a.getReasonString().map(r -> " (" + r + ")").orElse(""), e);
            }
            if (c instanceof Mqtt3ConnAckException x) {
                Mqtt3ConnAck a = x.getMqttMessage();
                throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " refused the connection: CONNACK "
                        + "return code " + Fault.reasonCode(a.getReturnCode().getCode(), a.getReturnCode()), e);
            }
            if (MqttSettings.hasSsl(c) && !e.getMessage().contains("TLS")) {
                throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to MQTT broker at " + s.address()
                        + ": TLS handshake failed: " + MqttSettings.oneLine(c), e);
            }
            // closed before any CONNACK: at MQTT 5 the mark of a broker without it (the hint says so)
            String hint = c instanceof com.hivemq.client.mqtt.exceptions.ConnectionClosedException ? s.noConnackHint() : "";
            throw new Fault(Fault.Kind.CONNECT_FAILED, e.getMessage() + hint, e);
        }
    }

    /** {@code 0x87 NOT_AUTHORIZED}. */
    static String code(Mqtt5ReasonCode c) {
        return Fault.reasonCode(c.getCode(), c);
    }

    /** Waits for a set-up step; failures become one line naming the broker's address. */
    static <T> T await(CompletableFuture<T> f, MqttSettings s, String what) throws IOException {
        try {
            return f.get(2 * MqttSettings.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause() == null ? e : e.getCause();
            throw new IOException("cannot " + what + " to MQTT broker at " + s.address() + ": " + MqttSettings.oneLine(c), c);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new IOException("cannot " + what + " to MQTT broker at " + s.address() + ": no answer within "
                    + 2 * MqttSettings.CONNECT_TIMEOUT_S + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting to " + what + " to " + s.address());
        }
    }

    /**
     * Why the connection ended (who closed it and the cause), or null while it lives; with {@code --opt
     * reconnect=true} null also while it is being got back.
     */
    String lostReason() {
        if (reconnect != null) {
            Fault f = reconnect.lostReason();
            return f == null ? null : f.getMessage();
        }
        String w = lostWhy.get();
        return w == null ? null : "connection to MQTT broker at " + settings.address() + " lost (" + w + ")";
    }

    /**
     * Disconnects. A persistent session ({@code clean_session=false}) ended cleanly is cleared on the broker, so the
     * run leaves nothing there: at MQTT 5 the DISCONNECT sets its Session Expiry Interval to 0; MQTT 3.1.1 has none,
     * so the client connects once more on a clean session (which discards the stored one) and disconnects.
     */
    void close() {
        if (reconnect != null) {
            reconnect.closing(); // a connection being got back is let go; it keeps its session (failureNote)
        }
        boolean clear = !settings.cleanSession() && lostWhy.get() == null && (reconnect == null || !reconnect.down());
        try {
            CompletableFuture<Void> f = v5 != null ? clear ? v5.disconnectWith().sessionExpiryInterval(0).send()
                    : v5.disconnect() : v3.disconnect();
            f.get(MqttSettings.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (Exception e) {
            return; // already gone, or the broker did not answer: closing anyway
        }
        if (clear && v3 != null) {
            try {
                connect3(v3, settings, true).get(MqttSettings.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
                v3.disconnect().get(MqttSettings.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
            } catch (Exception e) {
                System.err.println("mqtt: could not clear the persistent session of client '"
                        + v3.getConfig().getClientIdentifier().map(Object::toString).orElse("?") + "' at "
                        + settings.address() + ": " + MqttSettings.oneLine(e));
            }
        }
    }
}
