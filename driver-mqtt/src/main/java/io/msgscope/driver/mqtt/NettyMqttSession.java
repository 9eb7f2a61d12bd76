package io.msgscope.driver.mqtt;

import io.msgscope.core.driver.Fault;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One MQTT 3.1.1 connection of the lean engine ({@code --opt engine=netty}), shared by
 * {@link NettyMqttPublisher} and {@link NettyMqttSubscriber}: a Netty channel on its own single
 * event loop, CONNECT/CONNACK, keep-alive (PINGREQ when nothing was written for {@code keep_alive}
 * seconds), DISCONNECT on close. Packets are framed by hand, not by Netty's MQTT codec: incoming
 * packets are cut out of the read buffer in place and handed to the owner's {@link Packets} with
 * their body's offset and length (no packet object, no topic string per message), and the owners
 * write their packets as raw bytes (MQTT 3.1.1 §2-3). A CONNACK refusal is a
 * {@link Fault.Kind#REFUSED} naming the return code; no answer or no listener is
 * {@link Fault.Kind#CONNECT_FAILED}. No reconnect: a lost connection is reported.
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

    /** The owner's side of the connection, called on the event loop. */
    interface Packets {
        /** One whole packet other than CONNACK and PINGRESP: its body is {@code in[start, start + length)}. */
        void onPacket(ChannelHandlerContext ctx, int type, int flags, ByteBuf in, int start, int length);

        /** The connection ended (after {@link #lostReason} is set). */
        default void onLost() {
        }
    }

    final MqttSettings settings;
    final Channel channel;
    private final EventLoopGroup group;
    private final CompletableFuture<Integer> connack = new CompletableFuture<>();
    private final Packets packets;
    private volatile String lostWhy;
    private volatile boolean closing;
    private ByteBuf acks; // event loop only: the acknowledgements queued during one read

    private NettyMqttSession(MqttSettings s, Packets packets, String role) throws IOException {
        this.settings = s;
        this.packets = packets;
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) MqttConnection.CONNECT_TIMEOUT_S * 1000)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel c) {
                            if (s.keepAlive() > 0) {
                                c.pipeline().addLast(new IdleStateHandler(0, s.keepAlive(), 0, TimeUnit.SECONDS));
                            }
                            c.pipeline().addLast(new Framer());
                        }
                    });
            ChannelFuture cf = b.connect(s.host(), s.port());
            long waitS = 2 * MqttConnection.CONNECT_TIMEOUT_S;
            if (!cf.awaitUninterruptibly(waitS, TimeUnit.SECONDS) || !cf.isSuccess()) {
                String why = cf.cause() == null ? "no answer within " + waitS + " s" : MqttConnection.oneLine(cf.cause());
                throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to MQTT broker at " + s.address() + ": " + why,
                        cf.cause());
            }
            channel = cf.channel();
            channel.writeAndFlush(connectPacket(s, "msgscope-" + role + "-"
                    + Long.toHexString(ThreadLocalRandom.current().nextLong())));
            int rc = await(connack, "connect", "CONNACK");
            if (rc != 0) {
                throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " refused the connection: CONNACK "
                        + "return code " + Fault.reasonCode(rc, CONNACK_CODES.getOrDefault(rc, "")));
            }
        } catch (IOException | RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static final Map<Integer, String> CONNACK_CODES = Map.of(1, "UNACCEPTABLE_PROTOCOL_VERSION",
            2, "IDENTIFIER_REJECTED", 3, "SERVER_UNAVAILABLE", 4, "BAD_USER_NAME_OR_PASSWORD", 5, "NOT_AUTHORIZED");

    /** Connects and waits for the broker's CONNACK. */
    static NettyMqttSession open(MqttSettings s, String role, Packets packets) throws IOException {
        return new NettyMqttSession(s, packets, role);
    }

    /** MQTT 3.1.1 CONNECT (§3.1): protocol "MQTT" level 4, clean session, keep-alive, credentials. */
    private ByteBuf connectPacket(MqttSettings s, String clientId) {
        byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
        byte[] user = s.username() == null ? null : s.username().getBytes(StandardCharsets.UTF_8);
        byte[] pass = s.password() == null ? null : s.password().getBytes(StandardCharsets.UTF_8);
        int flags = (s.cleanSession() ? 0x02 : 0) | (user != null ? 0x80 : 0) | (pass != null ? 0x40 : 0);
        int len = 10 + 2 + id.length + (user == null ? 0 : 2 + user.length) + (pass == null ? 0 : 2 + pass.length);
        ByteBuf b = channel.alloc().buffer(5 + len);
        b.writeByte(CONNECT << 4);
        writeLength(b, len);
        b.writeShort(4).writeBytes("MQTT".getBytes(StandardCharsets.US_ASCII)).writeByte(4).writeByte(flags)
                .writeShort(s.keepAlive());
        b.writeShort(id.length).writeBytes(id);
        if (user != null) {
            b.writeShort(user.length).writeBytes(user);
        }
        if (pass != null) {
            b.writeShort(pass.length).writeBytes(pass);
        }
        return b;
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
     * Event loop: queues a 4-byte acknowledgement of a packet id (PUBACK, PUBREC, PUBCOMP; PUBREL with
     * its required flags 0x2). The acknowledgements of one socket read go out in one buffer, flushed
     * once at the end of the read.
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

    /** Why the connection ended, or null while it lives. */
    String lostWhy() {
        return lostWhy;
    }

    /** The same as a one-line reason naming the broker, or null while the connection lives. */
    String lostReason() {
        String w = lostWhy;
        return w == null ? null : "connection to MQTT broker at " + settings.address() + " lost (" + w + ")";
    }

    /** Event loop: the broker broke the protocol; the connection is closed with this reason. */
    void protocolError(String why) {
        if (lostWhy == null) {
            lostWhy = "the broker " + why;
        }
        channel.close();
    }

    /** What the results record of the broker: its address and the protocol. */
    Map<String, String> serverInfo() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("broker", "mqtt " + settings.address());
        m.put("protocol", "MQTT 3.1.1");
        m.put("engine", "netty");
        return m;
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

    /** Sends DISCONNECT, closes the channel and stops the event loop. */
    void close() {
        closing = true;
        try {
            if (channel.isActive()) {
                ByteBuf b = channel.alloc().buffer(2).writeByte(DISCONNECT << 4).writeByte(0);
                channel.writeAndFlush(b).awaitUninterruptibly(MqttConnection.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
                channel.close().awaitUninterruptibly(MqttConnection.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * Cuts whole packets out of the read stream in place (the decoder's cumulation holds partial ones
     * across reads), handles CONNACK and PINGRESP, passes the rest on; keep-alive and the end of the
     * connection.
     */
    private final class Framer extends ByteToMessageDecoder {
        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            while (in.isReadable(2) && ctx.channel().isActive()) {
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
                if ((b & 0x80) != 0) {
                    protocolError("sent a packet whose remaining length takes more than 4 bytes");
                    in.skipBytes(in.readableBytes());
                    return;
                }
                if (!in.isReadable(i + len)) {
                    return; // wait for the rest of the packet
                }
                final int type = first >>> 4;
                if (type == CONNACK) {
                    connack.complete(len >= 2 ? (int) in.getUnsignedByte(at + i + 1) : -1);
                } else if (type != PINGRESP) {
                    packets.onPacket(ctx, type, first & 0x0f, in, at + i, len);
                }
                in.readerIndex(at + i + len);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
            if (acks != null) {
                ctx.writeAndFlush(acks, ctx.voidPromise()); // carries the TCP ACK too
                acks = null;
            } else if (quickAck) {
                ackNow(ctx);
            }
            super.channelReadComplete(ctx);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof IdleStateEvent) {
                ctx.writeAndFlush(ctx.alloc().buffer(2).writeByte(PINGREQ << 4).writeByte(0));
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (lostWhy == null) {
                lostWhy = MqttConnection.oneLine(cause);
            }
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (lostWhy == null) {
                lostWhy = closing ? "closed by msgscope" : "the broker closed it";
            }
            connack.completeExceptionally(new IOException("the broker closed the connection before its CONNACK"));
            packets.onLost();
            super.channelInactive(ctx);
        }
    }
}
