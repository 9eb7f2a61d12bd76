package io.msgscope.driver.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;

import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lifetime of a subscriber's queue on the broker: the exclusive queues of this JVM (only their own connection may
 * passive-declare them, so a backlog probe reads them there: scenario mode, issue 31 item 3), and the deletes at the
 * end of the named ones, which nothing else removes (issue 19; with {@code --opt reconnect=true} every queue is named,
 * issue 32 item 3; {@code msgscope clean} finds what a killed run left).
 */
final class SubscriberQueues {
    /** The exclusive queues of this JVM's subscribers and their connections. */
    private static final ConcurrentHashMap<String, Connection> EXCLUSIVE = new ConcurrentHashMap<>();

    private SubscriberQueues() {
    }

    /** Notes that {@code queue} is exclusive to {@code c}; returns the queue. */
    static String exclusive(String queue, Connection c) {
        EXCLUSIVE.put(queue, c);
        return queue;
    }

    /** The connection that holds exclusive {@code queue} in this JVM, or null. */
    static Connection exclusiveOwner(String queue) {
        return EXCLUSIVE.get(queue);
    }

    /** The subscriber of {@code queue} closes. */
    static void closed(String queue) {
        EXCLUSIVE.remove(queue);
    }

    /**
     * A queue of the subscriber's own that is named (quorum, stream, or any with reconnect=true) outlives the
     * connection: deleted here, on a fresh channel when the broker closed the consuming one.
     */
    static void deleteOwn(Connection connection, Channel channel, String tag, String queue, String address) {
        try {
            if (tag != null && channel.isOpen()) {
                channel.basicCancel(tag);
            }
            Channel ch = channel.isOpen() ? channel : connection.createChannel();
            ch.queueDelete(queue);
        } catch (IOException | ShutdownSignalException e) {
            // the broker closed the connection: the queue expires (x-expires) or stays, named in the log
            System.err.println("amqp: could not delete queue '" + queue + "' at " + address + ": "
                    + AmqpConnections.describe(e) + "; remove it with: msgscope clean --driver amqp (or rabbitmqctl "
                    + "delete_queue " + queue + ")");
        }
    }

    /**
     * A group's shared queue is deleted by the last of its subscribers to leave: its own consumer cancelled, a queue
     * with no other consumer is deleted; the broker's auto-delete (without reconnect) covers subscribers that leave
     * together.
     */
    static void deleteGroupQueueIfLast(Channel channel, String tag, String queue) {
        try {
            if (tag != null) {
                channel.basicCancel(tag);
            }
            if (channel.queueDeclarePassive(queue).getConsumerCount() == 0) {
                channel.queueDelete(queue);
            }
        } catch (IOException | ShutdownSignalException e) {
            // gone already (auto-delete), or the broker closed the channel: the connection closes anyway
        }
    }
}
