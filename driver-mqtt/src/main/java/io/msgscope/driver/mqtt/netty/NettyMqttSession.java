package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.netty.NettyIo;
import io.msgscope.driver.mqtt.MqttSettings;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubscriptionOption;
import io.netty.handler.ssl.SslHandler;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One MQTT 5 or 3.1.1 connection of the lean engine ({@code --opt engine=netty}, the default), shared by
 * {@link NettyMqttPublisher} and {@link NettyMqttSubscriber}: a Netty channel on the agent's shared event
 * loops ({@link NettyIo#of}, issue 13: thousands of connections on a thread or two), bound to the context's
 * next source address, TLS through {@link TlsClient} for {@code ssl://} and {@code mqtts://}.
 *
 * <p><b>Two ways of reading packets, chosen by how often they come.</b> Everything off the per-message path
 * (CONNECT, CONNACK, SUBSCRIBE, SUBACK, PINGREQ/PINGRESP, DISCONNECT, AUTH) goes through Netty's own MQTT
 * codec ({@link MqttDecoder}, {@link MqttEncoder}), which speaks both versions, properties and reason codes
 * included. The per-message packets (PUBLISH, PUBACK, PUBREC, PUBREL, PUBCOMP) are framed by hand: stop 11
 * measured Netty's codec at ~287 B allocated per message there (a message object, its headers, a retained
 * payload slice, a topic string), against nothing here. The {@link MqttFramer} cuts every packet out of the read
 * buffer in place; per-message packets go straight to the owner's {@link Packets} as (type, flags, offset,
 * length) of that buffer, and the rest go on, each as one whole packet, to the codec behind it.
 *
 * <p>Limits and faults: every incoming packet is checked against the size this client accepts (announced as
 * its Maximum Packet Size at MQTT 5) and against the fixed-header rules; a malformed or oversized packet closes
 * the connection with a one-line reason naming the broker and what it sent (at MQTT 5 after a DISCONNECT with
 * reason code 0x81 or 0x95). A CONNACK refusal is a {@link Fault.Kind#REFUSED} naming the return or reason
 * code; no answer, no listener or a failed TLS handshake is {@link Fault.Kind#CONNECT_FAILED}; a DISCONNECT
 * from the broker ends the connection with its reason code in the lost reason. No reconnect here: with
 * {@code --opt reconnect=true} the owner dials a {@link #successor} ({@link MqttReconnect}).
 *
 * <p>The pipeline's handlers are their own classes: {@link MqttKeepAlive}, {@link MqttFramer} (and the
 * acknowledgements of a read) and {@link MqttControl}; the CONNECT and CONNACK are {@link MqttHandshake}'s, what
 * the CONNACK announced is kept in {@link MqttBrokerLimits}, and the hand-read packet fields are {@link MqttWire}'s.
 * This class holds the connection's state: its channel, the set-up futures and why it ended.
 */
final class NettyMqttSession {
    /** The largest packet MQTT can frame: 4 bytes of remaining length (268,435,455) and its fixed header. */
    static final int MAX_PACKET = 268_435_455 + 5;
    /** Room for topic, packet id, properties and fixed header above the payload in what a client accepts. */
    static final int PACKET_ROOM = 128 * 1024;
    /** The Session Expiry Interval asked at MQTT 5 with {@code clean_session=false}. */
    static final int SESSION_EXPIRY_S = io.msgscope.driver.mqtt.MqttSettings.SESSION_EXPIRY_S;

    static final String BROKER_CLOSED = "the broker closed it";

    /**
     * The engine's buffers come from Netty's pooled allocator, not 4.2's default adaptive one: the adaptive
     * allocator slices a new {@code DirectByteBuffer} for every socket read and write and for every view of a
     * read buffer (~64 B each, per message at low rates; seen with JFR), while the pooled one keeps those views
     * cached per chunk, so the per-message path allocates nothing.
     */
    static final ByteBufAllocator ALLOCATOR = PooledByteBufAllocator.DEFAULT;

    /** The owner's side of the connection, called on the event loop. */
    interface Packets {
        /**
         * One whole PUBLISH, PUBACK, PUBREC, PUBREL or PUBCOMP whose fixed-header flags are valid: its body
         * (after the remaining length) is {@code in[start, start + length)}, valid during the call only.
         */
        void onPacket(ChannelHandlerContext ctx, int type, int flags, ByteBuf in, int start, int length);

        /** The connection ended ({@link #lostReason} is set). */
        default void onLost() {
        }
    }

    final MqttSettings settings;
    final int version;
    /** The largest packet this client accepts (MQTT 5: announced as its Maximum Packet Size). */
    final int maxIncoming;
    final String clientId;
    final Packets packets;
    private final MqttKeepAlive keepAlive;
    private final MqttFramer framer;
    private final MqttBrokerLimits limits;
    private final CompletableFuture<MqttConnAckMessage> connack = new CompletableFuture<>();
    private volatile CompletableFuture<MqttSubAckMessage> suback;
    private volatile Channel channel;
    private volatile ClientContext context;
    private volatile String lostWhy;
    private volatile boolean closing;
    private volatile boolean socketFailed; // a reset or a broken pipe before any other end was recorded
    private volatile int disconnectCode = -1;

    /**
     * A session not connected yet; {@link #connect} dials the broker, {@link #attach} takes a given channel
     * (tests: an {@code EmbeddedChannel}).
     *
     * @param maxIncoming the largest packet accepted from the broker, at most {@link #MAX_PACKET}
     */
    NettyMqttSession(MqttSettings s, Packets packets, String role, int maxIncoming) {
        this(s, packets, "msgscope-" + role + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()),
                maxIncoming, false);
    }

    private NettyMqttSession(MqttSettings s, Packets packets, String clientId, int maxIncoming, boolean unused) {
        this.settings = s;
        this.version = s.version();
        this.packets = packets;
        this.maxIncoming = Math.min(MAX_PACKET, maxIncoming);
        this.keepAlive = new MqttKeepAlive(s.keepAlive());
        this.framer = new MqttFramer(this, packets, this.maxIncoming);
        this.limits = new MqttBrokerLimits(s);
        this.clientId = clientId;
    }

    /**
     * A new session object for the same client id, owner and limits, not connected yet: the one a reconnect dials
     * ({@code --opt reconnect=true}, {@link MqttReconnect}); its CONNECT resumes the broker's persistent session.
     */
    NettyMqttSession successor() {
        return new NettyMqttSession(settings, packets, clientId, maxIncoming, false);
    }

    /** A new session object for the same client id on a clean session, reading nothing: {@link MqttReconnect#clear}. */
    NettyMqttSession onCleanSession() {
        return new NettyMqttSession(settings.onCleanSession(), (ctx, type, flags, in, start, length) -> { }, clientId,
                maxIncoming(0), false);
    }

    /** Whether the CONNACK said the broker still had this client's session (false before one came). */
    boolean sessionPresent() {
        MqttConnAckMessage ack = connack.getNow(null);
        return ack != null && ack.variableHeader().isSessionPresent();
    }

    /** The largest packet to accept when the publishes are {@code messageSize} bytes: that, plus topic and header room. */
    static int maxIncoming(int messageSize) {
        return (int) Math.min(MAX_PACKET, (long) Math.max(0, messageSize) + PACKET_ROOM);
    }

    Channel channel() {
        return channel;
    }

    /**
     * Connects on the context's event loops, sends CONNECT and waits for the CONNACK; a refusal or any failure
     * closes the channel and throws a {@link Fault} naming the broker.
     */
    void connect(ClientContext context) throws IOException {
        final SslHandler tls = MqttHandshake.tls(settings, context);
        Bootstrap b = NettyIo.of(context).bootstrap((int) MqttSettings.CONNECT_TIMEOUT_S * 1000)
                .option(ChannelOption.ALLOCATOR, ALLOCATOR)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel c) {
                        if (tls != null) {
                            c.pipeline().addLast("tls", tls);
                        }
                        install(c.pipeline());
                    }
                });
        this.context = context;
        ChannelFuture cf = NettyIo.connect(b, settings.host(), settings.port(), context);
        long waitS = 2 * MqttSettings.CONNECT_TIMEOUT_S;
        if (!cf.awaitUninterruptibly(waitS, TimeUnit.SECONDS) || !cf.isSuccess()) {
            String why = cf.cause() == null ? "no answer within " + waitS + " s" : MqttSettings.oneLine(cf.cause());
            cf.channel().close();
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to MQTT broker at " + settings.address() + ": "
                    + why, cf.cause());
        }
        channel = cf.channel();
        try {
            sendConnect();
            await(connack, "connect", "CONNACK");
            checkConnack();
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Takes an unconnected channel (tests): installs the handlers; {@link #sendConnect} next. */
    void attach(Channel c) {
        channel = c;
        install(c.pipeline());
    }

    /**
     * The pipeline after TLS: Netty's MQTT encoder (CONNECT, SUBSCRIBE, PINGREQ, DISCONNECT; the hand-framed
     * packets pass it as bytes), keep-alive ({@link MqttKeepAlive}), the {@link MqttFramer}, Netty's MQTT decoder for the
     * packets the framer passes on, and the {@link MqttControl} handler.
     */
    private void install(ChannelPipeline p) {
        p.addLast("encoder", MqttEncoder.INSTANCE);
        p.addLast("keepalive", keepAlive); // after the encoder: its PINGREQ is encoded; every write passes it
        p.addLast("framer", framer);
        p.addLast("decoder", new MqttDecoder(maxIncoming));
        p.addLast("control", new MqttControl(this, framer));
    }

    /** Sends CONNECT ({@link MqttHandshake#connect}); the CONNACK completes {@link #connack()}. */
    void sendConnect() {
        channel.writeAndFlush(MqttHandshake.connect(settings, clientId, maxIncoming));
    }

    /** The CONNACK future: done once the broker answered (or the connection failed first). */
    CompletableFuture<MqttConnAckMessage> connack() {
        return connack;
    }

    /** Reads the CONNACK {@link #connack()} completed with: see {@link MqttHandshake#check}. */
    void checkConnack() throws Fault {
        MqttHandshake.check(connack, settings);
    }

    /** Event loop: the CONNACK's properties into the limits and the results' broker info (MQTT 5). */
    void readConnack(MqttConnAckMessage ack) {
        limits.read(ack, version, keepAlive);
    }

    /** What the broker announced in its CONNACK: valid once {@link #connack()} completed. */
    MqttBrokerLimits limits() {
        return limits;
    }

    /**
     * Sends SUBSCRIBE (packet id 1, one filter at {@code qos}; at MQTT 5 no-local off, as shared subscriptions
     * require) through Netty's codec; the future completes with the broker's SUBACK.
     */
    CompletableFuture<MqttSubAckMessage> subscribe(String filter, int qos) {
        CompletableFuture<MqttSubAckMessage> f = new CompletableFuture<>();
        suback = f;
        if (lostWhy != null) {
            f.completeExceptionally(new IOException(lostWhy));
        }
        channel.writeAndFlush(MqttMessageBuilders.subscribe().messageId(1)
                .addSubscription(filter, new MqttSubscriptionOption(MqttQoS.valueOf(qos), false, false,
                        MqttSubscriptionOption.RetainedHandlingPolicy.SEND_AT_SUBSCRIBE)).build());
        return f;
    }

    /** Event loop: queues a 4-byte acknowledgement of a packet id, see {@link MqttFramer#acknowledge}. */
    void acknowledge(ChannelHandlerContext ctx, int type, int id) {
        framer.acknowledge(ctx, type, id);
    }

    /** Waits for a set-up answer from the event loop; failures are CONNECT_FAILED faults naming the address. */
    <T> T await(CompletableFuture<T> f, String what, String packet) throws IOException {
        long waitS = 2 * MqttSettings.CONNECT_TIMEOUT_S;
        try {
            return f.get(waitS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot " + what + " to MQTT broker at " + settings.address()
                    + ": " + MqttSettings.oneLine(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot " + what + " to MQTT broker at " + settings.address()
                    + ": no " + packet + " within " + waitS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting to " + what + " to " + settings.address());
        }
    }

    /**
     * True when the broker ended the connection (MQTT 5 DISCONNECT) with a reason code that refuses what the
     * client sent: 0x87 Not authorized, 0x90 Topic Name invalid, 0x95 Packet too large, 0x97 Quota exceeded,
     * 0x9A Retain not supported, 0x9B QoS not supported.
     */
    boolean refusedByDisconnect() {
        int c = disconnectCode;
        return c == 0x87 || c == 0x90 || c == 0x95 || c == 0x97 || c == 0x9A || c == 0x9B;
    }

    /**
     * True when the broker closed the connection without a word: a plain close, or the socket failing first (a reset
     * is the broker closing too, seen when the box is loaded), as the channel saw it, never read from words.
     */
    boolean brokerClosed() {
        return socketFailed || BROKER_CLOSED.equals(lostWhy);
    }

    /** Event loop: the socket failed ({@code why}); the broker closing if nothing ended it before and not our close. */
    String socketFailed(String why) {
        if (lostWhy == null && !closing) {
            socketFailed = true;
        }
        return lost(why);
    }

    /** Why the connection ended, or null while it lives. */
    String lostWhy() {
        return lostWhy;
    }

    /** The same as a one-line reason naming the broker, or null while the connection lives. */
    String lostReason() {
        String w = lostWhy;
        return w == null ? null : "connection to MQTT broker at " + settings.address() + " lost (" + w + ")";
    }

    /** Records why the connection ended unless a reason is recorded already; returns the one recorded. */
    String lost(String why) {
        if (lostWhy == null) {
            lostWhy = why;
        }
        return lostWhy;
    }

    /** Event loop: the broker sent DISCONNECT with {@code code}; {@code why} says so. */
    void disconnectedBy(int code, String why) {
        disconnectCode = code;
        lost(why);
    }

    /** Whether {@link #close} began: the end of the connection is ours. */
    boolean closing() {
        return closing;
    }

    /** The SUBACK future of the last {@link #subscribe}, or null before one. */
    CompletableFuture<MqttSubAckMessage> suback() {
        return suback;
    }

    /**
     * Event loop: the broker broke the protocol. The connection is closed with this reason (at MQTT 5 after a
     * DISCONNECT with {@code reasonCode}); the owner hears of it through {@link Packets#onLost}.
     */
    void protocolError(byte reasonCode, String why) {
        lost("the broker " + why);
        Channel c = channel;
        if (version == 5 && c.isActive()) {
            c.writeAndFlush(MqttMessageBuilders.disconnect().reasonCode(reasonCode).build())
                    .addListener(ChannelFutureListener.CLOSE);
        } else {
            c.close();
        }
    }

    /** Event loop: as {@link #protocolError(byte, String)} for a packet that breaks the rules (0x81 Malformed Packet). */
    void malformed(String why) {
        protocolError(MqttWire.MALFORMED_PACKET, why);
    }

    /** Event loop: as {@link #protocolError(byte, String)} for a packet that is well formed but wrong here (0x82). */
    void unexpected(String why) {
        protocolError(MqttWire.PROTOCOL_ERROR, why);
    }

    /** What the results record of the broker: address, protocol, engine, TLS and what the CONNACK announced. */
    Map<String, String> serverInfo() {
        return limits.info();
    }

    /**
     * Sends DISCONNECT (Normal Disconnection) and closes the channel (the event loops are the context's); a persistent
     * session ended cleanly is then cleared on the broker ({@link MqttReconnect#clear}).
     */
    void close() {
        closing = true;
        Channel c = channel;
        if (c == null) {
            return;
        }
        boolean cleanEnd = c.isActive() && lostWhy == null;
        if (c.isActive()) {
            c.writeAndFlush(MqttMessage.DISCONNECT).awaitUninterruptibly(MqttSettings.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
        }
        c.close().awaitUninterruptibly(MqttSettings.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
        if (cleanEnd && !settings.cleanSession() && context != null) {
            MqttReconnect.clear(this, context);
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "MQTT %s session %s to %s", version == 5 ? "5" : "3.1.1", clientId,
                settings.address());
    }
}
