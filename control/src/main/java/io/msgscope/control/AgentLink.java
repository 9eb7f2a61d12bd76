package io.msgscope.control;

import io.msgscope.core.NanoClock;
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
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;

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
    /**
     * The hub's clock: the handshake's deadline, the heartbeats' stamps and the progress stamps that the hub's waits
     * compare their deadlines with ({@link #progressChangedNs}) are read on it (issue 15: a test runs them on fake
     * time). The heartbeat's period and the silence check are timed by the channel's event loop.
     */
    private final NanoClock clock;
    volatile String closeCause;
    private volatile boolean closing;
    /** Reads held back by the hub: too many of this agent's frames are waiting to be taken. */
    volatile boolean paused;
    volatile boolean tlsRefused;
    /** The agent sent what cannot be decoded (an oversized or corrupt frame): the link was closed for it. */
    volatile boolean malformed;
    /** The agent's last reported progress (messages, from its heartbeat answers) and when it last grew. */
    private volatile long progress;
    private volatile long progressGrewNs;
    /** Bytes of this agent's frames delivered to the hub and not yet taken (inbox and early). */
    final java.util.concurrent.atomic.AtomicLong queued = new java.util.concurrent.atomic.AtomicLong();
    /** Frames and bytes kept for later because nothing waited for them (see ControlHub.await). */
    int earlyFrames;
    long earlyBytes;
    private HelloAck helloAck;
    /** The agent proved who it is (its certificate, the secret's proof, or, without credentials, its HelloAck). */
    volatile boolean authenticated;
    /** Heartbeats sent, answers heard, and heartbeats nobody asked for (all on the event loop). */
    long beatsSent;
    long beatsHeard;
    long unaskedBeats;

    /** A link over a connected {@code channel}, with progress stamped on {@code clock} (tests: any channel). */
    AgentLink(String name, Role role, Channel channel, Supplier<String> deathCheck, NanoClock clock) {
        this.name = name;
        this.role = role;
        this.channel = channel;
        this.deathCheck = deathCheck;
        this.clock = clock;
        this.progressGrewNs = clock.nanoTime();
    }

    /**
     * Connects and handshakes.
     *
     * @param deathCheck returns why the agent's process is dead, or null while it lives (local agents)
     */
    public static AgentLink connect(ControlHub hub, Role role, String host, int port, long timeoutMs,
                                    Supplier<String> deathCheck) throws AgentFailure {
        return connect(hub, role, host, port, timeoutMs, deathCheck, hub.credentials());
    }

    /** Heartbeat period, and the silence after which an agent counts as gone (issue 6: within 2 s). */
    public static final long HEARTBEAT_MS = 500;
    public static final long AGENT_SILENCE_MS = 2_000;

    /** With the shared secret alone as credentials. */
    public static AgentLink connect(ControlHub hub, Role role, String host, int port, long timeoutMs,
                                    Supplier<String> deathCheck, SharedSecret secret) throws AgentFailure {
        return connect(hub, role, host, port, timeoutMs, deathCheck, ControlCredentials.of(secret, null));
    }

    /**
     * Connects, secures and handshakes, all within {@code timeoutMs} on the hub's clock: TLS when the credentials have a CA
     * or a secret (except this process's own local agents, see {@link ControlCredentials#localSecret}),
     * the shared secret's proofs when there is one, then Hello. Until the agent has answered Hello its
     * frames are capped at {@link ControlCodec#HANDSHAKE_MAX_FRAME} bytes. A connection the agent drops
     * without a word before authenticating (pushed out by a crowd of others, issue 28) is tried again after
     * 50, 100, 200 ... 800 ms while the deadline allows.
     */
    public static AgentLink connect(ControlHub hub, Role role, String host, int port, long timeoutMs,
                                    Supplier<String> deathCheck, ControlCredentials credentials) throws AgentFailure {
        long deadline = hub.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        long backoffMs = 50;
        AgentFailure lastDrop = null; // why the attempts before this one failed, said if the deadline ends this one
        int drops = 0;
        while (true) {
            boolean[] dropped = new boolean[1];
            try {
                return connectOnce(hub, role, host, port, timeoutMs, deadline, deathCheck, credentials, dropped);
            } catch (AgentFailure e) {
                long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - hub.clock().nanoTime());
                if (!dropped[0] && lastDrop != null && !e.usage()) { // cut by the deadline after being dropped
                    String before = lastDrop.getMessage().substring(lastDrop.agent().length() + 2);
                    throw new AgentFailure(e.agent(), e.getMessage().substring(e.agent().length() + 2) + " (the "
                            + drops + " attempt(s) before: " + before + ")", false, e.kind());
                }
                if (!dropped[0] || leftMs <= backoffMs) {
                    throw e;
                }
                lastDrop = e;
                drops++;
            }
            try {
                Thread.sleep(backoffMs);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new AgentFailure(Frames.name(role) + " agent (" + host + ":" + port + ")",
                        "interrupted while connecting", false);
            }
            backoffMs = Math.min(800, backoffMs * 2);
        }
    }

    /** One attempt of {@link #connect} until {@code deadline}; {@code dropped[0]}: the agent hung up unauthenticated. */
    private static AgentLink connectOnce(ControlHub hub, Role role, String host, int port, long timeoutMs, long deadline,
                                         Supplier<String> deathCheck, ControlCredentials credentials, boolean[] dropped)
            throws AgentFailure {
        String name = Frames.name(role) + " agent (" + host + ":" + port + ")";
        NanoClock clock = hub.clock();
        SharedSecret local = ControlCredentials.localSecret(host, port);
        SharedSecret secret = local != null ? local : credentials.secret();
        ControlTls ca = local != null ? null : credentials.tls();
        boolean tls = local == null && !credentials.none();
        java.net.SocketAddress target = java.net.InetSocketAddress.createUnresolved(host, port);
        if (local == null && credentials.none()) {
            // plain frames: loopback only, checked on the very address dialled, before anything is sent (issue 28)
            java.net.InetAddress[] loopback = ControlCredentials.loopbackAddresses(host);
            if (loopback == null) {
                throw new AgentFailure(name, ControlCredentials.offLoopbackRefusal(host), true);
            }
            target = new java.net.InetSocketAddress(loopback[0], port);
        }
        AgentLink[] self = new AgentLink[1];
        // kept here, not looked up in the pipeline later: a peer that hangs up at once (a plain agent meeting TLS)
        // has the channel closed and its handlers removed before the handshake is awaited
        SslHandler[] sslHandler = new SslHandler[1];
        Bootstrap b = new Bootstrap().group(hub.group()).channel(NioSocketChannel.class)
                // what is left of the deadline: a second attempt does not start it again
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Math.max(1,
                        TimeUnit.NANOSECONDS.toMillis(deadline - clock.nanoTime())), Integer.MAX_VALUE))
                .option(ChannelOption.TCP_NODELAY, true)
                // no reads before the link exists: an agent may write (e.g. "busy") as soon as we connect
                .option(ChannelOption.AUTO_READ, false)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls) {
                            SslHandler h = ca != null ? ca.coordinatorHandler(ch.alloc(), credentials.tlsName(host), port)
                                    : ControlTls.unverifiedClientContext().newHandler(ch.alloc(), host, port);
                            h.setHandshakeTimeoutMillis(Math.max(1, timeoutMs));
                            sslHandler[0] = h;
                            ch.pipeline().addLast("tls", h);
                        }
                        ControlCodec.install(ch.pipeline(), ControlCodec.HANDSHAKE_MAX_FRAME);
                        ch.pipeline().addLast(new AgentLinkInbound(hub, () -> self[0]));
                    }
                });
        Channel ch;
        try {
            ch = b.connect(target).sync().channel();
        } catch (Exception e) {
            String dead = deathCheck.get();
            throw new AgentFailure(name, dead != null ? dead : "cannot connect: " + AgentSession.describe(e), false);
        }
        AgentLink link = new AgentLink(name, role, ch, deathCheck, clock);
        self[0] = link;
        hub.register(link);
        ch.config().setAutoRead(true);
        try {
            byte[] binding = new byte[0];
            if (tls) {
                SslHandler ssl = sslHandler[0];
                io.netty.util.concurrent.Future<Channel> hs = ssl.handshakeFuture();
                if (!hs.awaitUninterruptibly(link.left(deadline), TimeUnit.MILLISECONDS)) {
                    throw new AgentFailure(name, "no TLS handshake within " + timeoutMs + " ms", false);
                }
                if (!hs.isSuccess()) { // a refusal is the set-up's to fix; a dropped connection is not (issue 28)
                    throw new AgentFailure(name, "TLS handshake failed: " + ControlTls.describe(hs.cause()),
                            ControlTls.refusal(hs.cause()));
                }
                binding = ControlTls.binding(ssl.engine().getSession(), false);
                link.authenticated = ca != null; // its certificate is from the CA and names the host dialled
            }
            if (secret != null) {
                authenticate(hub, link, secret, binding, deadline);
            }
            link.send(Envelope.newBuilder().setHello(Hello.newBuilder().setProtocolVersion(Version.PROTOCOL)
                    .setRole(role).setToolVersion(Version.TOOL)).build());
            link.helloAck = hub.await(link, link.left(deadline), "the handshake", Envelope.BodyCase.HELLO_ACK)
                    .getHelloAck();
        } catch (AgentFailure e) {
            dropped[0] = !e.usage() && !link.authenticated && !link.tlsRefused && !link.malformed && !ch.isActive()
                    && !link.closing;
            link.close();
            hub.forget(link);
            if (link.tlsRefused && !e.usage()) { // TLS 1.3: a refused client certificate shows after the handshake
                throw new AgentFailure(name, "TLS handshake failed: " + link.closeCause, true);
            }
            throw e;
        }
        link.keepAlive();
        return link;
    }

    /**
     * Once the agent has answered Hello: a heartbeat every {@link #HEARTBEAT_MS}, stamped on the clock, and the
     * silence check, which closes the link after {@link #AGENT_SILENCE_MS} without a frame from the agent (unless
     * the hub holds its reads back). Until then the handshake's own deadline applies (an agent busy starting up
     * is not a dead agent).
     */
    void keepAlive() {
        var beat = channel.eventLoop().scheduleAtFixedRate(() -> {
            beatsSent++;
            channel.writeAndFlush(Envelope.newBuilder()
                    .setHeartbeat(io.msgscope.proto.Heartbeat.newBuilder().setNanos(clock.nanoTime())).build());
        }, HEARTBEAT_MS, HEARTBEAT_MS, TimeUnit.MILLISECONDS);
        channel.closeFuture().addListener(f -> beat.cancel(false));
        channel.eventLoop().execute(() -> channel.pipeline().addFirst("silence",
                new io.netty.handler.timeout.IdleStateHandler(AGENT_SILENCE_MS, 0, 0, TimeUnit.MILLISECONDS) {
                    @Override
                    protected void channelIdle(ChannelHandlerContext ctx, io.netty.handler.timeout.IdleStateEvent e) {
                        if (!paused) {
                            closeCause = "no heartbeat from the agent for " + AGENT_SILENCE_MS + " ms";
                            ctx.close();
                        }
                    }
                }));
    }

    /** What is left until {@code deadlineNs} on the clock, in ms (at least 1). */
    private long left(long deadlineNs) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - clock.nanoTime()));
    }

    /** Why a link broke, in one line (TLS refusals say what was refused). */
    static String describeFailure(Throwable cause) {
        return isTls(cause) ? ControlTls.describe(cause) : AgentSession.describe(cause);
    }

    static boolean isTls(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof javax.net.ssl.SSLException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The shared secret's proofs (see {@link SharedSecret}): the agent proves first, over both nonces
     * and the channel binding; only a verified agent gets the coordinator's proof. An agent that says it
     * needs no proof is refused (no downgrade), and so is a wrong proof, with nothing sent back.
     */
    private static void authenticate(ControlHub hub, AgentLink link, SharedSecret secret, byte[] binding,
                                     long deadline) throws AgentFailure {
        byte[] cn = SharedSecret.nonce();
        link.send(Envelope.newBuilder().setAuthRequest(io.msgscope.proto.AuthRequest.newBuilder()
                .setCoordinatorNonce(com.google.protobuf.ByteString.copyFrom(cn))).build());
        io.msgscope.proto.AuthChallenge c = hub.await(link, link.left(deadline), "authentication",
                Envelope.BodyCase.AUTH_CHALLENGE).getAuthChallenge();
        if (!c.getRequired()) {
            throw new AgentFailure(link.name(), "refused: it says it needs no shared secret, but this coordinator "
                    + "has one and trusts only agents that prove it (an agent started without the secret, or "
                    + "not a msgscope agent of this test network); nothing was sent to it", true);
        }
        byte[] an = c.getAgentNonce().toByteArray();
        if (an.length != SharedSecret.NONCE_BYTES
                || !SharedSecret.matches(secret.agentProof(cn, an, binding), c.getAgentProof().toByteArray())) {
            throw new AgentFailure(link.name(), "the agent could not prove the shared secret: wrong secret, "
                    + "not a msgscope agent of this test network, or a man in the middle; nothing was sent to it",
                    true);
        }
        link.authenticated = true;
        link.send(Envelope.newBuilder().setAuthResponse(io.msgscope.proto.AuthResponse.newBuilder()
                .setCoordinatorProof(com.google.protobuf.ByteString.copyFrom(
                        secret.coordinatorProof(cn, an, binding)))).build());
        hub.await(link, link.left(deadline), "authentication", Envelope.BodyCase.AUTH_OK);
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

    /** Whether the agent has proven who it is: until then its words decide nothing (issue 28). */
    boolean authenticated() {
        return authenticated;
    }

    public HelloAck helloAck() {
        return helloAck;
    }

    public Role role() {
        return role;
    }

    /** Event loop: a heartbeat answer with the agent's progress. */
    void heard(long p) {
        if (p != progress) {
            progress = p;
            progressGrewNs = clock.nanoTime();
        }
    }

    /** Messages the agent's role has handled in the current phase, as its last heartbeat said (issue 18). */
    public long progress() {
        return progress;
    }

    /** The hub's clock when the reported progress last changed (the link's creation before that). */
    public long progressChangedNs() {
        return progressGrewNs;
    }

    /** Starts a new wait for progress: the stall clock counts from now. */
    public void progressWatchFromNow() {
        progressGrewNs = clock.nanoTime();
    }

    public String name() {
        return name;
    }

    /** host:port the coordinator reached the agent at. */
    public String address() {
        java.net.SocketAddress a = channel.remoteAddress();
        return a instanceof java.net.InetSocketAddress i ? i.getHostString() + ":" + i.getPort() : String.valueOf(a);
    }

    /** Holds back or resumes reading this agent's frames (the hub's bound on what it keeps). */
    void autoRead(boolean on) {
        paused = !on;
        channel.config().setAutoRead(on);
    }

    /** Resumes reading (from any thread): the hub has taken enough of this agent's frames. */
    void resumeReading() {
        channel.eventLoop().execute(() -> autoRead(true));
    }

    /** Fails the link: the connection is closed with {@code cause} as its reason. */
    void fail(String cause) {
        if (closeCause == null) {
            closeCause = cause;
        }
        channel.close();
    }

    @Override
    public void close() {
        closing = true;
        channel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
    }
}
