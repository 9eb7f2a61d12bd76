package io.msgscope.driver.stomp;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.netty.NettyIo;
import io.msgscope.netty.TlsClient;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.stomp.DefaultStompFrame;
import io.netty.handler.codec.stomp.StompCommand;
import io.netty.handler.codec.stomp.StompFrame;
import io.netty.handler.codec.stomp.StompHeaders;
import io.netty.handler.codec.stomp.StompSubframeAggregator;
import io.netty.handler.codec.stomp.StompSubframeDecoder;
import io.netty.handler.codec.stomp.StompSubframeEncoder;
import io.netty.handler.ssl.SslHandler;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One STOMP 1.2 connection on the agent's shared Netty event loops ({@link NettyIo#of}, issue 13: no thread per
 * connection), shared by {@link StompPublisher} and {@link StompSubscriber}. Incoming frames go through Netty's STOMP
 * codec ({@link StompSubframeDecoder} and {@link StompSubframeAggregator}: a body is read by its
 * {@code content-length}, so the binary header's NUL bytes stay in it); frames this client sends go through
 * {@link StompSubframeEncoder}, except the per-message SEND, which the publisher frames itself into one buffer
 * ({@link StompSend}) and writes past the encoder.
 *
 * <p>CONNECT asks for STOMP 1.2 with no heart-beats; the CONNECTED frame's {@code server} and {@code version} are kept
 * for the results. An ERROR frame, the connection closing or an exception ends the connection with a one-line reason
 * ({@link #lostReason}); there is no reconnect.
 */
final class StompConnection {
    /** The engine's buffers come from the pooled allocator, as the MQTT engine's (see NettyMqttSession). */
    static final ByteBufAllocator ALLOCATOR = PooledByteBufAllocator.DEFAULT;
    static final int CONNECT_TIMEOUT_MS = 10_000;
    /** The longest header line accepted from the broker (RabbitMQ's MESSAGE headers are short). */
    static final int MAX_LINE = 64 * 1024;

    /** The owner's side, called on the event loop. */
    interface Frames {
        /** A MESSAGE frame; its content is valid during the call only. */
        default void onMessage(ChannelHandlerContext ctx, StompFrame frame) {
        }

        /** A RECEIPT frame's {@code receipt-id}. */
        default void onReceipt(String receiptId) {
        }

        /** The event loop finished a read: the time to flush what the reads wrote (acks). */
        default void onReadComplete(ChannelHandlerContext ctx) {
        }

        /** The connection ended ({@link #lostReason} is set). */
        default void onLost() {
        }
    }

    private final StompSettings settings;
    private final Frames frames;
    private final CompletableFuture<StompFrame> connected = new CompletableFuture<>();
    private volatile Channel channel;
    private volatile String lostWhy;
    private volatile boolean closing;
    private volatile String server = "";
    private volatile String version = "";

    StompConnection(StompSettings settings, Frames frames) {
        this.settings = settings;
        this.frames = frames;
    }

    /** Dials the broker and completes the STOMP handshake, or throws an IOException naming the broker. */
    void connect(ClientContext context, int maxBody) throws IOException {
        SslHandler tls = settings.tls() == null ? null : TlsClient.handler(context, settings.tls(), ALLOCATOR,
                settings.uri().host(), settings.uri().port());
        Bootstrap b = NettyIo.of(context).bootstrap(CONNECT_TIMEOUT_MS)
                .option(ChannelOption.ALLOCATOR, ALLOCATOR)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast("tls", tls);
                        }
                        install(ch.pipeline(), maxBody);
                    }
                });
        ChannelFuture f = NettyIo.connect(b, settings.uri().host(), settings.uri().port(), context);
        if (!f.awaitUninterruptibly(CONNECT_TIMEOUT_MS + 1_000L) || !f.isSuccess()) {
            Throwable c = f.cause();
            throw new IOException("cannot connect to the STOMP broker at " + settings.address() + ": "
                    + (c == null ? "no answer in " + CONNECT_TIMEOUT_MS + " ms" : c.getMessage())
                    + " (RabbitMQ: rabbitmq-plugins enable rabbitmq_stomp)", c);
        }
        channel = f.channel();
        if (tls != null) {
            awaitTls(tls);
        }
        handshake();
    }

    /** Waits for the TLS handshake; a failure is one line naming the broker and what the certificate check said. */
    private void awaitTls(SslHandler tls) throws IOException {
        io.netty.util.concurrent.Future<Channel> hs = tls.handshakeFuture();
        if (!hs.awaitUninterruptibly(CONNECT_TIMEOUT_MS) || !hs.isSuccess()) {
            channel.close();
            Throwable c = hs.cause();
            while (c != null && c.getCause() != null) {
                c = c.getCause();
            }
            throw new IOException("TLS handshake with the STOMP broker at " + settings.address() + " failed: "
                    + (c == null ? "no answer in " + CONNECT_TIMEOUT_MS + " ms" : String.valueOf(c.getMessage())
                    .replace('\n', ' ')) + " (--opt tls_ca=PEMFILE trusts a private CA; tls_verify=false trusts any "
                    + "certificate)", c);
        }
    }

    /** The pipeline: the codec, then this connection's handler. */
    void install(ChannelPipeline p, int maxBody) {
        p.addLast("stomp-decoder", new StompSubframeDecoder(MAX_LINE, Math.max(8192, maxBody), false));
        p.addLast("stomp-aggregator", new StompSubframeAggregator(Math.max(8192, maxBody)));
        p.addLast("stomp-encoder", new StompSubframeEncoder());
        p.addLast("stomp", new Handler());
    }

    /** Tests: takes a given channel (an {@code EmbeddedChannel} whose pipeline {@link #install} set up). */
    void attach(Channel ch) {
        channel = ch;
    }

    private void handshake() throws IOException {
        StompFrame connect = new DefaultStompFrame(StompCommand.CONNECT);
        StompHeaders h = connect.headers();
        h.set(StompHeaders.ACCEPT_VERSION, "1.2");
        h.set(StompHeaders.HOST, settings.vhost());
        h.set(StompHeaders.LOGIN, settings.uri().user());
        if (settings.uri().password() != null) {
            h.set(StompHeaders.PASSCODE, settings.uri().password());
        }
        h.set(StompHeaders.HEART_BEAT, "0,0");
        channel.writeAndFlush(connect);
        StompFrame reply = await(connected, "its CONNECTED frame (a RabbitMQ at its socket limit takes the TCP "
                + "connection and never answers: rabbitmqctl status shows Sockets and their limit)");
        server = header(reply, StompHeaders.SERVER);
        version = header(reply, StompHeaders.VERSION);
        reply.release();
    }

    /** Waits for {@code f} up to the connect timeout, turning a lost connection or silence into an IOException. */
    <T> T await(CompletableFuture<T> f, String what) throws IOException {
        try {
            return f.get(CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            close();
            throw new IOException("the STOMP broker at " + settings.address() + " did not send " + what + " in "
                    + CONNECT_TIMEOUT_MS + " ms");
        } catch (ExecutionException e) {
            close();
            throw new IOException("the STOMP broker at " + settings.address() + " ended the connection before "
                    + what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + what, e);
        }
    }

    static String header(StompFrame f, CharSequence name) {
        String v = f.headers().getAsString(name);
        return v == null ? "" : v;
    }

    /** An ERROR frame in one line: its {@code message} header and the start of its body. */
    static String describeError(StompFrame f) {
        String body = f.content().toString(StandardCharsets.UTF_8).strip().replace('\n', ' ');
        if (body.length() > 200) {
            body = body.substring(0, 200) + "...";
        }
        String m = header(f, StompHeaders.MESSAGE);
        return "ERROR " + (m.isEmpty() ? "" : "'" + m + "'") + (body.isEmpty() ? "" : ": " + body);
    }

    private final class Handler extends SimpleChannelInboundHandler<StompFrame> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, StompFrame f) {
            if (f.decoderResult().isFailure()) {
                lost("sent a frame the STOMP codec refused: " + f.decoderResult().cause().getMessage());
                ctx.close();
                return;
            }
            switch (f.command()) {
                case MESSAGE -> frames.onMessage(ctx, f);
                case RECEIPT -> frames.onReceipt(header(f, StompHeaders.RECEIPT_ID));
                case CONNECTED -> connected.complete(f.retain());
                case ERROR -> {
                    lost("sent " + describeError(f));
                    ctx.close();
                }
                default -> {
                    lost("sent an unexpected " + f.command() + " frame");
                    ctx.close();
                }
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            frames.onReadComplete(ctx);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            lost("closed the connection");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            lost("failed: " + cause.getMessage());
            ctx.close();
        }
    }

    /**
     * Records the first reason the connection ended ("the STOMP broker at ... WHY") and tells the owner; nothing when
     * msgscope closes it itself.
     */
    void lost(String why) {
        if (closing) {
            connected.completeExceptionally(new IOException("closed by msgscope"));
            return;
        }
        if (lostWhy != null) {
            return;
        }
        lostWhy = "the STOMP broker at " + settings.address() + " " + why;
        connected.completeExceptionally(new IOException(lostWhy));
        frames.onLost();
    }

    String lostReason() {
        return lostWhy;
    }

    boolean closing() {
        return closing;
    }

    Channel channel() {
        return channel;
    }

    Map<String, String> serverInfo() {
        return Map.of("broker", server.isEmpty() ? "STOMP" : server, "protocol", "STOMP " + version,
                "destination", settings.destination());
    }

    /** Sends DISCONNECT and closes the channel, waiting a little for the bytes to leave; idempotent. */
    void close() {
        closing = true;
        Channel ch = channel;
        if (ch != null && ch.isActive()) {
            ch.writeAndFlush(new DefaultStompFrame(StompCommand.DISCONNECT));
            ch.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        } else if (ch != null) {
            ch.close();
        }
    }
}
