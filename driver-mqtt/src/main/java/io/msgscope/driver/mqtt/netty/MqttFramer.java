package io.msgscope.driver.mqtt.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.handler.codec.ByteToMessageDecoder;
import jdk.net.ExtendedSocketOptions;

import java.util.List;

/**
 * Cuts whole packets out of a {@link NettyMqttSession}'s read stream in place (the decoder's cumulation holds
 * partial ones across reads): PUBLISH and its acknowledgements go to the owner's
 * {@link NettyMqttSession.Packets}, everything else to Netty's decoder as one whole packet (returning after
 * each, so the codec sees it before the next packet is handled). Checks the remaining length (at most 4
 * bytes, at most the session's {@code maxIncoming} in all) and the fixed-header flags of the packets it
 * handles itself. Queues the acknowledgements the owner sends during a read and flushes them once at its end.
 */
final class MqttFramer extends ByteToMessageDecoder {
    private static final ChannelOption<Boolean> QUICKACK = quickAckOption();

    private final NettyMqttSession session;
    private final NettyMqttSession.Packets packets;
    private final int maxIncoming;

    // Event loop only. Packets passed to the codec, the type of the last one, and the messages the codec gave
    // back to the control handler: Netty's decoder is a replaying decoder, so a packet shorter than what its
    // header promises makes it wait for bytes that belong to the next packet. Each packet passed on is whole,
    // so one that yields no message is malformed.
    private int forwarded;
    private int forwardedType;
    private int decoded;
    private ByteBuf acks; // the acknowledgements queued during one read
    private boolean quickAck = QUICKACK != null;

    MqttFramer(NettyMqttSession session, NettyMqttSession.Packets packets, int maxIncoming) {
        this.session = session;
        this.packets = packets;
        this.maxIncoming = maxIncoming;
    }

    /** Event loop: the control handler took one message from Netty's decoder. */
    void decodedOne() {
        decoded++;
    }

    /**
     * Event loop: queues a 4-byte acknowledgement of a packet id (PUBACK, PUBREC, PUBCOMP; PUBREL with its
     * required flags 0x2; at MQTT 5 the short form, reason code 0 Success), flushed at the end of the read.
     */
    void acknowledge(ChannelHandlerContext ctx, int type, int id) {
        if (acks == null) {
            acks = ctx.alloc().buffer(1024);
        }
        acks.writeByte(type << 4 | (type == MqttWire.PUBREL ? 0x02 : 0)).writeByte(2).writeShort(id);
    }

    private boolean codecStuck() {
        if (forwarded == decoded) {
            return false;
        }
        session.malformed("sent a malformed " + MqttWire.typeName(forwardedType) + " (shorter than its contents)");
        return true;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (session.lostWhy() != null || codecStuck()) {
            stop(in); // the connection is going: nothing more is read from it
            return;
        }
        while (in.isReadable(2) && session.lostWhy() == null && ctx.channel().isActive()) {
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
                session.malformed("sent a packet (type " + type + ") whose remaining length takes more than 4 bytes");
                return;
            }
            if ((long) i + len > maxIncoming) {
                stop(in);
                session.protocolError(MqttWire.PACKET_TOO_LARGE, "sent a " + MqttWire.typeName(type) + " of "
                        + ((long) i + len) + " bytes, more than the " + maxIncoming
                        + " this client accepts (its Maximum Packet Size)");
                return;
            }
            if (!in.isReadable(i + len)) {
                return; // wait for the rest of the packet
            }
            if (type >= MqttWire.PUBLISH && type <= MqttWire.PUBCOMP) {
                String bad = badFlags(type, flags);
                if (bad != null) {
                    stop(in);
                    session.malformed("sent a malformed " + MqttWire.typeName(type) + " (" + bad + ")");
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

    /** What is wrong with the fixed-header flags of a PUBLISH or an acknowledgement, or null. */
    private static String badFlags(int type, int flags) {
        if (type == MqttWire.PUBLISH) {
            return ((flags >>> 1) & 3) == 3 ? "QoS bits 3" : null;
        }
        return flags != (type == MqttWire.PUBREL ? 2 : 0) ? "fixed-header flags " + flags : null;
    }

    private static void stop(ByteBuf in) {
        in.skipBytes(in.readableBytes());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (session.lostWhy() == null && ctx.channel().isActive()) {
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

    private static ChannelOption<Boolean> quickAckOption() {
        try {
            return NioChannelOption.of(ExtendedSocketOptions.TCP_QUICKACK);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }
}
