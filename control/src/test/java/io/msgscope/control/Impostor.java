package io.msgscope.control;

import com.google.protobuf.ByteString;
import io.msgscope.proto.AuthChallenge;
import io.msgscope.proto.Envelope;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A fake agent (issue 14, finding 1): speaks TLS with a certificate of its own, answers the
 * coordinator's nonce by saying it needs no proof, and records every frame it gets (the run spec,
 * with the broker's password, is what it is after).
 */
final class Impostor implements AutoCloseable {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private final List<Envelope.BodyCase> received = new CopyOnWriteArrayList<>();

    Impostor() throws InterruptedException {
        SslContext tls = ControlTls.ephemeralAgentContext("impostor");
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        ControlCodec.install(ch.pipeline(), ControlCodec.DEFAULT_MAX_FRAME);
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<Envelope>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, Envelope env) {
                                received.add(env.getBodyCase());
                                if (env.getBodyCase() == Envelope.BodyCase.AUTH_REQUEST) {
                                    ctx.writeAndFlush(Envelope.newBuilder().setAuthChallenge(AuthChallenge.newBuilder()
                                            .setAgentNonce(ByteString.copyFrom(SharedSecret.nonce()))
                                            .setRequired(false)).build());
                                }
                            }
                        });
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    List<Envelope.BodyCase> received() {
        return received;
    }

    @Override
    public void close() {
        server.close();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
