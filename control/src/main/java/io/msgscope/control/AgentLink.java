package io.msgscope.control;

import io.msgscope.core.Version;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Hello;
import io.msgscope.proto.HelloAck;
import io.msgscope.proto.Role;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The coordinator's side of one agent connection. Every frame it receives, and its closing, goes
 * to the {@link ControlHub} shared by all agents of a run, so a failure of any agent is seen
 * whichever agent the coordinator is waiting for.
 */
public final class AgentLink implements AutoCloseable {
    private final String name;
    private final Role role;
    private final Channel channel;
    private final Supplier<String> deathCheck;
    private volatile String closeCause;
    private volatile boolean closing;
    private HelloAck helloAck;

    private AgentLink(String name, Role role, Channel channel, Supplier<String> deathCheck) {
        this.name = name;
        this.role = role;
        this.channel = channel;
        this.deathCheck = deathCheck;
    }

    /**
     * Connects and handshakes.
     *
     * @param deathCheck returns why the agent's process is dead, or null while it lives (local agents)
     */
    public static AgentLink connect(ControlHub hub, Role role, String host, int port, long timeoutMs,
                                    Supplier<String> deathCheck) throws AgentFailure {
        return connect(hub, role, host, port, timeoutMs, deathCheck, hub.secret());
    }

    /** Heartbeat period, and the silence after which an agent counts as gone (issue 6: within 2 s). */
    public static final long HEARTBEAT_MS = 500;
    public static final long AGENT_SILENCE_MS = 2_000;

    public static AgentLink connect(ControlHub hub, Role role, String host, int port, long timeoutMs,
                                    Supplier<String> deathCheck, SharedSecret secret) throws AgentFailure {
        String name = Frames.name(role) + " agent (" + host + ":" + port + ")";
        AgentLink[] self = new AgentLink[1];
        Bootstrap b = new Bootstrap().group(hub.group()).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(timeoutMs, Integer.MAX_VALUE))
                .option(ChannelOption.TCP_NODELAY, true)
                // no reads before the link exists: an agent may write (e.g. "busy") as soon as we connect
                .option(ChannelOption.AUTO_READ, false)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ControlCodec.install(ch.pipeline(), hub.maxFrame());
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<Envelope>() {
                            @Override
                            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                                if (evt instanceof io.netty.handler.timeout.IdleStateEvent && self[0] != null) {
                                    self[0].closeCause = "no heartbeat from the agent for " + AGENT_SILENCE_MS + " ms";
                                    ctx.close();
                                }
                            }

                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, Envelope msg) {
                                hub.deliver(self[0], msg);
                            }

                            @Override
                            public void channelInactive(ChannelHandlerContext ctx) {
                                hub.deliver(self[0], null);
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                self[0].closeCause = AgentSession.describe(cause);
                                ctx.close();
                            }
                        });
                    }
                });
        Channel ch;
        try {
            ch = b.connect(host, port).sync().channel();
        } catch (Exception e) {
            String dead = deathCheck.get();
            throw new AgentFailure(name, dead != null ? dead : "cannot connect: " + AgentSession.describe(e), false);
        }
        AgentLink link = new AgentLink(name, role, ch, deathCheck);
        self[0] = link;
        hub.register(link);
        ch.config().setAutoRead(true);
        if (secret != null) {
            authenticate(hub, link, secret, timeoutMs);
        }
        var beat = ch.eventLoop().scheduleAtFixedRate(() -> ch.writeAndFlush(Envelope.newBuilder().setHeartbeat(
                io.msgscope.proto.Heartbeat.newBuilder().setNanos(System.nanoTime())).build()),
                HEARTBEAT_MS, HEARTBEAT_MS, TimeUnit.MILLISECONDS);
        ch.closeFuture().addListener(f -> beat.cancel(false));
        link.send(Envelope.newBuilder().setHello(Hello.newBuilder().setProtocolVersion(Version.PROTOCOL)
                .setRole(role).setToolVersion(Version.TOOL)).build());
        link.helloAck = hub.await(link, timeoutMs, "the handshake", Envelope.BodyCase.HELLO_ACK).getHelloAck();
        // the 2 s silence check starts once the agent has answered: until then the handshake's own
        // deadline applies (an agent busy starting up is not a dead agent)
        ch.eventLoop().execute(() -> ch.pipeline().addFirst("silence", new io.netty.handler.timeout.IdleStateHandler(
                AGENT_SILENCE_MS, 0, 0, TimeUnit.MILLISECONDS)));
        return link;
    }

    /** Mutual proof of the shared secret before Hello (see control.proto, AuthRequest). */
    private static void authenticate(ControlHub hub, AgentLink link, SharedSecret secret, long timeoutMs)
            throws AgentFailure {
        byte[] nonce = SharedSecret.nonce();
        link.send(Envelope.newBuilder().setAuthRequest(io.msgscope.proto.AuthRequest.newBuilder()
                .setCoordinatorNonce(com.google.protobuf.ByteString.copyFrom(nonce))).build());
        io.msgscope.proto.AuthChallenge c = hub.await(link, timeoutMs, "authentication",
                Envelope.BodyCase.AUTH_CHALLENGE).getAuthChallenge();
        if (!c.getRequired()) {
            return; // the agent runs without a secret (it then listens on loopback only)
        }
        if (!SharedSecret.matches(secret.agentProof(nonce), c.getAgentProof().toByteArray())) {
            // still answer, so that a genuine agent with another secret logs the refused attempt
            link.send(Envelope.newBuilder().setAuthResponse(io.msgscope.proto.AuthResponse.newBuilder()
                    .setCoordinatorProof(com.google.protobuf.ByteString.copyFrom(
                            secret.coordinatorProof(c.getAgentNonce().toByteArray())))).build());
            throw new AgentFailure(link.name(), "the agent could not prove the shared secret: wrong secret, "
                    + "or not a msgscope agent of this test network", true);
        }
        link.send(Envelope.newBuilder().setAuthResponse(io.msgscope.proto.AuthResponse.newBuilder()
                .setCoordinatorProof(com.google.protobuf.ByteString.copyFrom(
                        secret.coordinatorProof(c.getAgentNonce().toByteArray())))).build());
        hub.await(link, timeoutMs, "authentication", Envelope.BodyCase.AUTH_OK);
    }

    public void send(Envelope env) {
        channel.writeAndFlush(env);
    }

    /** Why the agent is gone, for a lost connection. */
    String lossReason() {
        String dead = deathCheck.get();
        if (dead != null) {
            return dead;
        }
        return "control connection lost" + (closeCause != null ? " (" + closeCause + ")" : "");
    }

    String deathReason() {
        return deathCheck.get();
    }

    boolean closing() {
        return closing;
    }

    public HelloAck helloAck() {
        return helloAck;
    }

    public Role role() {
        return role;
    }

    public String name() {
        return name;
    }

    /** host:port the coordinator reached the agent at. */
    public String address() {
        java.net.SocketAddress a = channel.remoteAddress();
        return a instanceof java.net.InetSocketAddress i ? i.getHostString() + ":" + i.getPort() : String.valueOf(a);
    }

    @Override
    public void close() {
        closing = true;
        channel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
    }
}
