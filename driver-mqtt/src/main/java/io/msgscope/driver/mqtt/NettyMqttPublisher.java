package io.msgscope.driver.mqtt;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The lean publisher ({@code --opt engine=netty}): MQTT 3.1.1 at QoS 0, 1 or 2 on a
 * {@link NettyMqttSession}, without the HiveMQ client's publish objects and reactive plumbing. The
 * sender thread writes each PUBLISH packet (fixed header and topic prepared once, packet id, payload)
 * straight into a pooled buffer that the event loop takes and writes whole, flushed once: a packet
 * that finds the loop idle goes out at once, and packets that arrive while it is writing share the
 * next write (one wake-up and one system call for all of them; nothing allocated per message). QoS 1 and 2: packet ids cycle through 1..65535, at
 * most {@code max_inflight} (≤ 65535) unfinished; each PUBACK (QoS 1) or PUBCOMP (QoS 2, after the
 * PUBREC → PUBREL exchange) counts as {@code messages_acked}, or {@code warmup_acked} for warm-up
 * messages (negative sequence). QoS 0: a publish completes once the socket took it, and the same
 * window bounds what is queued. Same counters and faults as {@link MqttPublisher}.
 */
final class NettyMqttPublisher implements Publisher, NettyMqttSession.Packets {
    private static final byte WAITING = 1;       // PUBACK (QoS 1) or PUBREC (QoS 2) expected
    private static final byte RELEASED = 2;      // QoS 2: PUBREL sent, PUBCOMP expected

    private final MqttSettings s;
    private final int size;
    private final int qos;
    private final PublishWindow window;
    private final NettyMqttSession session;
    /** Fixed header and topic of every PUBLISH (they only differ in packet id and payload). */
    private final byte[] prefix;
    private final int packetBytes;
    private final AckCounts counts = new AckCounts();
    /** Whether the publish with this packet id is a warm-up message (written by the sender before the hand-over). */
    private final boolean[] warmupById = new boolean[65_536];
    private final byte[] state = new byte[65_536]; // event loop only

    private long sent; // sender thread only
    private int nextId = 1; // sender thread only
    private final Runnable writeTask = this::writeQueued;
    private final Object lock = new Object();
    // guarded by lock: the packets queued for the event loop, the first one's packet id, how many, and
    // whether a write task is on its way
    private ByteBuf batch;
    private int batchFirstId;
    private int batchCount;
    private boolean scheduled;

    NettyMqttPublisher(MqttSettings s, int size) throws IOException {
        this.s = s;
        this.size = size;
        this.qos = s.qos();
        this.window = new PublishWindow(s.maxInflight(), s.address());
        byte[] topic = s.topic().getBytes(StandardCharsets.UTF_8);
        int remaining = 2 + topic.length + (qos > 0 ? 2 : 0) + size;
        ByteBuf p = io.netty.buffer.Unpooled.buffer(5 + 2 + topic.length);
        p.writeByte(NettyMqttSession.PUBLISH << 4 | qos << 1);
        NettyMqttSession.writeLength(p, remaining);
        p.writeShort(topic.length).writeBytes(topic);
        this.prefix = new byte[p.readableBytes()];
        p.readBytes(prefix);
        this.packetBytes = prefix.length + (qos > 0 ? 2 : 0) + size;
        this.session = NettyMqttSession.open(s, "pub", this);
    }

    /** Event loop: PUBACK, PUBREC, PUBCOMP. */
    @Override
    public void onPacket(ChannelHandlerContext ctx, int type, int flags, ByteBuf in, int start, int length) {
        if (length < 2 || (type != NettyMqttSession.PUBACK && type != NettyMqttSession.PUBREC
                && type != NettyMqttSession.PUBCOMP)) {
            failed("sent an unexpected packet of type " + type + " (" + length + " bytes) to a publisher");
            return;
        }
        final int id = in.getUnsignedShort(start);
        final int want = type == NettyMqttSession.PUBCOMP ? RELEASED : WAITING;
        final int wantType = qos == 1 ? NettyMqttSession.PUBACK : type == NettyMqttSession.PUBCOMP
                ? NettyMqttSession.PUBCOMP : NettyMqttSession.PUBREC;
        if (type != wantType || state[id] != want) {
            failed("sent a " + name(type) + " for packet id " + id + ", which has no QoS " + qos + " publish waiting for one");
            return;
        }
        if (type == NettyMqttSession.PUBREC) {
            state[id] = RELEASED;
            session.acknowledge(ctx, NettyMqttSession.PUBREL, id);
            return;
        }
        state[id] = 0;
        counts.acked(warmupById[id]);
        window.complete(1);
    }

    @Override
    public void onLost() {
        window.wake();
    }

    private static String name(int type) {
        return switch (type) {
            case NettyMqttSession.PUBACK -> "PUBACK";
            case NettyMqttSession.PUBREC -> "PUBREC";
            default -> "PUBCOMP";
        };
    }

    private void failed(String why) {
        counts.error(counts.firstError() == null ? "MQTT broker at " + s.address() + " " + why : null);
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            if (session.lostWhy() != null) {
                checkAlive();
            }
            if (window.full(sent)) {
                window.await(sent, this::checkAlive);
            }
            int id = 0;
            if (qos > 0) {
                id = nextId;
                nextId = id == 65_535 ? 1 : id + 1;
                warmupById[id] = size >= WireHeader.SIZE && WireHeader.sequence(buffer, off) < 0;
            }
            boolean schedule;
            synchronized (lock) {
                if (batch == null) {
                    batch = session.channel.alloc().buffer(Math.max(1, Math.min((end - off) / size, 64)) * packetBytes);
                    batchFirstId = id;
                    batchCount = 0;
                }
                batch.writeBytes(prefix);
                if (qos > 0) {
                    batch.writeShort(id);
                }
                if (buffer.hasArray()) {
                    batch.writeBytes(buffer.array(), buffer.arrayOffset() + off, size);
                } else {
                    batch.writeBytes(buffer.duplicate().limit(off + size).position(off));
                }
                batchCount++;
                schedule = !scheduled;
                scheduled = true;
            }
            if (schedule) {
                session.channel.eventLoop().execute(writeTask);
            }
            sent++;
        }
    }

    /**
     * Event loop: takes what the sender queued since the last run and writes it in one buffer,
     * flushed once. While this runs the sender keeps appending to a fresh buffer, so at full speed
     * each write carries many packets (one wake-up and one system call for them all) and at low rates
     * each packet goes out at once.
     */
    private void writeQueued() {
        final ByteBuf out;
        final int first;
        final int n;
        synchronized (lock) {
            out = batch;
            first = batchFirstId;
            n = batchCount;
            batch = null;
            scheduled = false;
        }
        final var ch = session.channel;
        if (out == null) {
            return;
        }
        if (!ch.isActive()) {
            out.release();
            return;
        }
        if (qos > 0) {
            for (int k = 0, id = first; k < n; k++, id = id == 65_535 ? 1 : id + 1) {
                state[id] = WAITING;
            }
            ch.writeAndFlush(out, ch.voidPromise());
        } else {
            ch.writeAndFlush(out).addListener(f -> window.complete(n)); // one listener per write, not per message
        }
    }

    private void checkAlive() throws IOException {
        String why = session.lostWhy();
        if (why == null) {
            return;
        }
        if (qos > 0 && sent > 0 && counts.totalAcked() == 0) {
            throw new Fault(Fault.Kind.REFUSED, "MQTT broker at " + s.address() + " closed the connection after "
                    + sent + " QoS " + qos + " publishes, none acknowledged: an MQTT 3.1.1 broker refuses a QoS it does "
                    + "not support this way (e.g. mosquitto's max_qos)");
        }
        throw new Fault(Fault.Kind.CONNECTION_LOST, "connection to MQTT broker at " + s.address() + " lost after "
                + sent + " publishes (" + why + ")");
    }

    @Override
    public void drain(long timeoutMs) throws IOException {
        window.drain(sent, timeoutMs, this::checkAlive);
    }

    @Override
    public Map<String, Long> counters() {
        return counts.counters(true, true);
    }

    @Override
    public String firstError() {
        return counts.firstError();
    }

    @Override
    public void close() {
        session.close();
    }
}
