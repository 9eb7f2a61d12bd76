package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.msgscope.driver.mqtt.MqttSettings;
import io.msgscope.driver.mqtt.PublishWindow;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * The lean publisher ({@code --opt engine=netty}, the default): MQTT 5 or 3.1.1 at QoS 0, 1 or 2 on a
 * {@link NettyMqttSession}, without the HiveMQ client's publish objects and reactive plumbing. The sending
 * thread writes each PUBLISH packet (fixed header and topic prepared once, packet id, at MQTT 5 an empty
 * property list, payload) into a batch buffer that the event loop takes and writes whole, flushed once: a
 * packet that finds the loop idle goes out at once, and packets that arrive while it is writing share the next
 * write (one wake-up and one system call for all of them; nothing allocated per message, see {@link PublishBatch}).
 *
 * <p>The window: at most {@code max_inflight} publishes unfinished, and at QoS 1 and 2 at most the broker's
 * Receive Maximum (MQTT 5 CONNACK). {@link #send} waits for room (trace mode); {@link #offer} never waits and
 * returns false on a full window (the scenario pacers, issue 13). QoS 1 and 2: packet ids cycle through
 * 1..2×window ({@link #maxId}); each PUBACK (QoS 1) or PUBCOMP (QoS 2, after the PUBREC → PUBREL exchange) counts as
 * {@code messages_acked}, or {@code warmup_acked} for warm-up messages (negative sequence). An MQTT 5 PUBACK
 * or PUBREC with a reason code of 0x80 or above is a refused publish ({@code publish_refused}, the first one
 * named with its code, e.g. {@code 0x87 NOT_AUTHORIZED}), as with the HiveMQ engine. QoS 0: a publish
 * completes once the socket took it, and the same window bounds what is queued. Up front, a QoS above the
 * CONNACK's Maximum QoS and a PUBLISH above its Maximum Packet Size are refused.
 *
 * <p>{@code --opt reconnect=true} (issue 32 item 3, {@link MqttReconnect}): a lost connection is got back from the
 * sending thread, in {@link #send}, {@link #offer} (a pacer waits while it lasts) or {@link #drain}; what was not
 * completed is published again with DUP set, and what QoS 0 wrote into the dead connection is gone (counted lost).
 */
public final class NettyMqttPublisher implements Publisher, NettyMqttSession.Packets {
    private static final byte WAITING = 1;       // PUBACK (QoS 1) or PUBREC (QoS 2) expected
    private static final byte RELEASED = 2;      // QoS 2: PUBREL sent, PUBCOMP expected

    private final MqttSettings s;
    private final int size;
    private final int qos;
    private final boolean v5;
    /** The connection; another one after each reconnect. */
    volatile NettyMqttSession session;
    /** reconnect=true: the context a reconnect dials from, and the book of what waits for its completion. */
    private ClientContext context;
    private MqttReconnect book;
    private volatile boolean closed;
    /** The PUBLISH packets and the batch the event loop writes next. */
    private final PublishBatch batch;
    private final AckCounts counts = new AckCounts();
    /**
     * Packet ids cycle through 1..maxId, twice the window (at most 65535): brokers acknowledge in the order they
     * received (MQTT §4.6), so an id comes round again only long after its publish completed, and a publisher
     * keeps two small arrays instead of two of 64 KiB (ten thousand connections, issue 13). Set with the window.
     */
    private int maxId;
    /** Whether the publish with this packet id is a warm-up message (written by the sender before the hand-over). */
    private boolean[] warmupById;
    private byte[] state; // event loop only
    /** Set once the CONNACK is in: its Receive Maximum bounds the window. */
    private volatile PublishWindow window;

    private long sent; // sender thread only
    private int nextId = 1; // sender thread only
    private final Runnable writeTask = this::writeQueued;
    private final PublishWindow.Alive alive = this::checkAlive; // made once: a method reference per wait allocates

    /** Not connected yet: {@link #open} connects, tests attach a channel to {@link #session}. */
    NettyMqttPublisher(MqttSettings s, int size) {
        this.s = s;
        this.size = size;
        this.qos = s.qos();
        this.v5 = s.version() == 5;
        this.batch = new PublishBatch(s.topic(), qos, v5, size);
        this.session = new NettyMqttSession(s, this, "pub", NettyMqttSession.maxIncoming(0));
    }

    /** Connects, waits for the CONNACK and takes the broker's limits ({@link #connected}). */
    public static NettyMqttPublisher open(MqttSettings s, int size, ClientContext context) throws IOException {
        NettyMqttPublisher p = new NettyMqttPublisher(s, size);
        p.context = context;
        p.session.connect(context);
        try {
            p.connected();
        } catch (IOException | RuntimeException e) {
            p.session.close();
            throw e;
        }
        return p;
    }

    /**
     * After the CONNACK: a QoS above its Maximum QoS or a PUBLISH above its Maximum Packet Size is a
     * {@link Fault.Kind#REFUSED} up front; the window is {@code max_inflight}, at QoS 1 and 2 at most its
     * Receive Maximum.
     */
    void connected() throws Fault {
        MqttBrokerLimits limits = session.limits();
        if (qos > limits.maximumQos()) {
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " accepts QoS " + limits.maximumQos()
                    + " at most (CONNACK Maximum QoS), asked --opt qos=" + qos);
        }
        if (batch.packetBytes > limits.maximumPacketSize()) {
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " accepts packets of at most "
                    + limits.maximumPacketSize() + " bytes (CONNACK Maximum Packet Size); a PUBLISH of --size " + size
                    + " takes " + batch.packetBytes);
        }
        int w = windowSize();
        maxId = qos == 0 ? 1 : (int) Math.min(65_535, 2L * w);
        warmupById = new boolean[maxId + 1];
        state = new byte[maxId + 1];
        window = new PublishWindow(w, s.address());
        book = s.reconnect() ? new MqttReconnect(maxId) : null;
    }

    /** Publishes allowed unfinished: {@code max_inflight}, at QoS 1 and 2 within the broker's Receive Maximum. */
    int windowSize() {
        return qos > 0 ? Math.min(s.maxInflight(), session.limits().receiveMaximum()) : s.maxInflight();
    }

    /** Event loop: PUBACK, PUBREC, PUBCOMP (a PUBLISH or PUBREL to a publisher breaks the protocol). */
    @Override
    public void onPacket(ChannelHandlerContext ctx, int type, int flags, ByteBuf in, int start, int length) {
        if (type == MqttWire.PUBLISH || type == MqttWire.PUBREL) {
            session.unexpected("sent a " + MqttWire.typeName(type) + " to a publisher, which subscribes to nothing");
            return;
        }
        final int end = start + length;
        int reason = 0;
        if (length < 2 || (!v5 && length != 2)) {
            session.malformed("sent a malformed " + MqttWire.typeName(type) + " (" + length + " bytes after "
                    + "the fixed header, " + (v5 ? "at least 2" : "2") + " expected)");
            return;
        }
        if (length > 2) {
            reason = in.getUnsignedByte(start + 2);
            if (length > 3) {
                long v = MqttWire.readVarInt(in, start + 3, end);
                if (v < 0 || 3 + (v & 7) + (v >>> 3) != length) {
                    session.malformed("sent a malformed " + MqttWire.typeName(type)
                            + " (its property length does not match the packet)");
                    return;
                }
            }
        }
        final int id = in.getUnsignedShort(start);
        final int want = type == MqttWire.PUBCOMP ? RELEASED : WAITING;
        final int wantType = qos == 1 ? MqttWire.PUBACK : type == MqttWire.PUBCOMP
                ? MqttWire.PUBCOMP : MqttWire.PUBREC;
        if (type != wantType || id == 0 || id > maxId || state[id] != want) {
            failed("sent a " + MqttWire.typeName(type) + " for packet id " + id + ", which has no QoS " + qos
                    + " publish waiting for one");
            return;
        }
        if (reason >= 0x80) {
            state[id] = 0;
            boolean describe = counts.firstError() == null;
            String why = describe ? MqttWire.refusal(s.address(), qos, type, reason, in, start, length) : null;
            if (type == MqttWire.PUBCOMP) {
                counts.error(why); // the broker lost the release, it did not refuse the publish
            } else {
                counts.refused(why);
            }
            if (book != null) {
                book.completed(id, false);
            }
            window.complete(1);
            return;
        }
        if (type == MqttWire.PUBREC) {
            state[id] = RELEASED;
            session.acknowledge(ctx, MqttWire.PUBREL, id);
            return;
        }
        state[id] = 0;
        counts.acked(warmupById[id]);
        if (book != null) {
            book.completed(id, true);
        }
        window.complete(1);
    }

    @Override
    public void onLost() {
        PublishWindow w = window;
        if (w != null) {
            w.wake();
        }
    }

    private void failed(String why) {
        counts.error(counts.firstError() == null ? "MQTT broker at " + s.address() + " " + why : null);
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final PublishWindow window = this.window;
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            if (session.lostWhy() != null) {
                checkAlive();
            }
            if (window.full(sent)) {
                window.await(sent, alive);
            }
            put(buffer, off);
        }
    }

    /**
     * One message if the window has room, without waiting: a pacer thread serving thousands of connections
     * never blocks on one of them (issue 13). The event loop's batch lock is held only to append the packet.
     */
    @Override
    public boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        if (length != size) {
            throw new IllegalArgumentException("offer takes one message of " + size + " bytes, got " + length);
        }
        if (session.lostWhy() != null) {
            checkAlive();
        }
        if (window.full(sent)) {
            return false;
        }
        put(buffer, offset);
        return true;
    }

    /** Appends one PUBLISH to the batch the event loop writes next; schedules that write if none is on its way. */
    private void put(ByteBuffer buffer, int off) {
        int id = 0;
        if (qos > 0) {
            id = nextId;
            nextId = id == maxId ? 1 : id + 1;
            long seq = size >= WireHeader.SIZE ? WireHeader.sequence(buffer, off) : -1;
            warmupById[id] = size >= WireHeader.SIZE && seq < 0;
            if (book != null) {
                book.keep(id, seq, buffer, off, size);
            }
        }
        final Channel ch = session.channel();
        if (batch.append(id, buffer, off)) {
            ch.eventLoop().execute(writeTask);
        }
        sent++;
    }

    /**
     * Event loop: takes what the sender queued since the last run and writes it in one buffer,
     * flushed once. While this runs the sender keeps appending to a fresh buffer, so at full speed
     * each write carries many packets (one wake-up and one system call for them all) and at low rates
     * each packet goes out at once.
     */
    private void writeQueued() {
        final ByteBuf taken = batch.take();
        final int first = batch.takenFirstId();
        final int n = batch.takenCount();
        final Channel ch = session.channel();
        if (n == 0 || !ch.isActive()) {
            taken.clear();
            if (n > 0 && qos == 0 && book != null) {
                window.complete(n); // QoS 0 into a dead connection: gone, counted lost; reconnect=true goes on
            }
            return;
        }
        final ByteBuf out = ch.alloc().directBuffer(taken.readableBytes());
        out.writeBytes(taken);
        taken.clear();
        if (qos > 0) {
            for (int k = 0, id = first; k < n; k++, id = id == maxId ? 1 : id + 1) {
                state[id] = WAITING;
            }
            ch.writeAndFlush(out, ch.voidPromise());
        } else {
            // QoS 0 completes once the socket took the bytes. Usually it takes them in this flush: then at once,
            // without a promise and listener per write. When it is backed up, an empty buffer behind them
            // completes when they have gone (writes complete in order): allocation only then.
            ch.writeAndFlush(out, ch.voidPromise());
            final PublishWindow w = window;
            io.netty.channel.ChannelOutboundBuffer ob = ch.unsafe().outboundBuffer();
            if (ob == null || ob.totalPendingWriteBytes() == 0) {
                w.complete(n);
            } else {
                ch.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(f -> w.complete(n));
            }
        }
    }

    private void checkAlive() throws IOException {
        String why = session.lostWhy();
        if (why == null) {
            return;
        }
        if (book != null && !closed && !(!v5 && qos > 0 && sent > 0 && counts.totalAcked() == 0 && session.brokerClosed())) {
            resume();
            return;
        }
        if (!v5 && qos > 0 && sent > 0 && counts.totalAcked() == 0 && session.brokerClosed()) {
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " closed the connection after "
                    + sent + " QoS " + qos + " publishes, none acknowledged: an MQTT 3.1.1 broker refuses a QoS it does "
                    + "not support this way (e.g. mosquitto's max_qos)");
        }
        throw new Fault(session.refusedByDisconnect() ? Fault.Kind.REFUSED : Fault.Kind.CONNECTION_LOST,
                "connection to MQTT broker at " + s.address() + " lost after " + sent + " publishes (" + why + ")");
    }

    /**
     * reconnect=true, sender thread: dials the broker again ({@link MqttReconnect#reconnect}), drops what was queued
     * for the dead connection and has the event loop publish again what still waits for its completion.
     */
    private void resume() throws IOException {
        NettyMqttSession lost = session;
        NettyMqttSession next = MqttReconnect.reconnect(lost, context, n -> session = n, () -> closed);
        int dropped = batch.drop(); // queued for the dead channel: republished below from the copies (QoS 0: gone)
        if (qos == 0 && dropped > 0) {
            window.complete(dropped);
        }
        final int from = nextId; // the oldest id that can still wait comes first: the ids cycle in sending order
        final boolean present = next.sessionPresent();
        final Channel ch = next.channel();
        // done before the next publish is kept: the book then holds only what was sent before the loss
        ch.eventLoop().submit(() -> republish(ch, from, present)).awaitUninterruptibly();
        book.reconnects.incrementAndGet();
    }

    /**
     * Event loop of the new connection: every publish still waiting, in the order first sent, again with DUP set;
     * at QoS 2 one the broker had answered with PUBREC gets its PUBREL again if the broker kept the session.
     */
    private void republish(Channel ch, int from, boolean present) {
        ByteBuf out = ch.alloc().buffer();
        for (int k = 0, id = from; k < maxId; k++, id = id == maxId ? 1 : id + 1) {
            byte[] copy = book.waiting(id);
            if (copy == null) {
                continue;
            }
            if (qos == 2 && state[id] == RELEASED && present) {
                out.writeByte(MqttWire.PUBREL << 4 | 0x02).writeByte(2).writeShort(id);
                continue;
            }
            batch.writeAgain(out, id, copy);
            state[id] = WAITING;
            book.republished();
        }
        ch.writeAndFlush(out, ch.voidPromise());
    }

    @Override
    public void drain(long timeoutMs) throws IOException {
        if (book == null) {
            window.drain(sent, timeoutMs, alive);
            return;
        }
        window.drainCounting(sent, timeoutMs, alive);
    }

    @Override
    public Map<String, Long> counters() {
        if (book == null) {
            return counts.counters(true, true);
        }
        return book.counters(counts.counters(true, true), qos == 0);
    }

    /** reconnect=true at QoS 1 and 2: each measured message's PUBACK or PUBCOMP is noted by sequence. */
    @Override
    public boolean confirms() {
        return book != null && qos > 0;
    }

    @Override
    public long[] unconfirmed() {
        return confirms() ? book.confirmations.unconfirmedRanges() : null;
    }

    @Override
    public String firstError() {
        return counts.firstError();
    }

    @Override
    public void close() {
        closed = true;
        session.close();
    }
}
