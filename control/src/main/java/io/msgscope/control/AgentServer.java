package io.msgscope.control;

import io.msgscope.core.SpecException;
import io.msgscope.proto.Role;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * An agent's control server: listens for the coordinator (the same code path for a local child
 * process and a remote host, D7), serves one session at a time and, in once mode, exits after the
 * first session. A second coordinator connecting while a run is active is told the agent is busy.
 */
public final class AgentServer implements AutoCloseable {
    /** Seconds without any frame from the coordinator after which the agent drops the session. */
    public static final int COORDINATOR_SILENCE_S = 15;

    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final AtomicBoolean busy = new AtomicBoolean();

    private AgentServer(EventLoopGroup group, Channel serverChannel) {
        this.group = group;
        this.serverChannel = serverChannel;
    }

    public static AgentServer start(String host, int port, Role role, Supplier<AgentRole> factory, boolean once,
                                    int maxFrame) throws InterruptedException {
        return start(host, port, role, factory, once, maxFrame, null);
    }

    /**
     * @param secret when not null, every coordinator must prove the shared secret first
     */
    public static AgentServer start(String host, int port, Role role, Supplier<AgentRole> factory, boolean once,
                                    int maxFrame, SharedSecret secret) throws InterruptedException {
        io.msgscope.core.EnvironmentInfo.current(); // the slow hardware lookup, before anyone can connect
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        AgentServer[] self = new AgentServer[1];
        ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        AgentServer server = self[0];
                        if (!server.busy.compareAndSet(false, true)) {
                            ControlCodec.install(ch.pipeline(), maxFrame);
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelActive(ChannelHandlerContext ctx) {
                                    ctx.writeAndFlush(Frames.error(role, "agent busy with another run", false))
                                            .addListener(f -> ctx.close());
                                }
                            });
                            return;
                        }
                        // a coordinator that stops talking (it sends heartbeats) is gone: reset for the next run
                        ch.pipeline().addLast("idle", new io.netty.handler.timeout.ReadTimeoutHandler(
                                COORDINATOR_SILENCE_S, java.util.concurrent.TimeUnit.SECONDS));
                        ControlCodec.install(ch.pipeline(), maxFrame);
                        ch.pipeline().addLast(new AgentSession(role, factory, () -> {
                            server.busy.set(false);
                            if (once) {
                                server.close();
                            }
                        }, secret));
                    }
                });
        try {
            Channel ch = b.bind(new InetSocketAddress(host, port)).sync().channel();
            self[0] = new AgentServer(group, ch);
            return self[0];
        } catch (Exception e) {
            group.shutdownGracefully();
            if (e instanceof BindException) {
                throw new SpecException("--listen", "cannot listen on " + host + ":" + port + " ("
                        + e.getMessage() + ")");
            }
            throw e;
        }
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    @Override
    public void close() {
        serverChannel.close();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS)
                .addListener(f -> terminated.countDown());
    }
}
