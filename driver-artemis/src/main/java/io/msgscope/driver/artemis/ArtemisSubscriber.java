package io.msgscope.driver.artemis;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import org.apache.activemq.artemis.api.core.ActiveMQException;
import org.apache.activemq.artemis.api.core.ActiveMQQueueExistsException;
import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.api.core.client.ClientConsumer;
import org.apache.activemq.artemis.api.core.client.ClientMessage;
import org.apache.activemq.artemis.api.core.client.SessionFailureListener;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * One subscriber connection: a core consumer on a queue of the address, made before the publisher is told the address.
 * Anycast ({@code routing=anycast}, the default): the queue is named as the address and shared by every subscriber
 * of it (round-robin: each message to one of them), created by the first and deleted, with its address, by the last
 * to close (each tries after closing its consumer; the broker refuses while another consumes). Multicast: a
 * subscription queue of this subscriber's own ({@code msgscope-artemis-sub-<random>}) on the address, so each
 * subscriber gets every message, deleted on close (durable with {@code durable=true}), then the address when no other
 * subscription is left on it.
 *
 * <p>Each message's body is copied into one reused little-endian buffer (growing once for a larger one) and handed
 * over, then acknowledged (auto-commit acks, batched by the client). {@link #poll} receives on the caller's thread;
 * {@link #start} hands messages over on the client's delivery thread (a {@code MessageHandler}).
 */
final class ArtemisSubscriber implements Subscriber {
    private final ArtemisSettings settings;
    private final ArtemisSession session;
    private final String queue;
    private final boolean deleteOnClose;
    private final ClientConsumer consumer;
    private ByteBuffer reused;
    private volatile String closeReason;
    private volatile boolean closing;
    private long shortPayloads;

    ArtemisSubscriber(ArtemisSettings settings, ArtemisSession session, int messageSize) throws IOException {
        this.settings = settings;
        this.session = session;
        this.reused = ByteBuffer.allocate(Math.max(messageSize, WireHeader.SIZE)).order(ByteOrder.LITTLE_ENDIAN);
        SimpleString address = SimpleString.of(settings.address());
        QueueConfiguration q;
        if (settings.multicast()) {
            queue = ArtemisSettings.NAME_PREFIX + "sub-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
            q = QueueConfiguration.of(queue).setAddress(address).setRoutingType(RoutingType.MULTICAST)
                    .setDurable(settings.durable()).setTemporary(!settings.durable());
        } else {
            queue = settings.address();
            q = QueueConfiguration.of(queue).setAddress(address).setRoutingType(RoutingType.ANYCAST)
                    .setDurable(settings.durable()).setAutoDelete(true).setAutoDeleteDelay(0L);
        }
        boolean created = true;
        try {
            try {
                session.session.createQueue(q);
            } catch (ActiveMQQueueExistsException e) {
                created = false; // another subscriber of the same anycast address made it: share it
            }
            this.consumer = session.session.createConsumer(queue);
            session.session.addFailureListener(new Lost());
            session.session.start();
        } catch (ActiveMQException e) {
            session.close();
            throw new IOException("artemis: the subscriber's queue " + queue + " on " + settings.address() + " at "
                    + settings.url() + " was refused: " + ArtemisSession.describe(e), e);
        }
        // msgscope's own names (its per-run address, a scenario's default topics) are removed by whoever leaves last
        this.deleteOnClose = created || settings.multicast()
                || settings.address().startsWith(ArtemisClean.PREFIX);
    }

    @Override
    public String destination() {
        return settings.address();
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) throws IOException {
        if (closeReason != null) {
            return -1;
        }
        int n = 0;
        try {
            ClientMessage m = consumer.receive(Math.max(1, timeoutMs));
            while (m != null) {
                n += deliver(m, handler);
                m = n < 4096 ? consumer.receiveImmediate() : null;
            }
        } catch (ActiveMQException e) {
            lost("artemis: the consumer of " + queue + " ended: " + ArtemisSession.describe(e));
            return n > 0 ? n : -1;
        }
        return n;
    }

    /** Copies one message's body and hands it over, then acknowledges it; 1 if it carried a measurement header. */
    private int deliver(ClientMessage m, MessageHandler handler) throws ActiveMQException {
        int size = m.getBodySize();
        int n = 0;
        if (size >= WireHeader.SIZE) {
            if (reused.capacity() < size) {
                reused = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
            }
            m.getBodyBuffer().readBytes(reused.array(), 0, size);
            handler.onMessage(reused, 0);
            n = 1;
        } else {
            shortPayloads++;
        }
        m.acknowledge();
        return n;
    }

    @Override
    public void start(MessageHandler handler, Consumer<String> ended) {
        try {
            consumer.setMessageHandler(m -> {
                try {
                    deliver(m, handler);
                } catch (ActiveMQException e) {
                    if (lost("artemis: acknowledging on " + queue + " failed: " + ArtemisSession.describe(e))) {
                        ended.accept(closeReason);
                    }
                }
            });
        } catch (ActiveMQException e) {
            lost("artemis: the consumer of " + queue + " refused a handler: " + ArtemisSession.describe(e));
            ended.accept(closeReason);
            return;
        }
        endedListener = ended;
    }

    private volatile Consumer<String> endedListener;

    /** Keeps the first reason the subscription ended; true when this was it (and the run had not closed it). */
    private synchronized boolean lost(String why) {
        if (closeReason != null || closing) {
            return false;
        }
        closeReason = why;
        return true;
    }

    /** The session's connection failed: the subscription is over (this driver does not reconnect). */
    private final class Lost implements SessionFailureListener {
        @Override
        public void connectionFailed(ActiveMQException e, boolean failedOver) {
            if (lost("artemis: the connection to " + settings.url() + " was lost: " + ArtemisSession.describe(e))) {
                Consumer<String> l = endedListener;
                if (l != null) {
                    l.accept(closeReason);
                }
            }
        }

        @Override
        public void connectionFailed(ActiveMQException e, boolean failedOver, String scaleDownTargetNodeID) {
            connectionFailed(e, failedOver);
        }

        @Override
        public void beforeReconnect(ActiveMQException e) {
        }
    }

    @Override
    public String closeReason() {
        return closeReason;
    }

    @Override
    public Map<String, Long> counters() {
        return Map.of("short_payloads", shortPayloads);
    }

    @Override
    public Map<String, String> serverInfo() {
        return session.serverInfo();
    }

    @Override
    public void close() {
        closing = true;
        try {
            consumer.close();
            if (deleteOnClose) {
                session.session.deleteQueue(queue);
                ArtemisClean.deleteAddressIfUnused(session, settings.address());
            }
        } catch (ActiveMQException | RuntimeException e) {
            // another subscriber still consumes from the shared queue: the last one to leave deletes it
        }
        session.close();
    }
}
