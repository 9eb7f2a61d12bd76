package io.msgscope.driver.nats.netty;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.nats.NatsSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The lean core-NATS subscriber (the default engine) on a {@link NettyNatsConnection}: {@code SUB <subject> [group] 1}
 * followed by a PING, whose PONG says the server has the subscription before the subject is reported (a refusal,
 * e.g. {@code -ERR 'Permissions Violation for Subscription to ...'}, arrives before that PONG and is a
 * {@link Fault.Kind#REFUSED}). Each MSG is cut out of Netty's read buffer in place and its payload handed to the
 * handler first thing (Q2) on the event loop as a little-endian view of that buffer: no copy, no object per message
 * (a copy into one reused buffer only when the read buffer is not one contiguous piece).
 *
 * <p>Trace mode polls ({@link #poll}); scenario mode starts push delivery ({@link #start}): the handler runs on the
 * event loop, and {@code ended} is called once with a one-line reason when the connection is lost or the server
 * sends a {@code -ERR} (nothing wakes up while no message arrives). Counters as the jnats subscriber's:
 * {@code errors}, {@code short_payloads}, {@code slow_consumer_events} (a {@code -ERR 'Slow Consumer'}; nats-server
 * 2.9 closes a client connection that falls behind by {@code max_pending} bytes or {@code write_deadline} without
 * that word, which shows as a lost connection).
 *
 * <p>{@code --opt reconnect=true} (issue 32 item 3): a lost connection is got back on a thread of its own, from any
 * server of the URI list ({@link NatsReconnect#reconnect}), and the subscription made again with its queue group and
 * confirmed by a PING ({@code subscriber_reconnects}, as jnats counts its reconnects); the delivery ends only when that
 * fails. Core NATS keeps nothing for a subscriber that is away: what was published meanwhile is counted lost.
 */
public final class NettyNatsSubscriber implements Subscriber, NettyNatsConnection.Owner {
    private static final long SID = 1;

    private final NatsSettings s;
    /** The connection; another one after each reconnect. */
    private volatile NettyNatsConnection conn;
    /** reconnect=true: the context a reconnect dials from (set once open), whether one is under way, how many came. */
    private volatile ClientContext context;
    private final java.util.concurrent.atomic.AtomicBoolean reconnecting =
            new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicLong reconnects = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;
    private final io.msgscope.core.driver.HandOver delivery = new io.msgscope.core.driver.HandOver();
    private ByteBuffer copy = ByteBuffer.allocate(0); // event loop only
    private volatile long slowConsumer;

    public NettyNatsSubscriber(NatsSettings s, int size, ClientContext context) throws IOException {
        this.s = s;
        this.conn = NatsReconnect.connect(s, context, "sub", this);
        try {
            s.checkMaxPayload(size, conn.info().maxPayload());
            subscribe();
        } catch (IOException | RuntimeException e) {
            conn.close();
            throw e;
        }
        this.context = context;
        if (NatsReconnect.worthGettingBack(conn)) {
            onLost(); // lost between the subscription's PONG and now
        }
    }

    /**
     * reconnect=true, its own thread: the connection back and the subscription again, for as long as connections are
     * lost; one lost again before its subscription was confirmed is dialled again. The delivery ends (with the reason)
     * only when a connection cannot be got back or the server refuses.
     */
    private void reconnectLoop() {
        try {
            while (true) {
                conn = NatsReconnect.reconnect(conn, context, "sub", this, () -> closed);
                if (closed) {
                    conn.close(); // closed while it was being dialled
                    return;
                }
                try {
                    subscribe();
                } catch (Fault f) {
                    if (!NatsReconnect.worthGettingBack(conn)) {
                        throw f;
                    }
                    continue; // lost again before the PONG: dial again
                }
                reconnects.incrementAndGet();
                reconnecting.set(false);
                if (closed || conn.lostWhy() == null || !reconnecting.compareAndSet(false, true)) {
                    return; // alive, or lost again and got back by the thread its loss started
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                delivery.lost(e.getMessage() == null ? closeReason() : e.getMessage());
            }
        }
    }

    /**
     * SUB and a PING; returns once the PONG came, i.e. the server has the subscription; then the keep-alive PINGs of
     * {@code --opt ping_interval} begin.
     */
    private void subscribe() throws IOException {
        NettyNatsConnection conn = this.conn;
        String sub = "SUB " + s.subject() + (s.group().isEmpty() ? "" : " " + s.group()) + " " + SID + "\r\nPING\r\n";
        conn.channel.writeAndFlush(Unpooled.wrappedBuffer(sub.getBytes(StandardCharsets.UTF_8)));
        if (!conn.await(() -> conn.pongs() >= 2, NatsSettings.CONNECT_TIMEOUT.toNanos())) {
            String why = conn.lostWhy();
            if (why != null) {
                throw new Fault(conn.lostKind() == Fault.Kind.REFUSED ? Fault.Kind.REFUSED : Fault.Kind.CONNECT_FAILED,
                        "NATS at " + s.address() + " did not take the subscription to '" + s.subject() + "' (" + why + ")");
            }
            throw new Fault(Fault.Kind.CONNECT_FAILED, "NATS at " + s.address() + " did not confirm the subscription to '"
                    + s.subject() + "' within " + NatsSettings.CONNECT_TIMEOUT.toSeconds() + " s");
        }
        NatsKeepAlive.start(conn, conn::writePing); // after the subscription's PONG, which its count waited for
    }

    /** Event loop: one message, handed on first thing. */
    @Override
    public void onMsg(NettyNatsConnection c, ByteBuf in, long sid, int at, int length) {
        if (sid != SID) {
            c.drop("sent a MSG for subscription id " + sid + "; this connection made only id " + SID);
            return;
        }
        delivery.deliver(payload(in, at, length));
    }

    /** The payload as a little-endian view of the read buffer, or a copy in one reused buffer. */
    private ByteBuffer payload(ByteBuf in, int at, int len) {
        if (in.nioBufferCount() == 1 && !(in instanceof CompositeByteBuf)) {
            return in.internalNioBuffer(at, len).order(ByteOrder.LITTLE_ENDIAN);
        }
        if (copy.capacity() < len) {
            copy = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
        }
        copy.clear().limit(len);
        in.getBytes(at, copy);
        return copy.flip();
    }

    @Override
    public void onSlowConsumer() {
        slowConsumer++; // event loop only
    }

    @Override
    public void onLost() {
        NettyNatsConnection conn = this.conn;
        if (conn == null) {
            return; // a server of the list that did not take the first connection
        }
        if (s.reconnect() && context != null && !closed) {
            if (NatsReconnect.worthGettingBack(conn) && reconnecting.compareAndSet(false, true)) {
                Thread t = new Thread(this::reconnectLoop, "msgscope-nats-reconnect");
                t.setDaemon(true);
                t.start();
                return;
            }
            if (reconnecting.get() || conn.lostWhy() == null) {
                return; // a failed attempt's end, or an old connection's while a new one lives
            }
        }
        if (closed || conn.closedByUs()) {
            delivery.closing(); // our own close is not a loss to report
        }
        delivery.lost(conn.lostReason());
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) {
        return delivery.poll(handler, timeoutMs);
    }

    @Override
    public void start(MessageHandler handler, Consumer<String> ended) {
        // what arrived before goes to the handler on the event loop too; a connection lost before is reported at once
        delivery.start(handler, ended, conn.channel.eventLoop());
    }

    @Override
    public String destination() {
        return s.subject();
    }

    @Override
    public Map<String, Long> counters() {
        long shorts = delivery.shortPayloads();
        long slow = slowConsumer;
        Map<String, Long> m = Map.of("errors", shorts + slow, "short_payloads", shorts, "slow_consumer_events", slow);
        if (!s.reconnect()) {
            return m;
        }
        m = new java.util.HashMap<>(m);
        m.put(io.msgscope.core.driver.Reconnects.SUBSCRIBER_RECONNECTS, reconnects.get());
        return Map.copyOf(m);
    }

    @Override
    public String closeReason() {
        return conn.lostReason();
    }

    @Override
    public InetAddress localAddress() {
        return conn.localAddress();
    }

    @Override
    public Map<String, String> serverInfo() {
        return conn.serverInfo();
    }

    /** The connection, for tests. */
    NettyNatsConnection connection() {
        return conn;
    }

    @Override
    public void close() {
        closed = true;
        delivery.closing();
        conn.close();
    }
}
