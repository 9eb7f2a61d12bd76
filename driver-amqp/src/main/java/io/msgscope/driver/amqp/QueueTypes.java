package io.msgscope.driver.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;

import java.io.IOException;
import java.util.Map;

/**
 * Quorum and stream queues ({@code --opt queue_type}, issue 19): RabbitMQ's durable queue types, which cannot be
 * server-named, exclusive or auto-delete. msgscope names them {@code msgscope-TYPE-RANDOM}, declares them durable
 * and deletes them when the subscriber closes; for the paths where it cannot (the agent killed, the broker gone
 * at the end) a quorum queue expires once unused for {@link #QUORUM_EXPIRES_MS}, and a stream, which RabbitMQ
 * lets neither expire nor auto-delete, keeps at most {@link #STREAM_MAX_BYTES} on disk.
 */
final class QueueTypes {
    /** A quorum queue nobody consumes from for this long is deleted by the broker ({@code x-expires}). */
    static final int QUORUM_EXPIRES_MS = 5 * 60_000;
    /** A stream's retention ({@code x-max-length-bytes}): older segments are dropped past it. */
    static final long STREAM_MAX_BYTES = 1L << 30;
    /** Segments of 64 MiB, so retention drops data in steps much smaller than the bound. */
    static final int STREAM_SEGMENT_BYTES = 64 << 20;
    /** The prefix of every queue msgscope names: {@code rabbitmqctl list_queues name | grep ^msgscope-} finds them. */
    static final String PREFIX = "msgscope-";

    private QueueTypes() {
    }

    /** The declare arguments of a queue of this type. */
    static Map<String, Object> arguments(AmqpOptions.QueueType type) {
        return switch (type) {
            case CLASSIC -> Map.of();
            case QUORUM -> Map.of("x-queue-type", type.argument(), "x-expires", QUORUM_EXPIRES_MS);
            case STREAM -> Map.of("x-queue-type", type.argument(), "x-max-length-bytes", STREAM_MAX_BYTES,
                    "x-stream-max-segment-size-bytes", STREAM_SEGMENT_BYTES);
        };
    }

    /** A subscriber's own queue of a durable type: named, durable, non-exclusive, not auto-delete. */
    static String declareOwn(Channel ch, AmqpOptions.QueueType type) throws IOException {
        return declare(ch, ownName(type), type, true);
    }

    /** A fresh name for a subscriber's own queue: {@code msgscope-TYPE-RANDOM}. */
    static String ownName(AmqpOptions.QueueType type) {
        return PREFIX + type.argument() + "-" + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current()
                .nextLong() & Long.MAX_VALUE);
    }

    /**
     * Declares (again, after a reconnect: issue 32 item 3) a subscriber's own named queue, non-exclusive and not
     * auto-delete, so that neither a lost connection nor a lost consumer removes it; a classic one (reconnect=true)
     * is durable as asked and expires like a quorum queue once unused for {@link #QUORUM_EXPIRES_MS}, in case the
     * subscriber cannot delete it at the end.
     */
    static String declare(Channel ch, String name, AmqpOptions.QueueType type, boolean durable) throws IOException {
        Map<String, Object> args = type == AmqpOptions.QueueType.CLASSIC ? Map.of("x-expires", QUORUM_EXPIRES_MS)
                : arguments(type);
        return ch.queueDeclare(name, durable || type.durable(), false, false, args).getQueue();
    }

    /** The basic.consume arguments: a stream is read from the next message written on. */
    static Map<String, Object> consumeArguments(AmqpOptions.QueueType type) {
        return type == AmqpOptions.QueueType.STREAM ? Map.of("x-stream-offset", "next") : null;
    }

    /**
     * Refuses a durable queue type on a broker that does not have it, before declaring: other AMQP 0-9-1 brokers
     * (Qpid Broker-J) would take {@code x-queue-type} as an unknown argument and make a classic queue, which
     * would be measured under the wrong name. Quorum queues came with RabbitMQ 3.8, streams with 3.9.
     */
    static void require(AmqpOptions.QueueType type, Connection c, String address) throws IOException {
        if (type == AmqpOptions.QueueType.CLASSIC) {
            return;
        }
        Map<String, Object> p = c.getServerProperties();
        String product = String.valueOf(p.get("product"));
        String version = String.valueOf(p.get("version"));
        int[] v = version(version);
        int[] needed = type == AmqpOptions.QueueType.QUORUM ? new int[] {3, 8} : new int[] {3, 9};
        if (!product.contains("RabbitMQ") || v[0] < needed[0] || (v[0] == needed[0] && v[1] < needed[1])) {
            throw new IOException("amqp: --opt queue_type=" + type.argument() + " needs RabbitMQ " + needed[0] + "."
                    + needed[1] + " or later; the broker at " + address + " is " + product + " " + version);
        }
    }

    /** Major and minor of a version string such as {@code 3.10.8}; 0.0 when it has none. */
    static int[] version(String s) {
        String[] parts = s.split("[^0-9]+");
        int[] v = new int[2];
        int k = 0;
        for (String part : parts) {
            if (!part.isEmpty() && k < 2) {
                v[k++] = Integer.parseInt(part.length() > 6 ? part.substring(0, 6) : part);
            }
        }
        return v;
    }
}
