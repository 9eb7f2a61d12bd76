package io.msgscope.netty;

import io.msgscope.core.driver.ClientContext;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The Netty event loops of one agent (issue 13): {@link ClientContext#ioThreads()} NIO loops, daemon
 * threads named {@code msgscope-io-N}, made on first use and shared by every connection a lean engine
 * opens in that context, so thousands of connections run on a thread or two. Closed with the context.
 */
public final class NettyIo implements AutoCloseable {
    private final EventLoopGroup group;

    private NettyIo(int threads) {
        group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("msgscope-io", true),
                NioIoHandler.newFactory());
    }

    /** The context's event loops, made on first use. */
    public static NettyIo of(ClientContext context) {
        return context.resource(NettyIo.class, () -> new NettyIo(context.ioThreads()));
    }

    public EventLoopGroup group() {
        return group;
    }

    /** A client bootstrap on these loops: NIO, TCP_NODELAY (a latency tool never waits for Nagle), a connect timeout. */
    public Bootstrap bootstrap(int connectTimeoutMs) {
        return new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMs);
    }

    /** Connects to {@code host:port}, the socket bound to the context's next source address when it has any. */
    public static ChannelFuture connect(Bootstrap b, String host, int port, ClientContext context) {
        InetAddress source = context.nextSourceAddress();
        InetSocketAddress remote = new InetSocketAddress(host, port);
        return source == null ? b.connect(remote) : b.connect(remote, new InetSocketAddress(source, 0));
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
