package io.msgscope.driver.mqtt;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.netty.NettyIo;
import io.msgscope.netty.TlsClient;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttReasonCodes;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubscriptionOption;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
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
 * payload slice, a topic string), against nothing here. The {@link Framer} cuts every packet out of the read
 * buffer in place; per-message packets go straight to the owner's {@link Packets} as (type, flags, offset,
 * length) of that buffer, and the rest go on, each as one whole packet, to the codec behind it.
 *
 * <p>Limits and faults: every incoming packet is checked against the size this client accepts (announced as
 * its Maximum Packet Size at MQTT 5) and against the fixed-header rules; a malformed or oversized packet closes
 * the connection with a one-line reason naming the broker and what it sent (at MQTT 5 after a DISCONNECT with
 * reason code 0x81 or 0x95). A CONNACK refusal is a {@link Fault.Kind#REFUSED} naming the return or reason
 * code; no answer, no listener or a failed TLS handshake is {@link Fault.Kind#CONNECT_FAILED}; a DISCONNECT
 * from the broker ends the connection with its reason code in the lost reason. No reconnect.
 */
final class NettyMqttSession {
    static final int CONNECT = 1;
    static final int CONNACK = 2;
    static final int PUBLISH = 3;
    static final int PUBACK = 4;
    static final int PUBREC = 5;
    static final int PUBREL = 6;
    static final int PUBCOMP = 7;
    static final int SUBSCRIBE = 8;
    static final int SUBACK = 9;
    static final int PINGREQ = 12;
    static final int PINGRESP = 13;
    static final int DISCONNECT = 14;
    static final int AUTH = 15;

    /** The largest packet MQTT can frame: 4 bytes of remaining length (268,435,455) and its fixed header. */
    static final int MAX_PACKET = 268_435_455 + 5;
    /** Room for topic, packet id, properties and fixed header above the payload in what a client accepts. */
    static final int PACKET_ROOM = 128 * 1024;
    /** The Session Expiry Interval asked at MQTT 5 with {@code clean_session=false} (as the HiveMQ engine). */
    static final int SESSION_EXPIRY_S = 3600;

    private static final String BROKER_CLOSED = "the broker closed it";

    /**
     * The engine's buffers come from Netty's pooled allocator, not 4.2's default adaptive one: the adaptive
     * allocator slices a new {@code DirectByteBuffer} for every socket read and write and for every view of a
     * read buffer (~64 B each, per message at low rates; seen with JFR), while the pooled one keeps those views
     * cached per chunk, so the per-message path allocates nothing.
     */
    static final io.netty.buffer.ByteBufAllocator ALLOCATOR = io.netty.buffer.PooledByteBufAllocator.DEFAULT;

    /** MQTT 5 DISCONNECT reason codes the client sends on a broken packet. */
    private static final byte MALFORMED_PACKET = (byte) 0x81;
    private static final byte PROTOCOL_ERROR = (byte) 0x82;
    private static final byte PACKET_TOO_LARGE = (byte) 0x95;

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
    private final Packets packets;
    private final CompletableFuture<MqttConnAckMessage> connack = new CompletableFuture<>();
    private volatile CompletableFuture<MqttSubAckMessage> suback;
    private volatile Channel channel;
    private volatile String lostWhy;
    private volatile boolean closing;
    private volatile int disconnectCode = -1;
    private ByteBuf acks; // event loop only: the acknowledgements queued during one read
    private int decoded; // event loop only: messages Netty's decoder gave the Control handler

    // What the CONNACK announced (MQTT 5; the defaults otherwise), written on the event loop before the
    // CONNACK future completes, read by the opener after it.
    private int receiveMaximum = 65_535;
    private int maximumQos = 2;
    private long maximumPacketSize = MAX_PACKET;
    private boolean sharedSubscriptionAvailable = true;
    private String assignedClientId;
    private final Map<String, String> info = new LinkedHashMap<>();

    /**
     * A session not connected yet; {@link #connect} dials the broker, {@link #attach} takes a given channel
     * (tests: an {@code EmbeddedChannel}).
     *
     * @param maxIncoming the largest packet accepted from the broker, at most {@link #MAX_PACKET}
     */
    NettyMqttSession(MqttSettings s, Packets packets, String role, int maxIncoming) {
        this.settings = s;
        this.version = s.version();
        this.packets = packets;
        this.keepAlive = new KeepAlive();
        this.maxIncoming = Math.min(MAX_PACKET, maxIncoming);
        this.clientId = "msgscope-" + role + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        info.put("broker", "mqtt " + s.address());
        info.put("protocol", version == 5 ? "MQTT 5" : "MQTT 3.1.1");
        info.put("engine", "netty");
        if (s.tls()) {
            info.put("tls", s.tlsSettings().verify() ? "verified" : "not verified (tls_verify=false)");
        }
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
        final SslHandler tls;
        if (settings.tls()) {
            // made here, not on the event loop, so that an unusable tls_ca is the opener's SpecException
            try {
                tls = TlsClient.handler(context, settings.tlsSettings(), ByteBufAllocator.DEFAULT, settings.host(),
                        settings.port());
            } catch (IllegalArgumentException e) { // SslContextBuilder.trustManager(File) on a file without certificates
                throw new io.msgscope.core.SpecException("--opt tls_ca", "is not a usable PEM certificate file ('"
                        + settings.tlsSettings().caFile() + "'): " + MqttConnection.oneLine(e));
            }
        } else {
            tls = null;
        }
        Bootstrap b = NettyIo.of(context).bootstrap((int) MqttConnection.CONNECT_TIMEOUT_S * 1000)
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
        ChannelFuture cf = NettyIo.connect(b, settings.host(), settings.port(), context);
        long waitS = 2 * MqttConnection.CONNECT_TIMEOUT_S;
        if (!cf.awaitUninterruptibly(waitS, TimeUnit.SECONDS) || !cf.isSuccess()) {
            String why = cf.cause() == null ? "no answer within " + waitS + " s" : MqttConnection.oneLine(cf.cause());
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
     * packets pass it as bytes), keep-alive ({@link KeepAlive}), the {@link Framer}, Netty's MQTT decoder for the packets the framer
     * passes on, and the {@link Control} handler.
     */
    private void install(ChannelPipeline p) {
        p.addLast("encoder", MqttEncoder.INSTANCE);
        p.addLast("keepalive", keepAlive); // after the encoder: its PINGREQ is encoded; every write passes it
        p.addLast("framer", new Framer());
        p.addLast("decoder", new MqttDecoder(maxIncoming));
        p.addLast("control", new Control());
    }

    /**
     * CONNECT through Netty's codec: protocol level 5 or 4, client id, clean session/start, keep-alive,
     * credentials; at MQTT 5 the properties Receive Maximum (65535: the subscriber acknowledges at once, so the
     * broker may keep as many in flight as it likes), Maximum Packet Size ({@link #maxIncoming}) and, for a
     * session kept across connections ({@code clean_session=false}), Session Expiry Interval (one hour).
     */
    void sendConnect() {
        MqttProperties props = MqttProperties.NO_PROPERTIES;
        if (version == 5) {
            props = new MqttProperties();
            props.add(new MqttProperties.IntegerProperty(MqttProperties.RECEIVE_MAXIMUM, 65_535));
            props.add(new MqttProperties.IntegerProperty(MqttProperties.MAXIMUM_PACKET_SIZE, maxIncoming));
            if (!settings.cleanSession()) {
                props.add(new MqttProperties.IntegerProperty(MqttProperties.SESSION_EXPIRY_INTERVAL, SESSION_EXPIRY_S));
            }
        }
        MqttMessageBuilders.ConnectBuilder c = MqttMessageBuilders.connect()
                .protocolVersion(version == 5 ? MqttVersion.MQTT_5 : MqttVersion.MQTT_3_1_1)
                .clientId(clientId).cleanSession(settings.cleanSession()).keepAlive(settings.keepAlive())
                .properties(props);
        if (settings.username() != null) {
            c.hasUser(true).username(settings.username());
        }
        if (settings.password() != null) {
            c.hasPassword(true).password(settings.password().getBytes(StandardCharsets.UTF_8));
        }
        channel.writeAndFlush(c.build());
    }

    /** The CONNACK future: done once the broker answered (or the connection failed first). */
    CompletableFuture<MqttConnAckMessage> connack() {
        return connack;
    }

    /**
     * Reads the CONNACK that {@link #connack()} completed with: a non-zero return/reason code is a
     * {@link Fault.Kind#REFUSED} naming it (and the reason string, MQTT 5); a connection that failed first is
     * {@link Fault.Kind#CONNECT_FAILED}.
     */
    void checkConnack() throws Fault {
        MqttConnAckMessage ack;
        try {
            ack = connack.getNow(null);
        } catch (RuntimeException e) {
            Throwable c = e.getCause() == null ? e : e.getCause();
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to MQTT broker at " + settings.address() + ": "
                    + MqttConnection.oneLine(c), c);
        }
        if (ack == null) {
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to MQTT broker at " + settings.address()
                    + ": no CONNACK yet");
        }
        MqttConnectReturnCode rc = ack.variableHeader().connectReturnCode();
        if (rc != MqttConnectReturnCode.CONNECTION_ACCEPTED) {
            String name = rc.name().replaceFirst("^CONNECTION_REFUSED_", "").replaceFirst("_5$", "");
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + settings.address() + " refused the connection: "
                    + "CONNACK " + (version == 5 ? "reason" : "return") + " code "
                    + Fault.reasonCode(rc.byteValue() & 0xff, name) + reasonString(ack.variableHeader().properties()));
        }
    }

    /** Event loop: the CONNACK's properties into the limits and the results' broker info (MQTT 5). */
    private void readConnack(ChannelHandlerContext ctx, MqttConnAckMessage ack) {
        MqttProperties p = ack.variableHeader().properties();
        if (version == 5 && p != null) {
            receiveMaximum = intProperty(p, MqttProperties.RECEIVE_MAXIMUM, 65_535);
            maximumQos = intProperty(p, MqttProperties.MAXIMUM_QOS, 2);
            int mps = intProperty(p, MqttProperties.MAXIMUM_PACKET_SIZE, 0); // above 2^31-1 reads negative: no limit
            maximumPacketSize = mps <= 0 ? MAX_PACKET : mps;
            sharedSubscriptionAvailable = intProperty(p, MqttProperties.SHARED_SUBSCRIPTION_AVAILABLE, 1) != 0;
            MqttProperties.MqttProperty<?> assigned = p.getProperty(MqttProperties.ASSIGNED_CLIENT_IDENTIFIER);
            assignedClientId = assigned == null ? null : String.valueOf(assigned.value());
            info.put("maximum_qos", "" + maximumQos);
            info.put("receive_maximum", "" + receiveMaximum);
            info.put("maximum_packet_size", "" + maximumPacketSize);
            info.put("retain_available", "" + (intProperty(p, MqttProperties.RETAIN_AVAILABLE, 1) != 0));
            info.put("wildcard_subscription_available",
                    "" + (intProperty(p, MqttProperties.WILDCARD_SUBSCRIPTION_AVAILABLE, 1) != 0));
            info.put("shared_subscription_available", "" + sharedSubscriptionAvailable);
            int serverKeepAlive = intProperty(p, MqttProperties.SERVER_KEEP_ALIVE, -1);
            if (serverKeepAlive >= 0) {
                info.put("server_keep_alive", "" + serverKeepAlive);
                keepAlive.change(serverKeepAlive);
            }
            if (assignedClientId != null) {
                info.put("assigned_client_identifier", assignedClientId);
            }
        }
    }

    /**
     * MQTT keep-alive (§3.1.2.10): a control packet at least every {@code keep_alive} seconds, PINGREQ when
     * nothing else went out. Not Netty's IdleStateHandler: to see writes complete it turns every void promise
     * into a real one with a listener, an allocation per write on the per-message path. Here every write only
     * sets a flag, and a check every half interval sends PINGREQ when the flag stayed down, so no two packets
     * are more than one interval apart.
     */
    private final class KeepAlive extends ChannelDuplexHandler implements Runnable {
        private long periodNanos = TimeUnit.SECONDS.toNanos(settings.keepAlive()) / 2;
        private boolean wrote; // event loop only
        private ChannelHandlerContext ctx;
        private io.netty.util.concurrent.ScheduledFuture<?> next;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            schedule();
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, io.netty.channel.ChannelPromise promise) {
            wrote = true;
            ctx.write(msg, promise);
        }

        /** Event loop: the broker's Server Keep Alive replaces ours (MQTT 5 §3.2.2.3.14); 0 turns it off. */
        void change(int seconds) {
            periodNanos = TimeUnit.SECONDS.toNanos(seconds) / 2;
            if (next != null) {
                next.cancel(false);
                next = null;
            }
            schedule();
        }

        private void schedule() {
            if (periodNanos > 0 && ctx != null) {
                next = ctx.executor().schedule(this, periodNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void run() {
            if (!ctx.channel().isOpen()) {
                return;
            }
            boolean ping = !wrote && ctx.channel().isActive();
            wrote = ping; // the PINGREQ counts as this half interval's write
            if (ping) {
                ctx.writeAndFlush(MqttMessage.PINGREQ, ctx.voidPromise());
            }
            schedule();
        }
    }

    private final KeepAlive keepAlive;

    private static int intProperty(MqttProperties p, int id, int dflt) {
        MqttProperties.MqttProperty<?> v = p.getProperty(id);
        return v != null && v.value() instanceof Integer i ? i : dflt;
    }

    /** {@code " (the reason string)"} when the properties carry one, else empty. */
    static String reasonString(MqttProperties p) {
        MqttProperties.MqttProperty<?> r = p == null ? null : p.getProperty(MqttProperties.REASON_STRING);
        return r == null ? "" : " (" + String.valueOf(r.value()).replace('\n', ' ') + ")";
    }

    /** The Receive Maximum the broker announced (65535 when it did not, and at MQTT 3.1.1). */
    int receiveMaximum() {
        return receiveMaximum;
    }

    /** The highest QoS the broker accepts (CONNACK Maximum QoS; 2 when it did not say, and at MQTT 3.1.1). */
    int maximumQos() {
        return maximumQos;
    }

    /** The largest packet the broker accepts (CONNACK Maximum Packet Size; MQTT's limit when it did not say). */
    long maximumPacketSize() {
        return maximumPacketSize;
    }

    boolean sharedSubscriptionAvailable() {
        return sharedSubscriptionAvailable;
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

    /** Whether {@code t} or a cause of it is a TLS failure. */
    static boolean hasSsl(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SSLException) {
                return true;
            }
        }
        return false;
    }

    /** The variable-length "remaining length" of a fixed header (§2.2.3). */
    static void writeLength(ByteBuf b, int len) {
        do {
            int digit = len & 0x7f;
            len >>>= 7;
            b.writeByte(len > 0 ? digit | 0x80 : digit);
        } while (len > 0);
    }

    /** Bytes {@link #writeLength} writes for {@code len}. */
    static int lengthBytes(int len) {
        return len < 128 ? 1 : len < 16_384 ? 2 : len < 2_097_152 ? 3 : 4;
    }

    /**
     * A Variable Byte Integer at {@code at} that must end before {@code end} (MQTT 5 §1.5.5), packed as
     * {@code value << 3 | bytes}, or -1 when it is malformed or runs past {@code end}. No allocation.
     */
    static long readVarInt(ByteBuf in, int at, int end) {
        int value = 0;
        for (int i = 0; i < 4; i++) {
            if (at + i >= end) {
                return -1;
            }
            int b = in.getUnsignedByte(at + i);
            value |= (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                return (long) value << 3 | (i + 1);
            }
        }
        return -1;
    }

    /**
     * The Reason String (0x1F) among the MQTT 5 properties in {@code in[at, end)}, as {@code " (text)"}, or
     * empty; only on the error path (it allocates). Properties this client cannot walk end the search.
     */
    static String reasonString(ByteBuf in, int at, int end) {
        int p = at;
        while (p < end) {
            int id = in.getUnsignedByte(p++);
            int skip;
            switch (id) {
                case 0x01, 0x17, 0x19, 0x24, 0x25, 0x28, 0x29, 0x2A -> skip = 1;
                case 0x13, 0x21, 0x22, 0x23 -> skip = 2;
                case 0x02, 0x11, 0x18, 0x27 -> skip = 4;
                case 0x0B -> {
                    long v = readVarInt(in, p, end);
                    if (v < 0) {
                        return "";
                    }
                    skip = (int) (v & 7);
                }
                case 0x03, 0x08, 0x09, 0x12, 0x15, 0x16, 0x1A, 0x1C, 0x1F -> {
                    if (p + 2 > end) {
                        return "";
                    }
                    int len = in.getUnsignedShort(p);
                    if (p + 2 + len > end) {
                        return "";
                    }
                    if (id == 0x1F) {
                        return " (" + in.toString(p + 2, len, StandardCharsets.UTF_8).replace('\n', ' ') + ")";
                    }
                    skip = 2 + len;
                }
                case 0x26 -> {
                    if (p + 2 > end || p + 4 + in.getUnsignedShort(p) > end) {
                        return "";
                    }
                    int k = in.getUnsignedShort(p);
                    skip = 4 + k + in.getUnsignedShort(p + 2 + k);
                }
                default -> {
                    return "";
                }
            }
            p += skip;
        }
        return "";
    }

    /**
     * The name of an MQTT 5 reason code in an acknowledgement of {@code type} (PUBACK, PUBREC, PUBREL,
     * PUBCOMP), e.g. {@code NOT_AUTHORIZED}; empty for a code MQTT 5 does not define there.
     */
    static String reasonName(int type, int code) {
        try {
            return switch (type) {
                case PUBACK -> MqttReasonCodes.PubAck.valueOf((byte) code).name();
                case PUBREC -> MqttReasonCodes.PubRec.valueOf((byte) code).name();
                case PUBREL -> MqttReasonCodes.PubRel.valueOf((byte) code).name();
                case PUBCOMP -> MqttReasonCodes.PubComp.valueOf((byte) code).name();
                case SUBACK -> MqttReasonCodes.SubAck.valueOf((byte) code).name();
                case DISCONNECT -> MqttReasonCodes.Disconnect.valueOf((byte) code).name();
                default -> "";
            };
        } catch (RuntimeException e) {
            return "";
        }
    }

    static String typeName(int type) {
        return type >= 1 && type <= 15 ? MqttMessageType.valueOf(type).name() : "reserved type " + type;
    }

    /**
     * Event loop: queues a 4-byte acknowledgement of a packet id (PUBACK, PUBREC, PUBCOMP; PUBREL with its
     * required flags 0x2; at MQTT 5 the short form, reason code 0 Success). The acknowledgements of one
     * socket read go out in one buffer, flushed once at the end of the read.
     */
    void acknowledge(ChannelHandlerContext ctx, int type, int id) {
        if (acks == null) {
            acks = ctx.alloc().buffer(1024);
        }
        acks.writeByte(type << 4 | (type == PUBREL ? 0x02 : 0)).writeByte(2).writeShort(id);
    }

    /** Waits for a set-up answer from the event loop; failures are CONNECT_FAILED faults naming the address. */
    <T> T await(CompletableFuture<T> f, String what, String packet) throws IOException {
        long waitS = 2 * MqttConnection.CONNECT_TIMEOUT_S;
        try {
            return f.get(waitS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot " + what + " to MQTT broker at " + settings.address()
                    + ": " + MqttConnection.oneLine(e.getCause()), e.getCause());
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

    /** True when the broker closed the connection without a word (no DISCONNECT, no error on our side). */
    boolean brokerClosed() {
        return BROKER_CLOSED.equals(lostWhy);
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

    /**
     * Event loop: the broker broke the protocol. The connection is closed with this reason (at MQTT 5 after a
     * DISCONNECT with {@code reasonCode}); the owner hears of it through {@link Packets#onLost}.
     */
    void protocolError(byte reasonCode, String why) {
        if (lostWhy == null) {
            lostWhy = "the broker " + why;
        }
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
        protocolError(MALFORMED_PACKET, why);
    }

    /** Event loop: as {@link #protocolError(byte, String)} for a packet that is well formed but wrong here (0x82). */
    void unexpected(String why) {
        protocolError(PROTOCOL_ERROR, why);
    }

    /** What the results record of the broker: address, protocol, engine, TLS and what the CONNACK announced. */
    Map<String, String> serverInfo() {
        return new LinkedHashMap<>(info);
    }

    /**
     * A read that we answer with nothing (PUBACKs and PUBCOMPs to a publisher, QoS 0 publishes to a
     * subscriber) leaves its TCP ACK to the kernel's delayed-ACK timer (40 ms on Linux). A broker that
     * writes without TCP_NODELAY (Mosquitto's default) holds its next small packet until that ACK
     * (Nagle), so a publisher waiting for its window stalled 40 ms at a time: 45 ms latency modes and
     * 570 msg/s at QoS 2 before this. TCP_QUICKACK after the read sends the pending ACK at once (one
     * system call per read, not per message).
     */
    private void ackNow(ChannelHandlerContext ctx) {
        try {
            ctx.channel().config().setOption(QUICKACK, true);
        } catch (RuntimeException e) {
            quickAck = false; // not on this platform: keep the kernel's delayed ACKs
        }
    }

    private static final io.netty.channel.ChannelOption<Boolean> QUICKACK = quickAckOption();
    private boolean quickAck = QUICKACK != null; // event loop only

    private static io.netty.channel.ChannelOption<Boolean> quickAckOption() {
        try {
            return io.netty.channel.socket.nio.NioChannelOption.of(jdk.net.ExtendedSocketOptions.TCP_QUICKACK);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** Sends DISCONNECT (Normal Disconnection) and closes the channel; the event loops stay, they are the context's. */
    void close() {
        closing = true;
        Channel c = channel;
        if (c == null) {
            return;
        }
        if (c.isActive()) {
            c.writeAndFlush(MqttMessage.DISCONNECT).awaitUninterruptibly(MqttConnection.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
        }
        c.close().awaitUninterruptibly(MqttConnection.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
    }

    /**
     * Cuts whole packets out of the read stream in place (the decoder's cumulation holds partial ones across
     * reads): PUBLISH and its acknowledgements go to the owner, everything else to Netty's decoder as one
     * whole packet (returning after each, so the codec sees it before the next packet is handled). Checks the
     * remaining length (at most 4 bytes, at most {@link #maxIncoming} in all) and the fixed-header flags of
     * the packets it handles itself. Flushes the read's acknowledgements once at its end.
     */
    private final class Framer extends ByteToMessageDecoder {
        // Packets passed to the codec and messages it gave back (event loop only). Netty's decoder is a
        // replaying decoder: a packet shorter than what its header promises makes it wait for bytes that belong
        // to the next packet. Each packet passed on is whole, so one that yields no message is malformed.
        private int forwarded;
        private int forwardedType;

        private boolean codecStuck() {
            if (forwarded == decoded) {
                return false;
            }
            malformed("sent a malformed " + typeName(forwardedType) + " (shorter than its contents)");
            return true;
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (lostWhy != null || codecStuck()) {
                stop(in); // the connection is going: nothing more is read from it
                return;
            }
            while (in.isReadable(2) && lostWhy == null && ctx.channel().isActive()) {
                final int at = in.readerIndex();
                final int first = in.getUnsignedByte(at);
                int len = 0;
                int i = 1;
                int b;
                do {
                    if (!in.isReadable(i + 1)) {
                        return; // the length is not all here yet
                    }
                    b = in.getUnsignedByte(at + i);
                    len |= (b & 0x7f) << (7 * (i - 1));
                    i++;
                } while ((b & 0x80) != 0 && i <= 4);
                final int type = first >>> 4;
                final int flags = first & 0x0f;
                if ((b & 0x80) != 0) {
                    stop(in);
                    malformed("sent a packet (type " + type + ") whose remaining length takes more than 4 bytes");
                    return;
                }
                if ((long) i + len > maxIncoming) {
                    stop(in);
                    protocolError(PACKET_TOO_LARGE, "sent a " + typeName(type) + " of " + ((long) i + len)
                            + " bytes, more than the " + maxIncoming + " this client accepts (its Maximum Packet Size)");
                    return;
                }
                if (!in.isReadable(i + len)) {
                    return; // wait for the rest of the packet
                }
                if (type >= PUBLISH && type <= PUBCOMP) {
                    String bad = type == PUBLISH ? ((flags >>> 1) & 3) == 3 ? "QoS bits 3" : null
                            : flags != (type == PUBREL ? 2 : 0) ? "fixed-header flags " + flags : null;
                    if (bad != null) {
                        stop(in);
                        malformed("sent a malformed " + typeName(type) + " (" + bad + ")");
                        return;
                    }
                    packets.onPacket(ctx, type, flags, in, at + i, len);
                    in.readerIndex(at + i + len);
                } else {
                    forwarded++;
                    forwardedType = type;
                    out.add(in.retainedSlice(at, i + len));
                    in.readerIndex(at + i + len);
                    return;
                }
            }
        }

        private void stop(ByteBuf in) {
            in.skipBytes(in.readableBytes());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
            if (lostWhy == null && ctx.channel().isActive()) {
                codecStuck();
            }
            if (acks != null) {
                ctx.writeAndFlush(acks, ctx.voidPromise()); // carries the TCP ACK too
                acks = null;
            } else if (quickAck) {
                ackNow(ctx);
            }
            super.channelReadComplete(ctx);
        }
    }

    /** The packets Netty's codec decoded (CONNACK, SUBACK, PINGRESP, DISCONNECT, ...), keep-alive, TLS and the end. */
    private final class Control extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof MqttMessage m)) {
                io.netty.util.ReferenceCountUtil.release(msg);
                return;
            }
            decoded++;
            try {
                onMessage(ctx, m);
            } finally {
                io.netty.util.ReferenceCountUtil.release(m);
            }
        }

        private void onMessage(ChannelHandlerContext ctx, MqttMessage m) {
            if (m.decoderResult().isFailure()) {
                Throwable c = m.decoderResult().cause();
                String what = m.fixedHeader() == null ? "packet" : m.fixedHeader().messageType().name();
                malformed("sent a malformed " + what + ": " + MqttConnection.oneLine(c));
                return;
            }
            MqttMessageType t = m.fixedHeader().messageType();
            switch (t) {
                case CONNACK -> {
                    if (connack.isDone()) {
                        unexpected("sent a second CONNACK");
                        return;
                    }
                    readConnack(ctx, (MqttConnAckMessage) m);
                    connack.complete((MqttConnAckMessage) m);
                }
                case SUBACK -> {
                    CompletableFuture<MqttSubAckMessage> f = suback;
                    if (f == null || f.isDone()) {
                        unexpected("sent a SUBACK for no SUBSCRIBE");
                        return;
                    }
                    f.complete((MqttSubAckMessage) m);
                }
                case PINGRESP -> {
                }
                case DISCONNECT -> {
                    if (version != 5) {
                        unexpected("sent a DISCONNECT, which an MQTT 3.1.1 server never sends");
                        return;
                    }
                    int code = 0;
                    String reason = "";
                    if (m.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader h) {
                        code = h.reasonCode() & 0xff;
                        reason = reasonString(h.properties());
                    }
                    disconnectCode = code;
                    if (lostWhy == null) {
                        lostWhy = "the broker sent DISCONNECT with reason code "
                                + Fault.reasonCode(code, reasonName(DISCONNECT, code)) + reason;
                    }
                    ctx.close();
                }
                default -> unexpected("sent an unexpected " + t.name() + " packet");
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof SslHandshakeCompletionEvent e && !e.isSuccess() && lostWhy == null) {
                lostWhy = "TLS handshake failed: " + MqttConnection.oneLine(e.cause());
                connack.completeExceptionally(new SSLException(lostWhy)); // the one line, not the cause's own words
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (lostWhy == null) {
                lostWhy = (hasSsl(cause) ? "TLS: " : "") + MqttConnection.oneLine(cause);
            }
            connack.completeExceptionally(new IOException(lostWhy)); // the one line, not the cause's own words
            ctx.close();
        }


        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (lostWhy == null) {
                lostWhy = closing ? "closed by msgscope" : BROKER_CLOSED;
            }
            connack.completeExceptionally(new IOException(brokerClosed()
                    ? "the broker closed the connection before its CONNACK" : lostWhy));
            CompletableFuture<MqttSubAckMessage> f = suback;
            if (f != null) {
                f.completeExceptionally(new IOException(brokerClosed()
                        ? "the broker closed the connection before its SUBACK" : lostWhy));
            }
            packets.onLost();
            super.channelInactive(ctx);
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "MQTT %s session %s to %s", version == 5 ? "5" : "3.1.1", clientId,
                settings.address());
    }
}
