package io.msgscope.driver.amqp10;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import io.msgscope.core.driver.BrokerUri;
import io.msgscope.core.driver.DriverSpec;

/**
 * Deletes the per-run queue (or a round-robin scenario's shared queue) a subscriber made on RabbitMQ through its AMQP 1.0 plugin (3.x), which declares the queue
 * of a {@code /queue/NAME} address non-exclusive and non-auto-delete and offers no way to delete it over AMQP 1.0: the
 * deletion goes over AMQP 0-9-1 on the same host, port, credentials and virtual host (RabbitMQ serves both protocols
 * on one port). When that fails, one line on stderr names the queue and the command that removes it.
 */
final class RabbitQueues {
    /** msgscope's per-run queues: {@code msgscope-amqp10-UUID}. */
    static final String PREFIX = "msgscope-amqp10-";

    private RabbitQueues() {
    }

    static void delete(DriverSpec spec, String queue) {
        delete(spec, queue, false);
    }

    /**
     * Deletes {@code queue}; with {@code ifUnused}, only when no consumer is left on it (a round-robin scenario's shared
     * queue: the last of its subscribers to leave deletes it; RabbitMQ refuses the deletion while one consumes).
     */
    static void delete(DriverSpec spec, String queue, boolean ifUnused) {
        BrokerUri uri = Amqp10Connections.uri(spec);
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(uri.host());
        f.setPort(uri.port());
        if (uri.user() != null) {
            f.setUsername(uri.user());
        }
        if (uri.password() != null) {
            f.setPassword(uri.password());
        }
        String vhost = Amqp10Connections.virtualHost(spec);
        f.setVirtualHost(vhost == null ? "/" : vhost.startsWith("vhost:") ? vhost.substring("vhost:".length()) : vhost);
        f.setConnectionTimeout(5_000);
        f.setAutomaticRecoveryEnabled(false);
        try {
            io.msgscope.core.driver.TlsOptions tls = io.msgscope.core.driver.TlsOptions.of(spec, uri.tls(), "", false);
            if (tls != null) { // trusts what the run's connections trust
                f.useSslProtocol(tls.sslContext());
                if (tls.verify()) {
                    f.enableHostnameVerification();
                }
            }
            try (com.rabbitmq.client.Connection c = f.newConnection("msgscope-amqp10-cleanup")) {
                Channel ch = c.createChannel();
                ch.queueDelete(queue, ifUnused, false);
            }
        } catch (Exception e) {
            if (ifUnused && AmqpCodes.preconditionFailed(e)) {
                return; // another subscriber still consumes: the last one deletes it
            }
            String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().replace('\n', ' ');
            System.err.println("amqp10: could not delete queue '" + queue + "' at " + uri.address() + " over AMQP 0-9-1: "
                    + m + "; remove it with: rabbitmqctl delete_queue " + queue);
        }
    }

    /** RabbitMQ's answers as amqp-client reports them. */
    private static final class AmqpCodes {
        /** 406 PRECONDITION_FAILED: e.g. queue.delete if-unused on a queue that has consumers. */
        static boolean preconditionFailed(Exception e) {
            for (Throwable c = e; c != null; c = c.getCause()) {
                if (c instanceof com.rabbitmq.client.ShutdownSignalException s
                        && s.getReason() instanceof com.rabbitmq.client.AMQP.Channel.Close close) {
                    return close.getReplyCode() == 406;
                }
            }
            return false;
        }
    }
}
