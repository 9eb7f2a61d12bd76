package io.msgscope.driver.nats.netty;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.netty.NettyIo;
import io.msgscope.driver.nats.NatsSettings;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderException;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * One core-NATS connection of the lean engine, shared by {@link NettyNatsPublisher} and
 * {@link NettyNatsSubscriber}: a Netty channel on the agent's event loops ({@link NettyIo#of}), its socket bound
 * to the context's next source address. Set-up, each step with a deadline: TCP connect, the server's INFO, the TLS
 * handshake when the URI is {@code tls://} or the INFO says {@code tls_required} (nats-server 2.9 sends its INFO in
 * plain text and then expects the handshake), then {@code CONNECT} (verbose and pedantic off, credentials from the
 * options or the URI) and a PING whose PONG says the server took it. A {@code -ERR} instead of that PONG (e.g.
 * {@code 'Authorization Violation'}) is a {@link Fault.Kind#REFUSED}; no listener, no INFO or a failed handshake a
 * {@link Fault.Kind#CONNECT_FAILED}; both one line naming the server's address.
 *
 * <p>Afterwards the server's PINGs are answered with PONG, PONGs are counted (a PING/PONG round trip says the
 * server has processed everything sent before it), {@code -ERR 'Slow Consumer'} is counted, and any other
 * {@code -ERR} or a protocol error ends the connection with a one-line reason. A lost connection is reported to the
 * owner once ({@link Owner#onLost}); it never comes back: with {@code --opt reconnect=true} the owner dials a new one
 * ({@link NatsReconnect}). With {@code --opt ping_interval} the owner starts {@link NatsKeepAlive}, the client's own
 * PINGs, which notice a silent server. The set-up's TLS upgrade, CONNECT line and deadlines are
 * {@link NatsHandshake}'s.
 */
final class NettyNatsConnection implements NatsFramer.Listener {
    static final int CONNECT_TIMEOUT_MS = (int) NatsSettings.CONNECT_TIMEOUT.toMillis();
    private static final byte[] PING = "PING\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PONG = "PONG\r\n".getBytes(StandardCharsets.US_ASCII);

    /** The publisher's or subscriber's side, called on the event loop. */
    interface Owner {
        /** One message for subscription {@code sid}: its payload is {@code in[at, at + length)}. */
        default void onMsg(NettyNatsConnection c, ByteBuf in, long sid, int at, int length) {
            c.drop("sent a MSG (subscription id " + sid + ") to a connection that subscribed to nothing");
        }

        /** The server sent {@code -ERR 'Slow Consumer'}. */
        default void onSlowConsumer() {
        }

        /** The connection ended; {@link #lostReason} says why. Called once, also after {@link #close}. */
        default void onLost() {
        }
    }

    final NatsSettings settings;
    private final Owner owner;
    private final CompletableFuture<NatsInfo> infoArrived = new CompletableFuture<>();
    private final CompletableFuture<Void> accepted = new CompletableFuture<>();
    private final AtomicLong pongs = new AtomicLong();
    private final AtomicLong pingsAnswered = new AtomicLong();
    private volatile NatsInfo info;
    private volatile String lostWhy;
    private volatile Fault.Kind lostKind = Fault.Kind.CONNECTION_LOST;
    private volatile boolean closing;
    private volatile Thread waiter;
    private volatile boolean tlsUsed;
    Channel channel;

    private NettyNatsConnection(NatsSettings s, Owner owner) {
        this.settings = s;
        this.owner = owner;
    }

    /** Connects, upgrades to TLS when asked, sends CONNECT and waits for the PONG that says the server took it. */
    static NettyNatsConnection open(NatsSettings s, ClientContext context, String role, Owner owner) throws IOException {
        NettyNatsConnection c = new NettyNatsConnection(s, owner);
        try {
            c.handshake(context, role);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** A connection on a channel made elsewhere (tests: an EmbeddedChannel), past its set-up. */
    static NettyNatsConnection attach(NatsSettings s, Owner owner, Channel ch) {
        NettyNatsConnection c = new NettyNatsConnection(s, owner);
        c.channel = ch;
        c.install(ch.pipeline());
        return c;
    }

    private void install(ChannelPipeline p) {
        p.addLast("nats", new NatsFramer(this)).addLast("events", new Events());
    }

    private void handshake(ClientContext context, String role) throws IOException {
        Bootstrap b = NettyIo.of(context).bootstrap(CONNECT_TIMEOUT_MS).handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                install(ch.pipeline());
            }
        });
        // the pooled allocator: buffers recycled on the event loop and their NIO views reused. Netty 4.2's default
        // (adaptive) allocator made a ByteBuffer slice per socket read and write, ~70 bytes of garbage per message
        // at paced rates, where every read or write carries one message
        b.option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT);
        if (settings.socketBuffer() > 0) {
            b.option(ChannelOption.SO_RCVBUF, settings.socketBuffer()).option(ChannelOption.SO_SNDBUF, settings.socketBuffer());
        }
        ChannelFuture cf = NettyIo.connect(b, settings.host(), settings.port(), context);
        if (!cf.awaitUninterruptibly(2L * CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS) || !cf.isSuccess()) {
            String why = cf.cause() == null ? "no answer within " + 2 * CONNECT_TIMEOUT_MS / 1000 + " s"
                    : NatsSettings.oneLine(cf.cause());
            channel = cf.channel();
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to NATS at " + settings.address() + ": " + why,
                    cf.cause());
        }
        channel = cf.channel();
        NatsInfo i = NatsHandshake.await(infoArrived, settings, "no INFO");
        if (settings.tls() && !i.tlsRequired() && !i.tlsAvailable()) {
            throw new Fault(Fault.Kind.CONNECT_FAILED, "NATS at " + settings.address() + " offers no TLS (its INFO has "
                    + "neither tls_required nor tls_available), but --uri asks for tls://");
        }
        if (settings.tls() || i.tlsRequired()) {
            NatsHandshake.upgrade(channel, context, settings);
            tlsUsed = true;
        }
        channel.writeAndFlush(Unpooled.wrappedBuffer(NatsHandshake.connect(settings, role, i), PING));
        NatsHandshake.await(accepted, settings, "no PONG after CONNECT");
    }

    // ---- the framer's events, on the event loop

    @Override
    public void onInfo(ChannelHandlerContext ctx, NatsInfo i) {
        if (info == null) {
            info = i;
            infoArrived.complete(i);
        } // later INFOs announce cluster changes: a reconnect dials the URI list only
    }

    @Override
    public void onMsg(ByteBuf in, long sid, int at, int length) {
        owner.onMsg(this, in, sid, at, length);
    }

    @Override
    public void onPing(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(ctx.alloc().buffer(PONG.length).writeBytes(PONG), ctx.voidPromise());
        pingsAnswered.incrementAndGet();
    }

    @Override
    public void onPong() {
        if (pongs.incrementAndGet() == 1) {
            accepted.complete(null);
        }
        wake();
    }

    @Override
    public void onErr(ChannelHandlerContext ctx, String message) {
        if (message.equalsIgnoreCase("Slow Consumer")) {
            owner.onSlowConsumer();
            return;
        }
        String lower = message.toLowerCase(Locale.ROOT);
        boolean refusal = lower.contains("authorization") || lower.contains("authentication")
                || lower.contains("permissions violation") || lower.contains("tls required");
        if (!accepted.isDone()) {
            accepted.completeExceptionally(new Fault(Fault.Kind.REFUSED, "NATS at " + settings.address()
                    + " refused the connection: -ERR '" + message + "'"));
        }
        lost(refusal ? Fault.Kind.REFUSED : Fault.Kind.CONNECTION_LOST, "the server sent -ERR '" + message + "'");
        ctx.close();
    }

    @Override
    public boolean ended() {
        return lostWhy != null;
    }

    @Override
    public void onProtocolError(String why) {
        lost(Fault.Kind.CONNECTION_LOST, "the server " + why);
    }

    /**
     * Event loop: the owner found the server breaking the protocol, or the server answers no PING
     * ({@link NatsKeepAlive}); the connection is closed with this reason ("the server " + why).
     */
    void drop(String why) {
        lost(Fault.Kind.CONNECTION_LOST, "the server " + why);
        channel.close();
    }

    private void lost(Fault.Kind kind, String why) {
        if (lostWhy == null) {
            lostKind = kind;
            lostWhy = why;
        }
    }

    /** Pipeline end: writability, failures and the end of the connection. */
    private final class Events extends ChannelInboundHandlerAdapter {
        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
            if (ctx.channel().isWritable()) {
                wake();
            }
            super.channelWritabilityChanged(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
            lost(Fault.Kind.CONNECTION_LOST, NatsSettings.oneLine(c));
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            lost(Fault.Kind.CONNECTION_LOST, closing ? "closed by msgscope" : "the server closed it");
            IOException gone = new IOException(lostWhy);
            infoArrived.completeExceptionally(gone);
            accepted.completeExceptionally(gone);
            owner.onLost();
            wake();
            super.channelInactive(ctx);
        }
    }

    // ---- for the owners

    /** PONGs received so far, the one answering CONNECT's PING included. */
    long pongs() {
        return pongs.get();
    }

    /** The server's PINGs answered so far. */
    long pingsAnswered() {
        return pingsAnswered.get();
    }

    NatsInfo info() {
        return info;
    }

    /** Why the connection ended ("the server closed it", "the server sent -ERR '...'"), or null while it lives. */
    String lostWhy() {
        return lostWhy;
    }

    Fault.Kind lostKind() {
        return lostKind;
    }

    boolean closedByUs() {
        return closing;
    }

    /** The same as a one-line reason naming the server, or null while the connection lives. */
    String lostReason() {
        String w = lostWhy;
        return w == null ? null : "connection to NATS at " + settings.address() + " lost (" + w + ")";
    }

    /** Throws the fault that ended the connection, if it ended; {@code after} says how far the owner got. */
    void checkAlive(String after) throws Fault {
        String w = lostWhy;
        if (w != null) {
            throw new Fault(lostKind, "connection to NATS at " + settings.address() + " lost " + after + " (" + w + ")");
        }
    }

    /** Event loop: a PING on its own (the subscriber's keep-alive: it has nothing else queued to go before it). */
    void writePing() {
        channel.writeAndFlush(channel.alloc().buffer(PING.length).writeBytes(PING), channel.voidPromise());
    }

    /** A PING in a fresh buffer, for owners that write it themselves. */
    static void writePing(ByteBuf b) {
        b.writeBytes(PING);
    }

    /** Wakes the owner's thread waiting in {@link #await(BooleanSupplier, long)}, if any. */
    void wake() {
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * Parks the calling thread (one at a time) until {@code done} holds (true), the connection ends or the time is up
     * (false). It is woken by PONGs, by the channel becoming writable, by the end of the connection and by
     * {@link #wake}; a 1 ms step bounds a missed wake-up.
     */
    boolean await(BooleanSupplier done, long timeoutNs) {
        if (done.getAsBoolean()) {
            return true;
        }
        final long deadline = System.nanoTime() + timeoutNs;
        waiter = Thread.currentThread();
        try {
            while (!done.getAsBoolean()) {
                if (lostWhy != null) {
                    return false;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, Math.min(left, 1_000_000L));
            }
            return true;
        } finally {
            waiter = null;
        }
    }

    /** What the results record of the server, from its INFO, and the engine. */
    Map<String, String> serverInfo() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("broker", "nats " + settings.address());
        NatsInfo i = info;
        if (i != null) {
            m.put("server_name", i.serverName());
            m.put("server_id", i.serverId());
            m.put("version", i.version());
            m.put("jetstream_available", "" + i.jetStream());
            m.put("max_payload", "" + i.maxPayload());
        }
        m.put("tls", "" + tlsUsed);
        m.put("protocol", "core NATS");
        m.put("engine", "netty");
        return m;
    }

    InetAddress localAddress() {
        return channel != null && channel.localAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
    }

    /** Closes the channel (what was written before is sent first); the event loops stay with the context. */
    void close() {
        closing = true;
        if (channel != null) {
            channel.close().awaitUninterruptibly(CONNECT_TIMEOUT_MS);
        }
    }
}
