package io.msgscope.driver.mqtt;

import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The lean subscriber ({@code --opt engine=netty}): MQTT 3.1.1 at QoS 0, 1 or 2 on a
 * {@link NettyMqttSession}. It subscribes and waits for the SUBACK before reporting its topic; a
 * refused subscription (return code 0x80) and a granted QoS below the one asked are a
 * {@link Fault.Kind#REFUSED} naming the code, as with the HiveMQ subscriber. Each PUBLISH is cut out
 * of Netty's read buffer in place and its payload handed to the handler first thing (Q2) on the event
 * loop as a view of that buffer (no copy, no object per message; a copy into one reused buffer only
 * when the read buffer is not one contiguous piece). QoS 1: a PUBACK per message; QoS 2: PUBREC, and
 * PUBCOMP on the broker's PUBREL, a redelivered packet id not yet released is acknowledged again but
 * not delivered twice (counted as {@code duplicates}). The acknowledgements of one socket read go
 * out together ({@link NettyMqttSession#acknowledge}).
 */
final class NettyMqttSubscriber implements Subscriber, NettyMqttSession.Packets {
    private final MqttSettings s;
    private final HandOver delivery = new HandOver();
    private final CompletableFuture<Integer> suback = new CompletableFuture<>();
    private final NettyMqttSession session;
    private final int grantedQos;
    private final boolean[] unreleased = new boolean[65_536]; // QoS 2, event loop only
    private ByteBuffer copy = ByteBuffer.allocate(0); // event loop only
    // event loop only; read after the run
    private long protocolErrors;
    private long duplicates;
    private volatile String firstError;

    NettyMqttSubscriber(MqttSettings s) throws IOException {
        this.s = s;
        this.session = NettyMqttSession.open(s, "sub", this);
        try {
            byte[] filter = s.filter().getBytes(StandardCharsets.UTF_8);
            ByteBuf b = session.channel.alloc().buffer(10 + filter.length);
            b.writeByte(NettyMqttSession.SUBSCRIBE << 4 | 0x02);
            NettyMqttSession.writeLength(b, 2 + 2 + filter.length + 1);
            b.writeShort(1).writeShort(filter.length).writeBytes(filter).writeByte(s.qos());
            session.channel.writeAndFlush(b);
            int code = session.await(suback, "subscribe to '" + s.filter() + "'", "SUBACK");
            if (code == 0x80 || code < 0) {
                throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " refused the subscription to '"
                        + s.filter() + "': SUBACK return code " + Fault.reasonCode(code & 0xff, "FAILURE"));
            }
            if (code < s.qos()) {
                throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " lowered the subscription to '"
                        + s.filter() + "' to QoS " + code + " (SUBACK granted QoS " + Fault.reasonCode(code, "").trim()
                        + "), asked --opt qos=" + s.qos());
            }
            this.grantedQos = code;
        } catch (IOException | RuntimeException e) {
            session.close();
            throw e;
        }
    }

    /** Event loop: PUBLISH, PUBREL, SUBACK. */
    @Override
    public void onPacket(ChannelHandlerContext ctx, int type, int flags, ByteBuf in, int start, int length) {
        if (type == NettyMqttSession.PUBLISH) {
            onPublish(ctx, flags, in, start, length);
        } else if (type == NettyMqttSession.PUBREL && length >= 2) {
            int id = in.getUnsignedShort(start);
            unreleased[id] = false;
            session.acknowledge(ctx, NettyMqttSession.PUBCOMP, id);
        } else if (type == NettyMqttSession.SUBACK && length >= 3) {
            suback.complete((int) in.getUnsignedByte(start + 2));
        } else {
            failed("sent an unexpected packet of type " + type + " (" + length + " bytes) to a subscriber");
        }
    }

    private void onPublish(ChannelHandlerContext ctx, int flags, ByteBuf in, int start, int length) {
        final int qos = (flags >>> 1) & 3;
        final int end = start + length;
        int p = start + 2 + (length >= 2 ? in.getUnsignedShort(start) : 0) + (qos > 0 ? 2 : 0);
        if (qos == 3 || p > end) {
            failed("sent a malformed PUBLISH (QoS bits " + qos + ", " + length + " bytes)");
            return;
        }
        final int id = qos > 0 ? in.getUnsignedShort(p - 2) : 0;
        if (qos == 2 && unreleased[id]) {
            duplicates++; // the broker sent it again before our PUBREC reached it: acknowledge, do not deliver twice
        } else {
            delivery.deliver(payload(in, p, end - p));
            if (qos == 2) {
                unreleased[id] = true;
            }
        }
        if (qos > 0) {
            session.acknowledge(ctx, qos == 1 ? NettyMqttSession.PUBACK : NettyMqttSession.PUBREC, id);
        }
    }

    /** The payload as a little-endian view of the read buffer, or a copy in one reused buffer. */
    private ByteBuffer payload(ByteBuf in, int at, int len) {
        if (in.nioBufferCount() == 1 && !(in instanceof CompositeByteBuf)) {
            return in.internalNioBuffer(at, len).order(ByteOrder.LITTLE_ENDIAN);
        }
        if (copy.capacity() < len) {
            copy = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
        }
        copy.clear().limit(len);
        in.getBytes(at, copy);
        return copy.flip();
    }

    @Override
    public void onLost() {
        suback.completeExceptionally(new IOException("the broker closed the connection before its SUBACK"));
        delivery.count.lost();
    }

    private void failed(String why) {
        protocolErrors++;
        if (firstError == null) {
            firstError = "MQTT broker at " + s.address() + " " + why;
        }
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) {
        return delivery.poll(handler, timeoutMs);
    }

    @Override
    public String destination() {
        return s.topic();
    }

    @Override
    public Map<String, Long> counters() {
        long shorts = delivery.shortPayloads();
        return Map.of("errors", shorts + protocolErrors, "short_payloads", shorts, "protocol_errors", protocolErrors,
                "duplicates", duplicates, "qos_granted", (long) grantedQos);
    }

    @Override
    public String closeReason() {
        String why = session.lostReason();
        return why == null || firstError == null ? why : why + "; first error: " + firstError;
    }

    @Override
    public Map<String, String> serverInfo() {
        Map<String, String> m = new LinkedHashMap<>(session.serverInfo());
        m.put("granted_qos", "" + grantedQos);
        return m;
    }

    @Override
    public void close() {
        session.close();
    }
}
