package io.msgscope.control;

import io.msgscope.core.SpecException;
import io.msgscope.proto.Role;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.concurrent.ScheduledFuture;

import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * An agent's control server: listens for the coordinator (the same code path for a local child
 * process and a remote host, D7), serves one session at a time and, in once mode, exits after the
 * first session.
 *
 * <p>Nothing before authentication (issue 14): a connection is only a candidate until its peer has
 * authenticated (TLS with a client certificate from the CA, the shared secret's proof, or, with no
 * credentials on loopback, a valid Hello). Until then it has {@link Config#handshakeMs} for the whole
 * handshake (not per read: a byte every few seconds does not hold it), a frame cap of
 * {@link #PRE_AUTH_FRAME} bytes, and a place among at most {@link Config#maxUnauthenticated}
 * candidates (a new one pushes out the oldest). The agent becomes busy only when a peer has
 * authenticated; a second authenticated coordinator is told the agent is busy. Refusals are logged at
 * a bounded rate ({@link RateLimitedLog}).
 */
public final class AgentServer implements AutoCloseable {
    /** Seconds without any frame from the coordinator after which the agent drops the session. */
    public static final int COORDINATOR_SILENCE_S = 15;
    /** Seconds a peer has for its whole handshake (TLS, proof, Hello) before it is dropped. */
    public static final int HANDSHAKE_S = 10;
    /** Connections that have not authenticated yet, at most; a new one pushes out the oldest. */
    public static final int MAX_UNAUTHENTICATED = 64;
    /** Frame cap before authentication: the handshake frames are tens of bytes. */
    public static final int PRE_AUTH_FRAME = 4096;

    /** How an agent server runs; a builder with the defaults above. */
    public static final class Config {
        final Role role;
        final Supplier<AgentRole> factory;
        boolean once;
        int maxFrame = ControlCodec.DEFAULT_MAX_FRAME;
        ControlCredentials credentials = ControlCredentials.NONE;
        long handshakeMs = TimeUnit.SECONDS.toMillis(HANDSHAKE_S);
        int maxUnauthenticated = MAX_UNAUTHENTICATED;
        long firstSessionDeadlineMs;
        PrintStream log = System.err;

        public Config(Role role, Supplier<AgentRole> factory) {
            this.role = role;
            this.factory = factory;
        }

        /** Exit after the first authenticated session. */
        public Config once(boolean once) {
            this.once = once;
            return this;
        }

        public Config maxFrame(int maxFrame) {
            this.maxFrame = maxFrame;
            return this;
        }

        public Config credentials(ControlCredentials credentials) {
            this.credentials = credentials == null ? ControlCredentials.NONE : credentials;
            return this;
        }

        public Config handshakeMs(long ms) {
            this.handshakeMs = ms;
            return this;
        }

        public Config maxUnauthenticated(int n) {
            this.maxUnauthenticated = n;
            return this;
        }

        /** Stop when no coordinator has authenticated within this many ms of listening (0: never). */
        public Config firstSessionDeadlineMs(long ms) {
            this.firstSessionDeadlineMs = ms;
            return this;
        }

        /** Where refusals and dropped connections are logged (the agent's stderr). */
        public Config log(PrintStream log) {
            this.log = log;
            return this;
        }
    }

    private final Config cfg;
    private final EventLoopGroup group;
    private final CountDownLatch terminated = new CountDownLatch(1);
    /** The authenticated session's channel while there is one: the agent is busy. */
    private final AtomicReference<Channel> owner = new AtomicReference<>();
    /** Connections whose peers have not authenticated yet, oldest first. */
    private final LinkedHashSet<Channel> candidates = new LinkedHashSet<>();
    private final RateLimitedLog refusals;
    private final Supplier<SslContext> tls;
    private volatile Channel serverChannel;
    private volatile boolean everAuthenticated;
    private volatile boolean stopping;
    private volatile String exitReason;

    private AgentServer(Config cfg, EventLoopGroup group) {
        this.cfg = cfg;
        this.group = group;
        this.refusals = RateLimitedLog.standard(cfg.log, "msgscope agent (" + Frames.name(cfg.role) + "): ");
        ControlCredentials c = cfg.credentials;
        if (c.tls() != null) {
            SslContext ctx = c.tls().agentContext();
            this.tls = () -> ctx;
        } else if (c.secret() != null) {
            this.tls = new Supplier<>() { // a throw-away identity, made at the first TLS client
                private SslContext ctx;

                @Override
                public synchronized SslContext get() {
                    if (ctx == null) {
                        ctx = ControlTls.ephemeralAgentContext("msgscope " + Frames.name(cfg.role) + " agent");
                    }
                    return ctx;
                }
            };
        } else {
            this.tls = null;
        }
    }

    public static AgentServer start(String host, int port, Role role, Supplier<AgentRole> factory, boolean once,
                                    int maxFrame) throws InterruptedException {
        return start(host, port, new Config(role, factory).once(once).maxFrame(maxFrame));
    }

    /**
     * @param secret when not null, every coordinator must prove the shared secret first
     */
    public static AgentServer start(String host, int port, Role role, Supplier<AgentRole> factory, boolean once,
                                    int maxFrame, SharedSecret secret) throws InterruptedException {
        return start(host, port, new Config(role, factory).once(once).maxFrame(maxFrame)
                .credentials(ControlCredentials.of(secret, null)));
    }

    public static AgentServer start(String host, int port, Config cfg) throws InterruptedException {
        io.msgscope.core.EnvironmentInfo.current(); // the slow hardware lookup, before anyone can connect
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        AgentServer server = new AgentServer(cfg, group);
        ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        server.admit(ch);
                    }
                });
        try {
            server.serverChannel = b.bind(new InetSocketAddress(host, port)).sync().channel();
        } catch (Exception e) {
            group.shutdownGracefully();
            if (e instanceof BindException) {
                throw new SpecException("--listen", "cannot listen on " + host + ":" + port + " ("
                        + e.getMessage() + ")");
            }
            throw e;
        }
        if (cfg.firstSessionDeadlineMs > 0) {
            group.schedule(() -> {
                if (!server.everAuthenticated) {
                    server.stop("no coordinator connected within " + cfg.firstSessionDeadlineMs / 1000 + " s");
                }
            }, cfg.firstSessionDeadlineMs, TimeUnit.MILLISECONDS);
        }
        return server;
    }

    /** A new connection: a candidate with a deadline, behind the TLS sniffer, a small frame cap and a session. */
    private void admit(SocketChannel ch) {
        Channel evicted = null;
        synchronized (candidates) {
            if (candidates.size() >= cfg.maxUnauthenticated) {
                evicted = CandidateProgress.stalest(candidates);
                candidates.remove(evicted);
            }
            candidates.add(ch);
        }
        if (evicted != null) {
            refused(evicted, "dropped: " + cfg.maxUnauthenticated + " connections waiting to authenticate, "
                    + "this was the one idle longest");
            evicted.close();
        }
        ch.pipeline().addLast("progress", new CandidateProgress.Marker());
        ScheduledFuture<?> deadline = ch.eventLoop().schedule(() -> {
            if (isCandidate(ch)) {
                refused(ch, "did not authenticate within " + cfg.handshakeMs + " ms");
                ch.close();
            }
        }, cfg.handshakeMs, TimeUnit.MILLISECONDS);
        ch.closeFuture().addListener(f -> {
            deadline.cancel(false);
            boolean wasCandidate;
            synchronized (candidates) {
                wasCandidate = candidates.remove(ch);
            }
            if (wasCandidate && !Boolean.TRUE.equals(ch.attr(REFUSED).get())) {
                // e.g. a coordinator that found this agent's proof wrong: it hangs up without proving anything
                refused(ch, "closed by the peer before authenticating (a coordinator with another secret or CA?)");
            }
        });
        ch.pipeline().addLast("sniff", new Sniffer());
        ControlCodec.install(ch.pipeline(), PRE_AUTH_FRAME);
        ch.pipeline().addLast("session", new AgentSession(cfg.role, cfg.factory, () -> sessionEnded(ch),
                cfg.credentials.secret(), gate));
    }

    private boolean isCandidate(Channel ch) {
        synchronized (candidates) {
            return candidates.contains(ch);
        }
    }

    private final AgentSession.Gate gate = new AgentSession.Gate() {
        @Override
        public boolean claim(Channel ch) {
            synchronized (candidates) {
                if (!candidates.remove(ch)) {
                    return false; // dropped meanwhile (deadline, eviction)
                }
            }
            if (stopping || !owner.compareAndSet(null, ch)) {
                return false;
            }
            everAuthenticated = true;
            // the run's frame cap, and a coordinator that stops talking (it sends heartbeats) is gone
            ControlCodec.maxFrame(ch.pipeline(), cfg.maxFrame);
            ch.pipeline().addFirst("idle", new ReadTimeoutHandler(COORDINATOR_SILENCE_S, TimeUnit.SECONDS));
            return true;
        }

        @Override
        public void refused(Channel ch, String why) {
            AgentServer.this.refused(ch, why);
        }

        @Override
        public boolean tlsOnly() {
            return cfg.credentials.tls() != null && cfg.credentials.secret() == null;
        }
    };

    private static final io.netty.util.AttributeKey<Boolean> REFUSED = io.netty.util.AttributeKey.valueOf("refused");

    private void refused(Channel ch, String why) {
        ch.attr(REFUSED).set(true);
        refusals.log("refused control connection from " + address(ch) + ": " + why);
    }

    static String address(Channel ch) {
        return ch.remoteAddress() instanceof InetSocketAddress a ? a.getHostString() + ":" + a.getPort()
                : String.valueOf(ch.remoteAddress());
    }

    private void sessionEnded(Channel ch) {
        if (owner.compareAndSet(ch, null) && (cfg.once || stopping)) {
            close();
        }
    }

    /** Stops serving: ends the current session if any (its role closes first), else at once. */
    public void stop(String reason) {
        if (exitReason == null) {
            exitReason = reason;
        }
        stopping = true;
        Channel o = owner.get();
        if (o != null) {
            o.close(); // the session ends, its role closes, then sessionEnded closes the server
        } else {
            close();
        }
    }

    /** Stops when the process {@code pid} exits (a coordinator that started this agent and died). */
    public void stopWhenProcessExits(long pid) {
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            io.msgscope.core.ParentProcess.whenGone(pid, () -> stop("the parent process " + pid + " exited"));
        } else {
            stop("the parent process " + pid + " is not running");
        }
    }

    /** Why the server stopped without serving (no coordinator within the deadline, parent gone), else null. */
    public String exitReason() {
        return exitReason;
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Connections waiting to authenticate (tests). */
    int candidates() {
        synchronized (candidates) {
            return candidates.size();
        }
    }

    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    @Override
    public void close() {
        Channel s = serverChannel;
        if (s != null) {
            s.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).addListener(f -> terminated.countDown());
    }

    /**
     * The first bytes decide: a TLS record (0x16, handshake) gets the agent's TLS; anything else is
     * plain control frames, allowed only without a CA, and with a shared secret only from loopback
     * (LocalAgents' children; off loopback a coordinator with a secret always speaks TLS).
     */
    private final class Sniffer extends ByteToMessageDecoder {
        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (!in.isReadable()) {
                return;
            }
            boolean tlsRecord = in.getUnsignedByte(in.readerIndex()) == 0x16;
            Channel ch = ctx.channel();
            ControlCredentials c = cfg.credentials;
            if (tlsRecord && tls != null) {
                SslHandler h = tls.get().newHandler(ch.alloc());
                h.setHandshakeTimeoutMillis(cfg.handshakeMs);
                ctx.pipeline().replace(this, "tls", h);
                return;
            }
            String why = null;
            if (tlsRecord) {
                why = "a TLS client, but this agent has no --tls-dir and no shared secret (plain control frames "
                        + "on loopback only)";
            } else if (c.tls() != null) {
                why = "plain text, but this agent requires TLS: give the coordinator --tls-dir with a certificate "
                        + "from this agent's CA";
            } else if (c.secret() != null && !loopbackPeer(ch)) {
                why = "plain text from another host: this agent requires the shared secret (--secret-file or "
                        + "MSGSCOPE_SECRET), and off loopback the control channel runs over TLS";
            }
            if (why == null) {
                ctx.pipeline().remove(this);
                return;
            }
            in.skipBytes(in.readableBytes());
            ch.config().setAutoRead(false);
            refused(ch, why);
            if (!tlsRecord) { // a plain peer can read a plain error frame; a TLS client could not
                ch.writeAndFlush(Frames.error(cfg.role, why, true)).addListener(ChannelFutureListener.CLOSE);
            } else {
                ch.close();
            }
        }
    }

    private static boolean loopbackPeer(Channel ch) {
        return ch.remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null
                && a.getAddress().isLoopbackAddress();
    }
}
