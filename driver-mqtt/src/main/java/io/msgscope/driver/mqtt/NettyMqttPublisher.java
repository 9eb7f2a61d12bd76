package io.msgscope.driver.mqtt;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The lean publisher ({@code --opt engine=netty}): MQTT 3.1.1, QoS 0 and 1, straight on Netty's own
 * MQTT codec, without the HiveMQ client's publish objects and reactive plumbing. The sender thread
 * copies each message into a pooled buffer and builds the PUBLISH; the call's publishes go to the
 * event loop in ONE task, written without flushing and flushed once (so {@code --send-batch K} is one
 * wake-up and one flush per K messages). QoS 1: packet ids cycle through 1..65535, at most
 * {@code max_inflight} (≤ 65535) unacknowledged; each PUBACK counts as {@code messages_acked}, or
 * {@code warmup_acked} for warm-up messages (negative sequence). QoS 0: a publish completes once
 * written, and the same window bounds what is queued. Same counters and faults as {@link MqttPublisher}.
 */
final class NettyMqttPublisher implements Publisher {

    private final MqttSettings s;
    private final int size;
    private final boolean qos1;
    private final int maxInflight;
    private final PublishWindow window;
    private final EventLoopGroup group;
    private final Channel ch;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong warmupAcked = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    /** QoS 1: whether the publish with this packet id is a warm-up message (written by the sender before the hand-over). */
    private final boolean[] warmupById = new boolean[65_536];
    private final boolean[] outstanding = new boolean[65_536]; // event loop only
    private volatile String lostWhy;
    private volatile String firstError;

    private long sent; // sender thread only
    private int nextId = 1; // sender thread only
    private ArrayList<MqttPublishMessage> batch = new ArrayList<>();

    NettyMqttPublisher(MqttSettings s, int size) throws IOException {
        this.s = s;
        this.size = size;
        this.qos1 = s.qos() == 1;
        this.maxInflight = s.maxInflight();
        this.window = new PublishWindow(maxInflight, s.address());
        CompletableFuture<MqttConnAckMessage> connack = new CompletableFuture<>();
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) MqttConnection.CONNECT_TIMEOUT_S * 1000)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel c) {
                            c.pipeline().addLast(MqttEncoder.INSTANCE, new MqttDecoder());
                            if (s.keepAlive() > 0) {
                                c.pipeline().addLast(new IdleStateHandler(0, s.keepAlive(), 0, TimeUnit.SECONDS));
                            }
                            c.pipeline().addLast(new Handler(connack));
                        }
                    });
            ChannelFuture cf = b.connect(s.host(), s.port());
            if (!cf.awaitUninterruptibly(2 * MqttConnection.CONNECT_TIMEOUT_S, TimeUnit.SECONDS) || !cf.isSuccess()) {
                String why = cf.cause() == null ? "no answer within " + 2 * MqttConnection.CONNECT_TIMEOUT_S + " s"
                        : MqttConnection.oneLine(cf.cause());
                throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to MQTT broker at " + s.address() + ": " + why,
                        cf.cause());
            }
            ch = cf.channel();
            var connect = MqttMessageBuilders.connect()
                    .clientId("msgscope-pub-" + Long.toHexString(ThreadLocalRandom.current().nextLong()))
                    .protocolVersion(MqttVersion.MQTT_3_1_1).cleanSession(s.cleanSession())
                    .keepAlive(s.keepAlive());
            if (s.username() != null) {
                connect.hasUser(true).username(s.username());
                if (s.password() != null) {
                    connect.hasPassword(true).password(s.password().getBytes(StandardCharsets.UTF_8));
                }
            }
            ch.writeAndFlush(connect.build());
            MqttConnAckMessage ack;
            try {
                ack = connack.get(2 * MqttConnection.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to MQTT broker at " + s.address() + ": "
                        + MqttConnection.oneLine(e.getCause()), e.getCause());
            } catch (TimeoutException e) {
                throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to MQTT broker at " + s.address()
                        + ": no CONNACK within " + 2 * MqttConnection.CONNECT_TIMEOUT_S + " s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while connecting to " + s.address());
            }
            MqttConnectReturnCode rc = ack.variableHeader().connectReturnCode();
            if (rc != MqttConnectReturnCode.CONNECTION_ACCEPTED) {
                throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " refused the connection: CONNACK "
                        + "return code " + Fault.reasonCode(rc.byteValue() & 0xff, rc));
            }
        } catch (IOException | RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** Event loop: CONNACK, PUBACK, PINGRESP; keep-alive and the end of the connection. */
    private final class Handler extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<MqttConnAckMessage> connack;

        Handler(CompletableFuture<MqttConnAckMessage> connack) {
            this.connack = connack;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            MqttMessage m = (MqttMessage) msg;
            if (m.decoderResult().isFailure()) {
                failed("sent a packet that does not decode: " + MqttConnection.oneLine(m.decoderResult().cause()));
                ctx.close();
                return;
            }
            switch (m.fixedHeader().messageType()) {
                case CONNACK -> connack.complete((MqttConnAckMessage) m);
                case PUBACK -> {
                    int id = ((MqttMessageIdVariableHeader) m.variableHeader()).messageId();
                    if (!outstanding[id]) {
                        failed("sent a PUBACK for packet id " + id + ", which has no publish outstanding");
                        return;
                    }
                    outstanding[id] = false;
                    (warmupById[id] ? warmupAcked : acked).incrementAndGet();
                    complete(1);
                }
                default -> { } // PINGRESP
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof IdleStateEvent) {
                ctx.writeAndFlush(new MqttMessage(new MqttFixedHeader(MqttMessageType.PINGREQ, false,
                        MqttQoS.AT_MOST_ONCE, false, 0)));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (lostWhy == null) {
                lostWhy = MqttConnection.oneLine(cause);
            }
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (lostWhy == null) {
                lostWhy = "closed";
            }
            connack.completeExceptionally(new IOException("the broker closed the connection before its CONNACK"));
            window.wake();
        }
    }

    private void failed(String why) {
        errors.incrementAndGet();
        if (firstError == null) {
            firstError = "MQTT broker at " + s.address() + " " + why;
        }
    }

    /** Event loop: n publishes completed (written at QoS 0, acknowledged at QoS 1). */
    private void complete(int n) {
        window.complete(n);
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            if (lostWhy != null) {
                checkAlive();
            }
            if (window.full(sent)) {
                flush();
                window.await(sent, this::checkAlive);
            }
            ByteBuf payload = ch.alloc().buffer(size);
            payload.writeBytes(buffer.duplicate().limit(off + size).position(off));
            int id = 0;
            if (qos1) {
                id = nextId;
                nextId = id == 65_535 ? 1 : id + 1;
                warmupById[id] = size >= WireHeader.SIZE && WireHeader.sequence(buffer, off) < 0;
            }
            batch.add(new MqttPublishMessage(new MqttFixedHeader(MqttMessageType.PUBLISH, false,
                    qos1 ? MqttQoS.AT_LEAST_ONCE : MqttQoS.AT_MOST_ONCE, false, 0),
                    new MqttPublishVariableHeader(s.topic(), id), payload));
            sent++;
        }
        flush();
    }

    /** Hands the queued publishes to the event loop as one task: written one by one, flushed once. */
    private void flush() {
        if (batch.isEmpty()) {
            return;
        }
        final ArrayList<MqttPublishMessage> out = batch;
        batch = new ArrayList<>(out.size());
        ch.eventLoop().execute(() -> {
            if (!ch.isActive()) {
                out.forEach(MqttPublishMessage::release);
                return;
            }
            for (MqttPublishMessage m : out) {
                if (qos1) {
                    outstanding[m.variableHeader().packetId()] = true;
                }
                ch.write(m, ch.voidPromise());
            }
            ch.flush();
            if (!qos1) {
                complete(out.size());
            }
        });
    }


    private void checkAlive() throws IOException {
        String why = lostWhy;
        if (why == null) {
            return;
        }
        if (qos1 && sent > 0 && acked.get() + warmupAcked.get() == 0) {
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " closed the connection after "
                    + sent + " QoS 1 publishes, none acknowledged: an MQTT 3.1.1 broker refuses a QoS it does not "
                    + "support this way (e.g. mosquitto's max_qos)");
        }
        throw new Fault(Fault.Kind.CONNECTION_LOST, "connection to MQTT broker at " + s.address() + " lost after "
                + sent + " publishes (" + why + ")");
    }

    @Override
    public void drain(long timeoutMs) throws IOException {
        flush();
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (window.completed() < sent) {
            checkAlive();
            if (System.nanoTime() > deadline) {
                throw new IOException((sent - window.completed()) + " of " + sent + " publishes to " + s.address()
                        + " not completed after " + timeoutMs + " ms");
            }
            LockSupport.parkNanos(100_000);
        }
    }

    @Override
    public Map<String, Long> counters() {
        return Map.of("messages_acked", acked.get(), "warmup_acked", warmupAcked.get(), "publish_errors", errors.get(),
                "publish_refused", 0L);
    }

    @Override
    public String firstError() {
        return firstError;
    }

    @Override
    public void close() {
        try {
            if (ch.isActive()) {
                ch.writeAndFlush(new MqttMessage(new MqttFixedHeader(MqttMessageType.DISCONNECT, false,
                        MqttQoS.AT_MOST_ONCE, false, 0))).awaitUninterruptibly(MqttConnection.CONNECT_TIMEOUT_S,
                        TimeUnit.SECONDS);
                ch.close().awaitUninterruptibly(MqttConnection.CONNECT_TIMEOUT_S, TimeUnit.SECONDS);
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
