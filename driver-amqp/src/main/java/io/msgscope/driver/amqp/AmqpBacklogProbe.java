package io.msgscope.driver.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import io.msgscope.core.driver.BacklogProbe;
import io.msgscope.core.driver.DriverSpec;

import java.io.IOException;

/**
 * The broker's count of a queue's ready messages (issue 31 item 3): a passive queue.declare on a connection of its
 * own, whose declare-ok carries message_count — the messages ready for delivery, not those delivered and not yet
 * acknowledged (a paused consumer's prefetch). An exclusive queue (scenario mode's own queues) is declared on a channel
 * of its subscriber's connection instead, the only one the broker lets see it.
 */
final class AmqpBacklogProbe implements BacklogProbe {
    private final Connection connection; // null: a channel on the subscriber's connection, which stays open
    private final Channel channel;
    private final String queue;
    private final int prefetch;

    AmqpBacklogProbe(DriverSpec spec, String queue) throws IOException {
        AmqpOptions o = AmqpOptions.of(spec);
        this.prefetch = o.prefetch();
        Connection owner = SubscriberQueues.exclusiveOwner(queue);
        if (owner != null) {
            try {
                this.connection = null;
                this.channel = owner.createChannel();
            } catch (ShutdownSignalException e) {
                throw new IOException("amqp: the backlog probe cannot open a channel: " + AmqpConnections.describe(e), e);
            }
            this.queue = queue;
            return;
        }
        try {
            this.connection = AmqpConnections.factory(spec, o).newConnection("msgscope-backlog-probe");
            this.channel = connection.createChannel();
        } catch (java.util.concurrent.TimeoutException | ShutdownSignalException e) {
            throw new IOException("amqp: the backlog probe cannot connect: " + AmqpConnections.describe(e), e);
        }
        this.queue = queue;
    }

    @Override
    public long depth() throws IOException {
        try {
            return channel.queueDeclarePassive(queue).getMessageCount();
        } catch (ShutdownSignalException e) {
            throw new IOException("amqp: passive declare of queue '" + queue + "' failed: "
                    + AmqpConnections.describe(e), e);
        }
    }

    /** The prefetch: the broker delivers up to that many to the paused consumer, which holds them unacknowledged. */
    @Override
    public long heldUncountedMax() {
        return prefetch == 0 ? -1 : prefetch;
    }

    @Override
    public String source() {
        return "AMQP 0-9-1 queue.declare (passive) of queue " + queue + ": message_count (ready messages; the paused "
                + "consumer's unacknowledged prefetch is not counted)";
    }

    @Override
    public void close() {
        if (connection == null) {
            try {
                channel.close();
            } catch (IOException | java.util.concurrent.TimeoutException | ShutdownSignalException e) {
                // the subscriber's connection closes it anyway
            }
            return;
        }
        try {
            connection.close(AmqpConnections.CLOSE_TIMEOUT_MS);
        } catch (IOException | ShutdownSignalException e) {
            connection.abort(AmqpConnections.CLOSE_TIMEOUT_MS);
        }
    }
}
