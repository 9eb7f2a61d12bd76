package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.HandOver;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.mqtt.MqttSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.mqtt.MqttMessageIdAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The lean subscriber ({@code --opt engine=netty}, the default): MQTT 5 or 3.1.1 at QoS 0, 1 or 2 on a
 * {@link NettyMqttSession}, to its topic or, with {@code group}, to the MQTT 5 shared subscription
 * {@code $share/GROUP/topic} (round-robin). It subscribes and waits for the SUBACK before reporting its topic:
 * a refused subscription (MQTT 5 reason code such as 0x87 NOT_AUTHORIZED, 3.1.1 return code 0x80) and a
 * granted QoS below the one asked are a {@link Fault.Kind#REFUSED} naming the code, as with the HiveMQ
 * subscriber; 0x8F (topic filter invalid) and 0x9E (no shared subscriptions) are usage errors on
 * {@code --opt topic} and {@code --opt group}.
 *
 * <p>Each PUBLISH is cut out of Netty's read buffer in place and its payload handed to the handler first
 * thing (Q2) on the event loop, copied into the I/O thread's scratch buffer up to {@link #COPY_MAX} bytes and
 * viewed in place above (no object per message either way for small messages); at MQTT 5 its properties are
 * skipped, not read. QoS 1: a PUBACK per message; QoS 2: PUBREC, and PUBCOMP on the broker's PUBREL, a redelivered
 * packet id not yet released is acknowledged again but not delivered twice (counted as {@code qos2_redelivered}: not
 * {@code duplicates}, the trace's count of messages that arrived twice, which a driver counter of that name overwrote
 * in summary.json).
 * The acknowledgements of one socket read go out together ({@link NettyMqttSession#acknowledge}). Polled
 * ({@link #poll}, trace mode) or pushed ({@link #start}, the scenario runtime) as {@link HandOver} describes;
 * a malformed packet closes the connection, which ends either way with a one-line reason.
 *
 * <p>{@code --opt reconnect=true} (issue 32 item 3): a lost connection is got back on a thread of its own
 * ({@link MqttReconnect#reconnect}) with the same client id and persistent session, so the broker hands over what it
 * kept for the subscriber meanwhile (QoS 1/2), and the subscriber subscribes again ({@code subscriber_reconnects});
 * the delivery ends only when that fails.
 */
public final class NettyMqttSubscriber implements Subscriber, NettyMqttSession.Packets {
    private final MqttSettings s;
    private final HandOver delivery = new HandOver();
    /** The connection; another one after each reconnect. */
    volatile NettyMqttSession session;
    /** reconnect=true: the context a reconnect dials from (set once open), whether one is under way, how many came. */
    private volatile ClientContext context;
    private final java.util.concurrent.atomic.AtomicBoolean reconnecting = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicLong reconnects = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;
    private final boolean v5;
    private volatile int grantedQos = -1;
    /** QoS 2 packet ids delivered and not yet released, one bit each (8 KiB, made with the first QoS 2 publish). */
    private long[] unreleased; // event loop only
    // event loop only; read after the run
    private long protocolErrors;
    private long duplicates;
    private volatile String firstError;

    /**
     * Not connected yet: {@link #open} connects and subscribes, tests attach a channel to {@link #session}.
     *
     * @param messageSize the publishes' size: packets above it plus {@link NettyMqttSession#PACKET_ROOM} are refused
     */
    NettyMqttSubscriber(MqttSettings s, int messageSize) {
        this.s = s;
        this.v5 = s.version() == 5;
        this.session = new NettyMqttSession(s, this, "sub", NettyMqttSession.maxIncoming(messageSize));
    }

    /** Connects, subscribes and waits for the SUBACK ({@link #checkSubAck}). */
    public static NettyMqttSubscriber open(MqttSettings s, int messageSize, ClientContext context) throws IOException {
        NettyMqttSubscriber sub = new NettyMqttSubscriber(s, messageSize);
        sub.session.connect(context);
        try {
            sub.checkShared();
            sub.checkSubAck(sub.session.await(sub.subscribe(), "subscribe to '" + s.filter() + "'", "SUBACK"));
        } catch (IOException | RuntimeException e) {
            sub.close();
            throw e;
        }
        sub.context = context;
        if (s.reconnect() && sub.session.lostWhy() != null) {
            sub.onLost(); // lost between the SUBACK and now
        }
        return sub;
    }

    /**
     * reconnect=true, its own thread: the connection back and the subscription again, for as long as connections are
     * lost; the delivery ends (with the reason) only when one cannot be got back.
     */
    private void reconnectLoop() {
        try {
            do {
                NettyMqttSession next = MqttReconnect.reconnect(session, context, n -> session = n, () -> closed);
                checkSubAck(next.await(subscribe(), "subscribe again to '" + s.filter() + "'", "SUBACK"));
                reconnects.incrementAndGet();
                reconnecting.set(false);
            } while (!closed && session.lostWhy() != null && reconnecting.compareAndSet(false, true));
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                delivery.lost(e.getMessage() == null ? closeReason() : e.getMessage());
            }
        }
    }

    /** After the CONNACK: a group on a broker that announced no shared subscriptions is a usage error. */
    void checkShared() {
        if (!s.group().isEmpty() && !session.limits().sharedSubscriptionAvailable()) {
            throw new SpecException("--opt group", "the MQTT broker at " + s.address() + " has no shared "
                    + "subscriptions ($share/...), needed for round-robin: CONNACK Shared Subscription Available 0");
        }
    }

    /** Sends SUBSCRIBE to the filter at the QoS asked; the future completes with the SUBACK. */
    java.util.concurrent.CompletableFuture<MqttSubAckMessage> subscribe() {
        return session.subscribe(s.filter(), s.qos());
    }

    /** Reads the SUBACK: a refusal or a lowered QoS throws, naming the code; else the granted QoS is kept. */
    void checkSubAck(MqttSubAckMessage ack) throws IOException {
        List<Integer> codes;
        try {
            codes = ack.payload().reasonCodes();
        } catch (NullPointerException e) { // Netty's codec reads a code MQTT does not define as null
            codes = List.of();
        }
        String filter = s.filter();
        if (codes.isEmpty() || codes.get(0) == null) {
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " answered the subscription to '"
                    + filter + "' with a SUBACK without a valid reason code");
        }
        int code = codes.get(0);
        if (v5) {
            MqttMessageIdAndPropertiesVariableHeader h = ack.idAndPropertiesVariableHeader();
            String reason = "SUBACK reason code " + Fault.reasonCode(code, MqttWire.reasonName(
                    MqttWire.SUBACK, code)) + MqttWire.reasonString(h == null ? null : h.properties());
            if (code == 0x8F) {
                throw new SpecException("--opt topic", "the MQTT broker at " + s.address()
                        + " rejects the topic filter '" + filter + "': " + reason);
            }
            if (code == 0x9E) {
                throw new SpecException("--opt group", "the MQTT broker at " + s.address()
                        + " has no shared subscriptions ($share/...), needed for round-robin: " + reason);
            }
            if (code >= 0x80) {
                throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " refused the subscription to '"
                        + filter + "': " + reason);
            }
        } else if (code >= 0x80) {
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " refused the subscription to '"
                    + filter + "': SUBACK return code " + Fault.reasonCode(code, code == 0x80 ? "FAILURE" : ""));
        }
        if (code > 2) {
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " answered the subscription to '"
                    + filter + "' with SUBACK code " + Fault.reasonCode(code, "").trim() + ", which grants no QoS");
        }
        if (code < s.qos()) {
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " lowered the subscription to '"
                    + filter + "' to QoS " + code + " (SUBACK granted QoS " + Fault.reasonCode(code, "").trim()
                    + "), asked --opt qos=" + s.qos());
        }
        grantedQos = code;
    }

    /** Event loop: PUBLISH and PUBREL (a PUBACK, PUBREC or PUBCOMP to a subscriber breaks the protocol). */
    @Override
    public void onPacket(ChannelHandlerContext ctx, int type, int flags, ByteBuf in, int start, int length) {
        if (type == MqttWire.PUBLISH) {
            onPublish(ctx, flags, in, start, length);
        } else if (type == MqttWire.PUBREL) {
            if (length < 2 || (!v5 && length != 2)) {
                failed("sent a malformed PUBREL (" + length + " bytes after the fixed header)");
                return;
            }
            int id = in.getUnsignedShort(start);
            if (unreleased != null) {
                unreleased[id >>> 6] &= ~(1L << id);
            }
            session.acknowledge(ctx, MqttWire.PUBCOMP, id);
        } else {
            protocolErrors++;
            session.unexpected("sent a " + MqttWire.typeName(type) + " to a subscriber, which publishes nothing");
        }
    }

    private void onPublish(ChannelHandlerContext ctx, int flags, ByteBuf in, int start, int length) {
        final int qos = (flags >>> 1) & 3;
        final int end = start + length;
        if (length < 2) {
            failed("sent a malformed PUBLISH (" + length + " bytes after the fixed header)");
            return;
        }
        int p = start + 2 + in.getUnsignedShort(start) + (qos > 0 ? 2 : 0);
        if (p > end) {
            failed("sent a malformed PUBLISH (its topic and packet id run past its " + length + " bytes)");
            return;
        }
        final int id = qos > 0 ? in.getUnsignedShort(p - 2) : 0;
        if (qos > 0 && id == 0) {
            failed("sent a malformed PUBLISH (QoS " + qos + " with packet id 0)");
            return;
        }
        if (v5) {
            long props = MqttWire.readVarInt(in, p, end);
            if (props < 0 || p + (props & 7) + (props >>> 3) > end) {
                failed("sent a malformed PUBLISH (its properties run past its " + length + " bytes)");
                return;
            }
            p += (int) (props & 7) + (int) (props >>> 3);
        }
        if (qos == 2 && unreleased == null) {
            unreleased = new long[65_536 / 64];
        }
        if (qos == 2 && (unreleased[id >>> 6] & 1L << id) != 0) {
            duplicates++; // the broker sent it again before our PUBREC reached it: acknowledge, do not deliver twice
        } else {
            delivery.deliver(payload(in, p, end - p));
            if (qos == 2) {
                unreleased[id >>> 6] |= 1L << id;
            }
        }
        if (qos > 0) {
            session.acknowledge(ctx, qos == 1 ? MqttWire.PUBACK : MqttWire.PUBREC, id);
        }
    }

    /**
     * Payloads up to this size are copied into the I/O thread's scratch buffer rather than viewed in place:
     * Netty 4.2's default (adaptive) allocator makes a new {@code DirectByteBuffer} slice on every
     * {@code internalNioBuffer} call, ~64 B allocated per message (seen with JFR), while copying 2 KiB costs
     * less than that allocation and its collection. Larger payloads are viewed in place, where one small
     * object per message is nothing next to the bytes it spares copying.
     */
    static final int COPY_MAX = 2048;
    /** One scratch buffer per I/O thread, shared by its connections (the handler keeps no reference). */
    private static final io.netty.util.concurrent.FastThreadLocal<ByteBuffer> SCRATCH =
            new io.netty.util.concurrent.FastThreadLocal<>() {
                @Override
                protected ByteBuffer initialValue() {
                    return ByteBuffer.allocate(COPY_MAX).order(ByteOrder.LITTLE_ENDIAN);
                }
            };

    /** The payload as a little-endian buffer, {@code [position, limit)}: see {@link #COPY_MAX}. */
    private static ByteBuffer payload(ByteBuf in, int at, int len) {
        if (len > COPY_MAX && in.nioBufferCount() == 1 && !(in instanceof CompositeByteBuf)) {
            return in.internalNioBuffer(at, len).order(ByteOrder.LITTLE_ENDIAN);
        }
        ByteBuffer copy = SCRATCH.get();
        if (copy.capacity() < len) {
            copy = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
            SCRATCH.set(copy);
        }
        copy.clear().limit(len);
        in.getBytes(at, copy);
        return copy.flip();
    }

    @Override
    public void onLost() {
        if (s.reconnect() && context != null) {
            if (!closed && reconnecting.compareAndSet(false, true)) {
                Thread t = new Thread(this::reconnectLoop, "msgscope-mqtt-reconnect");
                t.setDaemon(true);
                t.start();
            }
            return; // a failed attempt's end, or ours
        }
        delivery.lost(closeReason());
    }

    /** Event loop: a malformed packet; counted, and the connection is closed naming it. */
    private void failed(String why) {
        protocolErrors++;
        if (firstError == null) {
            firstError = "MQTT broker at " + s.address() + " " + why;
        }
        session.malformed(why);
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) {
        return delivery.poll(handler, timeoutMs);
    }

    /** Push mode: the handler runs on the event loop, first thing for each PUBLISH (Q2). */
    @Override
    public void start(MessageHandler handler, Consumer<String> ended) {
        delivery.start(handler, ended);
    }

    @Override
    public String destination() {
        return s.topic();
    }

    @Override
    public Map<String, Long> counters() {
        long shorts = delivery.shortPayloads();
        Map<String, Long> m = Map.of("errors", shorts + protocolErrors, "short_payloads", shorts, "protocol_errors",
                protocolErrors, "qos2_redelivered", duplicates, "qos_granted", (long) grantedQos);
        if (!s.reconnect()) {
            return m;
        }
        m = new java.util.HashMap<>(m);
        m.put(io.msgscope.core.driver.Reconnects.SUBSCRIBER_RECONNECTS, reconnects.get());
        return Map.copyOf(m);
    }

    @Override
    public String closeReason() {
        return session.lostReason();
    }

    @Override
    public InetAddress localAddress() {
        return session.channel() != null && session.channel().localAddress() instanceof InetSocketAddress a
                ? a.getAddress() : null;
    }

    @Override
    public Map<String, String> serverInfo() {
        Map<String, String> m = session.serverInfo();
        m.put("granted_qos", "" + grantedQos);
        return m;
    }

    @Override
    public void close() {
        closed = true;
        delivery.closing();
        session.close();
    }
}
