package io.msgscope.driver.mqtt.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A {@link NettyMqttPublisher}'s PUBLISH packets: their fixed header and topic, made once (packets only differ in
 * packet id and payload), and the batch the sending thread appends them to and the event loop takes whole.
 *
 * <p>Two buffers of the publisher's own, never released: the sender appends packets to {@code fill} (guarded by
 * lock, with the first one's packet id, how many, and whether a write task is on its way); the event loop swaps it
 * with {@code spare}, copies what it took into a buffer it allocates itself, and clears it. Buffers the sender
 * allocated and the event loop released never came back to the sender's recycler: one ByteBuf object per batch,
 * i.e. per message at low rates (seen with JFR). The copy costs a memcpy per packet.
 */
final class PublishBatch {
    private final int size;
    private final int qos;
    private final boolean v5;
    /** Fixed header and topic of every PUBLISH. */
    private final byte[] prefix;
    /** One PUBLISH packet's bytes. */
    final int packetBytes;
    private final Object lock = new Object();
    private ByteBuf fill = Unpooled.buffer(0);
    private ByteBuf spare = Unpooled.buffer(0); // event loop only
    private int fillFirstId;
    private int fillCount;
    private boolean scheduled;
    // what the event loop took last ({@link #take}), event loop only
    private int takenFirstId;
    private int takenCount;

    /** PUBLISH packets of {@code size}-byte messages to {@code topic}; a packet MQTT cannot hold is refused. */
    PublishBatch(String topic, int qos, boolean v5, int size) {
        this.size = size;
        this.qos = qos;
        this.v5 = v5;
        byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        long remaining = 2L + t.length + (qos > 0 ? 2 : 0) + (v5 ? 1 : 0) + size;
        if (remaining > NettyMqttSession.MAX_PACKET - 5) {
            throw new io.msgscope.core.SpecException("--size", "an MQTT packet holds at most 268435455 bytes; topic "
                    + "and header leave less than " + size + " for the message");
        }
        ByteBuf p = Unpooled.buffer(5 + 2 + t.length);
        p.writeByte(MqttWire.PUBLISH << 4 | qos << 1);
        MqttWire.writeLength(p, (int) remaining);
        p.writeShort(t.length).writeBytes(t);
        this.prefix = new byte[p.readableBytes()];
        p.readBytes(prefix);
        this.packetBytes = prefix.length + (qos > 0 ? 2 : 0) + (v5 ? 1 : 0) + size;
    }

    /**
     * Sender thread: appends one PUBLISH (packet id {@code id}, the message at {@code off}) to the batch; true when
     * no write task is on its way, so the caller schedules one.
     */
    boolean append(int id, ByteBuffer buffer, int off) {
        synchronized (lock) {
            final ByteBuf batch = fill;
            if (fillCount == 0) {
                fillFirstId = id;
            }
            batch.ensureWritable(packetBytes); // grows to the largest batch once, then stays
            batch.writeBytes(prefix);
            if (qos > 0) {
                batch.writeShort(id);
            }
            if (v5) {
                batch.writeByte(0); // no properties
            }
            if (buffer.hasArray()) {
                batch.writeBytes(buffer.array(), buffer.arrayOffset() + off, size);
            } else {
                batch.writeBytes(buffer.duplicate().limit(off + size).position(off));
            }
            fillCount++;
            boolean schedule = !scheduled;
            scheduled = true;
            return schedule;
        }
    }

    /**
     * Event loop: takes what the sender queued since the last take ({@link #takenCount} packets from packet id
     * {@link #takenFirstId}); the sender goes on with the spare buffer. Clear the one returned once copied.
     */
    ByteBuf take() {
        final ByteBuf taken;
        synchronized (lock) {
            taken = fill;
            fill = spare;
            takenFirstId = fillFirstId;
            takenCount = fillCount;
            fillCount = 0;
            scheduled = false;
        }
        spare = taken;
        return taken;
    }

    int takenFirstId() {
        return takenFirstId;
    }

    int takenCount() {
        return takenCount;
    }

    /** Sender thread, after a reconnect: drops what was queued for the dead connection; returns how many packets. */
    int drop() {
        synchronized (lock) {
            int dropped = fillCount;
            fill.clear();
            fillCount = 0;
            return dropped;
        }
    }

    /** Writes packet {@code id} again with DUP set, its payload {@code copy}. */
    void writeAgain(ByteBuf out, int id, byte[] copy) {
        out.writeByte(prefix[0] | MqttWire.DUP).writeBytes(prefix, 1, prefix.length - 1).writeShort(id);
        if (v5) {
            out.writeByte(0);
        }
        out.writeBytes(copy);
    }
}
