package io.msgscope.driver.nats;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
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
 * The lean core-NATS subscriber (the default engine) on a {@link NatsConnection}: {@code SUB <subject> [group] 1}
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
 */
final class NettyNatsSubscriber implements Subscriber, NatsConnection.Owner {
    private static final long SID = 1;

    private final NatsSettings s;
    private final NatsConnection conn;
    private final io.msgscope.core.driver.HandOver delivery = new io.msgscope.core.driver.HandOver();
    private ByteBuffer copy = ByteBuffer.allocate(0); // event loop only
    private volatile long slowConsumer;

    NettyNatsSubscriber(NatsSettings s, int size, ClientContext context) throws IOException {
        this.s = s;
        this.conn = NatsConnection.open(s, context, "sub", this);
        try {
            s.checkMaxPayload(size, conn.info().maxPayload());
            subscribe();
        } catch (IOException | RuntimeException e) {
            conn.close();
            throw e;
        }
    }

    /** SUB and a PING; returns once the PONG came, i.e. the server has the subscription. */
    private void subscribe() throws IOException {
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
    }

    /** Event loop: one message, handed on first thing. */
    @Override
    public void onMsg(NatsConnection c, ByteBuf in, long sid, int at, int length) {
        if (sid != SID) {
            c.protocolError("sent a MSG for subscription id " + sid + "; this connection made only id " + SID);
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
        if (conn.closedByUs()) {
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
        return Map.of("errors", shorts + slow, "short_payloads", shorts, "slow_consumer_events", slow);
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
    NatsConnection connection() {
        return conn;
    }

    @Override
    public void close() {
        delivery.closing();
        conn.close();
    }
}
